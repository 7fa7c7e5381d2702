/* fuzz_reader.c - libFuzzer target for one trace reader, chosen at compile
 * time with -DFUZZ_FORMAT=N: 1 native job CSV, 2 openb pod list, 3 openb
 * node list, 4 philly, 5 swf, 6 azure-llm (a demand curve).  Each input is
 * a whole trace file; a read must succeed or fail with a message, never
 * crash, and free everything either way (leak detection is on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/readers.h"
#include "fuzz_util.h"

#define FUZZ_NATIVE 1
#define FUZZ_OPENB 2
#define FUZZ_OPENB_NODES 3
#define FUZZ_PHILLY 4
#define FUZZ_SWF 5
#define FUZZ_AZURE 6

#ifndef FUZZ_FORMAT
#error "compile with -DFUZZ_FORMAT=1..6 (see the comment above)"
#endif

/* A failed read must say why. */
static void check_failure(int rc, const struct fs_err *err)
{
    if (rc && (err->code != rc || !err->msg[0])) {
        fprintf(stderr, "fuzz: read failed with %d but the message is \"%s\" (code %d)\n", rc,
                err->msg, err->code);
        abort();
    }
}

#if FUZZ_FORMAT == FUZZ_AZURE
static int read_input(const char *path, struct fs_err *err)
{
    struct demand_curve d;
    int rc = azure_read_demand(path, 60, &d, err);
    demand_curve_free(&d);
    return rc;
}
#elif FUZZ_FORMAT == FUZZ_OPENB_NODES
static int read_input(const char *path, struct fs_err *err)
{
    struct fleet_group *groups = NULL;
    int n = 0, skipped = 0;
    int rc = openb_read_nodes(path, fuzz_catalog(), &groups, &n, &skipped, err);
    free(groups);
    return rc;
}
#else
static const char *const format_names[] = {
    [FUZZ_NATIVE] = "native", [FUZZ_OPENB] = "openb", [FUZZ_PHILLY] = "philly", [FUZZ_SWF] = "swf",
};

static int read_input(const char *path, struct fs_err *err)
{
    const struct trace_reader *rd = trace_reader_find(format_names[FUZZ_FORMAT]);
    struct workload w;
    struct reader_stats st;
    if (!rd)
        abort();
    workload_init(&w);
    int rc = rd->read(path, NULL, fuzz_catalog(), &w, &st, err);
    if (rc == 0 && (w.n == 0 || st.jobs != (long long)w.n)) {
        fprintf(stderr, "fuzz: a read that succeeded gave %zu jobs, stats say %lld\n", w.n, st.jobs);
        abort();
    }
    workload_free(&w);
    return rc;
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalog();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fs_err err = {0};
    const char *path = fuzz_write("trace", data, size);
    check_failure(read_input(path, &err), &err);
    return 0;
}
