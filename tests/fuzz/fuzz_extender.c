/* fuzz_extender.c - libFuzzer target for fleetsim serve's request path
 * (serve/extender.h).  Each input is one request body, answered as a
 * filter and then as a prioritize call by one long-lived extender running
 * FGD, so state built by earlier inputs (nodes learnt, pods decided) is
 * exercised too.  Every answer must be 200 or 400 with a JSON reply; no
 * crash, no leak (checked when the process ends: the extender is freed in
 * an atexit handler).  The corpus is the captured kube-scheduler requests.
 * The catalog is models/data/gpus.json: the fuzz runner starts in the
 * repository root. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../serve/extender.h"

static struct gpu_catalog *cat;
static struct extender *x;

static void done(void)
{
    extender_free(x);
    gpu_catalog_free(cat);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    struct fs_err err;
    if (gpu_catalog_load("models/data/gpus.json", &cat, &err)) {
        fprintf(stderr, "fuzz_extender: %s\n", err.msg);
        abort();
    }
    struct extender_options o = {.cat = cat, .policy = sched_policy_find("fgd"), .seed = 42};
    x = extender_new(&o);
    atexit(done);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int v = 0; v < EXT_NVERBS; v++) {
        char *reply;
        enum extender_outcome out;
        int status = extender_handle(x, (enum extender_verb)v, (const char *)data, size, &reply, &out);
        cJSON *r = cJSON_Parse(reply);
        if ((status != 200 && status != 400) || !r)
            abort();
        cJSON_Delete(r);
        free(reply);
    }
    return 0;
}
