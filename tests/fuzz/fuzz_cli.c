/* fuzz_cli.c - libFuzzer target for the whole command line: arguments x
 * small inputs.  An input is the arguments, one a line, then optionally a
 * NUL byte and the bytes of a file named "in" the arguments may name.  The
 * first argument picks a command (any but serve, which listens); the
 * command runs in-process (tools/fleetsim.c's main, built as fleetsim_main)
 * in a private folder that also holds a valid scenario (s.json, on the
 * trace jobs.csv), a sweep grid (grid.json), a suite list (suite.txt) and
 * measured power points (power.csv).  It must return an exit status, never
 * crash, and free what it allocated (leak detection is on).
 *
 * What keeps each input to the folder and to about a second:
 *   - an argument that holds '/' or starts with ".." rejects the input, so
 *     nothing outside the folder is read or written;
 *   - -j/--jobs (but gen's --jobs, a job count) and --pdf are dropped, and
 *     compare, sweep, plan and fill get -j 1: no worker processes, no
 *     browser; charts are off (FLEETSIM_GNUPLOT=/nonexistent);
 *   - after 2 s a timer raises the interrupt flag, as SIGTERM would
 *     (base/signals.h), so a long run stops at its next look: the
 *     interrupted paths are fuzzed too. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../base/signals.h"
#include "../../reports/output.h"
#include "fuzz_util.h"

int fleetsim_main(int argc, char **argv);

#define MAX_ARGS 24

static const char scenario[] =
    "{\"name\": \"fuzz\", \"seed\": 3, \"horizon_s\": 86400,\n"
    " \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 2, \"gpus_per_node\": 8},\n"
    "           {\"gpu\": \"a100-sxm-80\", \"nodes\": 1, \"gpus_per_node\": 8}],\n"
    " \"workload\": {\"trace\": \"jobs.csv\"}, \"scheduler\": {\"policy\": \"best-fit\"},\n"
    " \"output\": {\"timeseries_interval_s\": 600}}\n";
static const char jobs[] =
    "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
    "1,0,train,research,8,0,,28800,a100-sxm-80\n"
    "2,60,infer,product,1,20,h100-sxm|a100-sxm-80,3600,a100-sxm-80\n"
    "3,120,finetune,research,2,0,,7200,h100-sxm\n"
    "4,4000,batch,vision,16,0,,57600,h100-sxm\n";
static const char grid[] = "{\"scenario\": \"s.json\", \"parameters\": {\"fleet[0].nodes\": [1, 2]}}\n";
static const char suite[] = "s.json\n";
static const char power[] = "0,60\n0.25,180\n0.5,320\n0.75,480\n1,700\n";

static void on_alarm(int sig)
{
    (void)sig;
    if (!fs_signal_caught)
        fs_signal_caught = SIGTERM;
}

/* The fixtures, written again before each input (a command may have
 * replaced one).  RET: the path of s.json. */
static const char *fixtures(void)
{
    const char *path = fuzz_write("s.json", (const uint8_t *)scenario, strlen(scenario));
    fuzz_write("jobs.csv", (const uint8_t *)jobs, strlen(jobs));
    fuzz_write("grid.json", (const uint8_t *)grid, strlen(grid));
    fuzz_write("suite.txt", (const uint8_t *)suite, strlen(suite));
    fuzz_write("power.csv", (const uint8_t *)power, strlen(power));
    return path;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char data[4096], *cwd = getcwd(data, sizeof data - 20);
    if (!cwd)
        abort();
    strcat(data, "/models/data"); /* the runner starts in the repository root */
    setenv("FLEETSIM_DATA", data, 1);
    setenv("FLEETSIM_GNUPLOT", "/nonexistent", 1);
    const char *path = fixtures();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    if (chdir(dir) != 0 || !freopen("/dev/null", "w", stdout))
        abort();
    struct sigaction sa = {.sa_handler = on_alarm};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    return 0;
}

/* Is this argument one to drop (see above)? */
static int dropped(const char *cmd, const char *a, const char *prev)
{
    bool gen = strcmp(cmd, "gen") == 0;
    return strcmp(a, "--pdf") == 0 || strncmp(a, "-j", 2) == 0 ||
           (!gen && strncmp(a, "--jobs", 6) == 0) ||
           (prev && (strcmp(prev, "-j") == 0 || (!gen && strcmp(prev, "--jobs") == 0)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t alen = nul ? (size_t)(nul - data) : size;
    char *text = malloc(alen + 1), *argv[MAX_ARGS + 4], *raw[MAX_ARGS];
    memcpy(text, data, alen);
    text[alen] = '\0';
    int n = 0, argc = 0;
    for (char *save = NULL, *t = strtok_r(text, "\n", &save); t && n < MAX_ARGS; t = strtok_r(NULL, "\n", &save))
        raw[n++] = t;
    bool ok = n > 0 && strcmp(raw[0], "serve") != 0;
    for (int i = 0; ok && i < n; i++)
        ok = !strchr(raw[i], '/') && strncmp(raw[i], "..", 2) != 0;
    if (!ok) {
        free(text);
        return -1; /* not kept in the corpus */
    }
    argv[argc++] = "fleetsim";
    for (int i = 0; i < n; i++)
        if (i == 0 || !dropped(raw[0], raw[i], raw[i - 1]))
            argv[argc++] = raw[i];
    if (strcmp(raw[0], "compare") == 0 || strcmp(raw[0], "sweep") == 0 || strcmp(raw[0], "plan") == 0 ||
        strcmp(raw[0], "fill") == 0) {
        argv[argc++] = "-j";
        argv[argc++] = "1";
    }
    argv[argc] = NULL;
    fixtures();
    if (nul)
        fuzz_write("in", nul + 1, size - alen - 1);

    optind = 0; /* glibc: start getopt afresh */
    fs_signal_caught = 0;
    out_set_max_mb(OUT_DEFAULT_MAX_MB);
    struct itimerval two = {.it_value = {.tv_sec = 2}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &two, NULL);
    int rc = fleetsim_main(argc, argv);
    setitimer(ITIMER_REAL, &off, NULL);
    free(text);
    if (rc < 0 || rc > 255) {
        fprintf(stderr, "fuzz: exit status %d\n", rc);
        abort();
    }
    return 0;
}
