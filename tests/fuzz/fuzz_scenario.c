/* fuzz_scenario.c - libFuzzer target for scenario_load.  Each input is a
 * whole scenario file; loading must succeed or fail with a message that
 * names the file, never crash, and free everything either way (leak
 * detection is on).
 *
 * The scenario is written into a private folder that also holds one small
 * valid trace of each format (jobs.csv, pods.csv, philly.csv, jobs.swf), so
 * the corpus's scenarios that name them reach the readers and the checks
 * after loading.  The catalog is models/data/gpus.json: the fuzz runner
 * starts in the repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/scenario.h"
#include "fuzz_util.h"

static const char native_trace[] =
    "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
    "1,0,train,research,8,0,,28800,a100-sxm-80\n"
    "2,60,infer,product,1,20,h100-sxm|a100-sxm-80,3600,a100-sxm-80\n"
    "3,120,finetune,research,2,0,,7200,h100-sxm\n";
static const char openb_trace[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "openb-pod-0001,12000,16384,1,1000,,LS,Running,0,3600,5\n"
    "openb-pod-0002,6000,8192,1,500,V100M32,BE,Succeeded,10,70,12\n"
    "openb-pod-0003,8000,4096,2,1000,G2,LS,Running,20,7220,\n";
static const char philly_trace[] =
    "timestamp,duration,num_gpus,gpu_time,cluster\n"
    "2017-10-09 07:01:55,3600,1,3600,0\n"
    "2017-10-09 07:02:55,7200,4,28800,2\n"
    "2017-10-09 07:03:10,0,1,0,1\n";
static const char swf_trace[] =
    "; MaxProcs: 16\n"
    "1 0 5 3600 4 -1 -1 4 7200 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 60 0 1800 1 -1 -1 1 3600 -1 1 2 1 -1 1 -1 -1 -1\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_write("jobs.csv", (const uint8_t *)native_trace, strlen(native_trace));
    fuzz_write("pods.csv", (const uint8_t *)openb_trace, strlen(openb_trace));
    fuzz_write("philly.csv", (const uint8_t *)philly_trace, strlen(philly_trace));
    fuzz_write("jobs.swf", (const uint8_t *)swf_trace, strlen(swf_trace));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("scenario.json", data, size);
    struct scenario_options opt = {.catalog = FUZZ_CATALOG};
    struct scenario *sc = NULL;
    struct fs_err err = {0};
    int rc = scenario_load(path, &opt, &sc, &err);
    if (rc ? (sc || err.code != rc || !err.msg[0]) : !sc) {
        fprintf(stderr, "fuzz: scenario_load returned %d, scenario %p, message \"%s\"\n", rc,
                (void *)sc, err.msg);
        abort();
    }
    scenario_free(sc);
    return 0;
}
