/* test_readers.c - the trace readers (io/readers.h): each format's fields
 * on small hand-written samples, round trips through the native CSV, every
 * kind of bad file, and the scenario's "format" and "reference_gpu" keys.
 * The real traces are tests/test_traces.c. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/readers.h"
#include "../io/scenario.h"
#include "testutil.h"
#include "wl_util.h"

static int type(const char *name)
{
    int t = gpu_catalog_find(tu_cat, name);
    CU_ASSERT_FATAL(t >= 0);
    return t;
}

/* ---- helpers ------------------------------------------------------------- */

/* A temporary file holding n bytes (NULs allowed).  RET: its path, which
 * the caller removes. */
static char *tmp_bytes(const void *data, size_t n)
{
    char *p = xstrdup("/tmp/fleetsim-readers-XXXXXX");
    int fd = mkstemp(p);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, data, n) == (ssize_t)n);
    close(fd);
    return p;
}

/* Read text as format into w.  OUT *path_out (optional): the file's path,
 * already removed, for matching messages. */
static int read_as(const char *format, const char *text, const struct reader_options *opt,
                   struct workload *w, struct reader_stats *st, struct fs_err *e)
{
    char *p = tmp_bytes(text, strlen(text));
    int rc = trace_reader_find(format)->read(p, opt, tu_cat, w, st, e);
    unlink(p);
    free(p);
    return rc;
}

/* Reading data (n bytes) as format (NULL: an openb node list) fails with code, a message that starts
 * with the file's path and contains sub, and leaves a workload untouched. */
static void expect_bytes(const char *format, const void *data, size_t n, int code,
                         const char *sub)
{
    struct workload w;
    struct fs_err e = {0};
    struct reader_stats st;
    workload_init(&w);
    char *p = tmp_bytes(data, n);
    int rc;
    if (format) {
        rc = trace_reader_find(format)->read(p, NULL, tu_cat, &w, &st, &e);
    } else { /* an openb node list */
        struct fleet_group *g = NULL;
        int ng = 0;
        rc = openb_read_nodes(p, tu_cat, &g, &ng, NULL, &e);
        CU_ASSERT(g == NULL && ng == 0);
        free(g);
    }
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_EQUAL(e.code, code);
    CU_ASSERT_EQUAL(strncmp(e.msg, p, strlen(p)), 0);
    if (!strstr(e.msg, sub))
        printf("\n    got:  %s\n    want: %s\n", e.msg, sub);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, sub));
    CU_ASSERT(w.n == 0 && w.nteams == 0);
    unlink(p);
    free(p);
    workload_free(&w);
}

static void expect_err(const char *format, const char *text, const char *sub)
{
    expect_bytes(format, text, strlen(text), FS_EDATA, sub);
}

/* Read text as format, write native, read that back: the same jobs. */
static void round_trip(const char *format, const char *text)
{
    struct workload w, back;
    struct fs_err e = {0};
    workload_init(&w);
    workload_init(&back);
    CU_ASSERT_EQUAL_FATAL(read_as(format, text, NULL, &w, NULL, &e), 0);
    CU_ASSERT_EQUAL(write_and_read(tu_cat, &w, &back, NULL, 0), 0);
    CU_ASSERT(w.n > 0);
    CU_ASSERT_EQUAL(count_diffs(&w, &back), 0);
    workload_free(&w);
    workload_free(&back);
}

/* ---- samples ---------------------------------------------------------------- */

#define OPENB_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase," \
                  "creation_time,deletion_time,scheduled_time\n"
#define PHILLY_HDR "timestamp,duration,num_gpus,gpu_time,cluster\n"
#define AZURE_HDR "TIMESTAMP,ContextTokens,GeneratedTokens\n"

static const char openb_sample[] =
    OPENB_HDR
    "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,100,0\n"
    "openb-pod-0001,6000,12288,1,460,V100M16|v100m32,BE,Running,50,250,60\r\n"
    "openb-pod-0002,88000,327680,8,1000,G2,Burstable,Succeeded,70,1070,70\n"
    "\n"
    "openb-pod-0003,4000,8192,0,0,,BE,Running,80,90,80\n"
    "openb-pod-0004,8000,30517,1,230,,BE,Pending,90,150,\n"
    "openb-pod-0005,8000,30517,1,230,T4,,Pending,95,95,\n";

static const char philly_sample[] =
    PHILLY_HDR
    "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
    "2017-10-03 00:00:00,2951.5,4,11806.0,6214e9\n"
    "2017-10-09 07:01:56,0,2,0,6214e9\n"
    "2017-10-04 01:00:00,10,0,0,6214e9\n"
    "2017-10-05 00:00:00,30,8,240,\n";

static const char swf_sample[] =
    "; Version: 2.2\n"
    "; MaxProcs: 8\n"
    ";\n"
    "    1        0   10  100    4 552.21  -1    4  200  -1  1   3   1  -1 -1  1 -1 -1\n"
    "    2        5   -1   -1    2     -1  -1    2   -1  -1  0   3   1  -1 -1  1 -1 -1\n"
    "\t3       7.5  -1   30   -1     -1  -1    2   -1  -1  1  -1   7  -1 -1  1 -1 -1\n"
    "    4       10   -1   30   16     -1  -1   16   -1  -1  1   4   1  -1 -1  1 -1 -1\n"
    "\n"
    "    5       12   -1   30    1     -1  -1   -1   -1  -1  1  -1  -1  -1 -1  1 -1 -1\n"
    "    6       20   -1   40   -1     -1  -1   -1   -1  -1  1   5   1  -1 -1  1 -1 -1\n";

/* ---- openb ------------------------------------------------------------------- */

static void test_openb_fields(void)
{
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("openb", openb_sample, NULL, &w, &st, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 6);
    CU_ASSERT(st.rows == 6 && st.jobs == 6 && st.dropped == 0);
    int g2 = type("g2");
    const struct job *j = w.jobs; /* sorted by submit: the file's order */
    for (size_t i = 0; i < w.n; i++)
        CU_ASSERT(w.jobs[i].id == (int64_t)i && w.jobs[i].kind == JOB_BATCH &&
                  w.jobs[i].ref_type == g2);
    CU_ASSERT(j[0].submit == 0 && j[0].gpus == 1 && j[0].milli == 1000 && j[0].work == 100);
    CU_ASSERT(j[0].cpu_milli == 12000 && j[0].mem_mib == 16384 && j[0].allowed == 0);
    CU_ASSERT_STRING_EQUAL(w.teams[j[0].team], "LS");
    /* A share; run time from scheduled_time; models named in any case. */
    CU_ASSERT(j[1].submit == 50 * FS_USEC && j[1].milli == 460 && j[1].work == 190);
    CU_ASSERT_EQUAL(j[1].allowed, (1ULL << type("v100m16")) | (1ULL << type("v100m32")));
    /* Eight whole GPUs: work counts them. */
    CU_ASSERT(j[2].gpus == 8 && j[2].milli == 1000 && j[2].work == 8000);
    CU_ASSERT_EQUAL(j[2].allowed, 1ULL << g2);
    /* CPU only. */
    CU_ASSERT(j[3].gpus == 0 && j[3].work == 10 && j[3].cpu_milli == 4000);
    /* Never scheduled: the time in the trace; 0 s counts 1 s; empty qos. */
    CU_ASSERT(j[4].milli == 230 && j[4].work == 60);
    CU_ASSERT(j[5].work == 1 && j[5].allowed == 1ULL << type("t4"));
    CU_ASSERT_STRING_EQUAL(w.teams[j[5].team], "openb");
    workload_free(&w);

    /* The short form: no times, no spec, no qos. */
    struct reader_options opt = {.ref_type = type("t4"), .team = "alibaba"};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("openb", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                  "pod-b,1000,2048,4,1000\npod-a,500,1024,1,250\n",
                                  &opt, &w, &st, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 2);
    CU_ASSERT(w.jobs[0].id == 0 && w.jobs[0].gpus == 4 && w.jobs[0].work == 4 * 3600.0);
    CU_ASSERT(w.jobs[1].id == 1 && w.jobs[1].milli == 250 && w.jobs[1].work == 3600);
    CU_ASSERT(w.jobs[0].submit == 0 && w.jobs[0].ref_type == type("t4"));
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[1].team], "alibaba");
    workload_free(&w);
}

static void test_openb_nodes(void)
{
    const char *text = "sn,cpu_milli,memory_mib,gpu,model\n"
                       "n0,64000,262144,2,P100\nn1,64000,262144,2,P100\n"
                       "n2,32000,131072,0,\n"
                       "n3,96000,393216,8,G2\nn4,64000,262144,2,p100\n";
    char *p = tmp_bytes(text, strlen(text));
    struct fleet_group *g = NULL;
    int n = 0, skipped = 0;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL_FATAL(openb_read_nodes(p, tu_cat, &g, &n, &skipped, &e), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(skipped, 1);
    CU_ASSERT(g[0].type == type("p100") && g[0].nodes == 2 && g[0].gpus_per_node == 2);
    CU_ASSERT(g[0].cpu_milli == 64000 && g[0].mem_mib == 262144);
    CU_ASSERT(g[1].type == type("g2") && g[1].nodes == 1 && g[1].gpus_per_node == 8);
    CU_ASSERT(g[2].type == type("p100") && g[2].nodes == 1);
    free(g);
    unlink(p);
    free(p);
    CU_ASSERT_EQUAL(openb_gpu_type(tu_cat, "v100M32"), type("v100m32"));
    CU_ASSERT_EQUAL(openb_gpu_type(tu_cat, "K80"), -1);
}

/* ---- philly --------------------------------------------------------------------- */

static void test_philly_fields(void)
{
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("philly", philly_sample, NULL, &w, &st, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 3);
    CU_ASSERT(st.rows == 5 && st.jobs == 3 && st.dropped == 2 && st.nreasons == 2);
    CU_ASSERT_STRING_EQUAL(st.reasons[0].why, "duration 0");
    CU_ASSERT(st.reasons[0].count == 1 && st.reasons[0].first_line == 4);
    CU_ASSERT_STRING_EQUAL(st.reasons[1].why, "num_gpus 0");
    CU_ASSERT(st.reasons[1].count == 1 && st.reasons[1].first_line == 5);
    /* Submit from the earliest timestamp (row 2), not the first row. */
    const struct job *j = w.jobs;
    CU_ASSERT(j[0].id == 2 && j[0].submit == 0 && j[0].gpus == 4 && j[0].work == 2951.5 * 4);
    CU_ASSERT_STRING_EQUAL(w.teams[j[0].team], "vc6214e9");
    CU_ASSERT(j[1].id == 5 && j[1].submit == 2 * 86400 * FS_USEC && j[1].work == 240);
    CU_ASSERT_STRING_EQUAL(w.teams[j[1].team], "philly");
    CU_ASSERT(j[2].id == 1 && j[2].submit == ((6 * 86400LL) + 7 * 3600 + 60 + 55) * FS_USEC);
    CU_ASSERT(j[2].kind == JOB_TRAIN && j[2].ref_type == type("p100"));
    workload_free(&w);

    struct reader_options opt = {.ref_type = type("v100m32"), .team = "other"};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("philly", philly_sample, &opt, &w, NULL, &e), 0);
    CU_ASSERT(w.jobs[0].ref_type == type("v100m32"));
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[1].team], "other");
    workload_free(&w);
}

/* ---- swf -------------------------------------------------------------------------- */

static void test_swf_fields(void)
{
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("swf", swf_sample, NULL, &w, &st, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 3);
    CU_ASSERT(st.rows == 6 && st.jobs == 3 && st.dropped == 3 && st.nreasons == 3);
    CU_ASSERT_STRING_EQUAL(st.reasons[0].why, "run time <= 0 or unknown");
    CU_ASSERT_EQUAL(st.reasons[0].first_line, 5);
    CU_ASSERT_STRING_EQUAL(st.reasons[1].why, "more processors than the header's MaxProcs 8");
    CU_ASSERT_EQUAL(st.reasons[1].first_line, 7);
    CU_ASSERT_STRING_EQUAL(st.reasons[2].why, "processors <= 0 or unknown");
    CU_ASSERT_EQUAL(st.reasons[2].first_line, 10);
    const struct job *j = w.jobs;
    CU_ASSERT(j[0].id == 1 && j[0].submit == 0 && j[0].gpus == 4 && j[0].work == 400);
    CU_ASSERT_STRING_EQUAL(w.teams[j[0].team], "user3");
    /* Requested processors when none are allocated; the group without a user. */
    CU_ASSERT(j[1].id == 3 && j[1].submit == 7500000 && j[1].gpus == 2 && j[1].work == 60);
    CU_ASSERT_STRING_EQUAL(w.teams[j[1].team], "group7");
    CU_ASSERT(j[2].id == 5 && j[2].gpus == 1 && j[2].kind == JOB_BATCH);
    CU_ASSERT_STRING_EQUAL(w.teams[j[2].team], "swf");
    CU_ASSERT_EQUAL(j[2].ref_type, type("a100-sxm-80"));
    workload_free(&w);
}

/* ---- azure ---------------------------------------------------------------------- */

static void test_azure_bins(void)
{
    const char *text = AZURE_HDR
                       "2023-11-16 18:15:46.6805900,374,44\n"
                       "2023-11-16 18:15:50.9951690,396,109\r\n"
                       "2023-11-16 18:16:46.6805899,10,1\n"  /* 59.9999999 s: bin 0 */
                       "2023-11-16 18:16:46.6805900,20,2\n"  /* 60 s: bin 1 */
                       "2023-11-16 18:18:47,5,0\n";          /* bin 3 */
    char *p = tmp_bytes(text, strlen(text));
    struct demand_curve d;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL_FATAL(azure_read_demand(p, 60, &d, &e), 0);
    CU_ASSERT_EQUAL_FATAL(d.n, 4);
    CU_ASSERT(d.prompt_tokens[0] == 780 && d.output_tokens[0] == 154);
    CU_ASSERT(d.prompt_tokens[1] == 20 && d.output_tokens[1] == 2);
    CU_ASSERT(d.prompt_tokens[2] == 0 && d.prompt_tokens[3] == 5);
    CU_ASSERT(d.total_prompt == 805 && d.total_output == 156 && d.requests == 5);
    demand_curve_free(&d);
    CU_ASSERT_EQUAL(azure_read_demand(p, 0, &d, &e), FS_EUSAGE);
    CU_ASSERT(d.n == 0 && d.prompt_tokens == NULL);
    unlink(p);
    free(p);

    /* A row before the first, a bad date, a fraction of 10 digits. */
    const char *bad[][2] = {
        {AZURE_HDR "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:45.9,1,1\n",
         ":3: column TIMESTAMP: 2023-11-16 18:15:45.9 is earlier than the first row's"},
        {AZURE_HDR "2023-02-29 00:00:00,1,1\n", ":2: column TIMESTAMP: no such date-time"},
        {AZURE_HDR "2023-11-16 18:15:46.1234567890,1,1\n", ":2: column TIMESTAMP: the fraction"},
        {AZURE_HDR "2023-11-16T18:15:46,1,-1\n", ":2: column GeneratedTokens: must be 0..100000000"},
        {AZURE_HDR, ": no requests"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(bad); i++) {
        p = tmp_bytes(bad[i][0], strlen(bad[i][0]));
        CU_ASSERT_EQUAL(azure_read_demand(p, 60, &d, &e), FS_EDATA);
        CU_ASSERT(strncmp(e.msg, p, strlen(p)) == 0 && strstr(e.msg, bad[i][1]));
        if (!strstr(e.msg, bad[i][1]))
            printf("\n    got:  %s\n    want: %s\n", e.msg, bad[i][1]);
        CU_ASSERT(d.n == 0 && d.prompt_tokens == NULL);
        demand_curve_free(&d);
        unlink(p);
        free(p);
    }
}

/* ---- round trips ------------------------------------------------------------------- */

static void test_round_trips(void)
{
    round_trip("philly", philly_sample);
    round_trip("swf", swf_sample);
    /* The native CSV has no GPU share, CPU or memory columns: pods without. */
    round_trip("openb", OPENB_HDR
               "openb-pod-0000,0,0,1,1000,,LS,Running,0,100,0\n"
               "openb-pod-0001,0,0,2,1000,V100M16|T4,BE,Running,50,250,60\n"
               "openb-pod-0002,0,0,8,1000,G2,Burstable,Succeeded,70,1070,70\n");
}

/* ---- bad input ------------------------------------------------------------------------ */

/* What every reader must survive: empty, truncated, binary, a 100 kB line. */
static void common_bad(const char *format, const char *header, const char *row,
                       const char *trunc_sub)
{
    char buf[4096];
    expect_err(format, "", "empty file");
    snprintf(buf, sizeof buf, "%s%s%.*s", header, row, (int)strlen(row) / 2, row);
    expect_err(format, buf, trunc_sub);
    size_t big = 100 * 1000;
    char *line = xmalloc(big + strlen(header) + 2);
    snprintf(line, big, "%s", header);
    size_t h = strlen(line);
    memset(line + h, '7', big - h);
    expect_bytes(format, line, big, FS_EDATA, "line longer than 65536 bytes");
    free(line);
    /* Binary: random bytes with NULs and newlines, a fixed seed. */
    unsigned char junk[3000];
    unsigned s = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((s = s * 1103515245u + 12345u) >> 16);
    expect_bytes(format, junk, sizeof junk, FS_EDATA, ":1: ");
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s%s", header, row);
    memcpy(buf + n, "\0\x01\x02zz\n", 6);
    expect_bytes(format, buf, n + 6, FS_EDATA, "NUL byte in line");
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL(trace_reader_find(format)->read("/nonexistent/x", NULL, tu_cat, &w, NULL, &e),
                    FS_ENOINPUT);
    CU_ASSERT_STRING_EQUAL(e.msg, "/nonexistent/x: cannot open: No such file or directory");
}

static void test_bad_openb(void)
{
    common_bad("openb", OPENB_HDR, "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,100,0\n",
               ":3: expected 11 columns");
    expect_err("openb", "name,cpu\n", ":1: bad header");
    expect_err("openb", OPENB_HDR, ": no jobs");
    expect_err("openb", OPENB_HDR "p0,12x,1,1,1000,,LS,Running,0,1,0\n",
               ":2: column cpu_milli: expected an integer, got \"12x\"");
    expect_err("openb", OPENB_HDR "p0,1,1,1,1001,,LS,Running,0,1,0\n",
               ":2: column gpu_milli: must be 0..1000, got 1001");
    expect_err("openb", OPENB_HDR "p0,1,1,1,0,,LS,Running,0,1,0\n",
               ":2: column gpu_milli: a pod of one GPU needs a share");
    expect_err("openb", OPENB_HDR "p0,1,1,1,10,K80|T4,LS,Running,0,1,0\n",
               ":2: column gpu_spec: unknown GPU model \"K80\"");
    expect_err("openb", OPENB_HDR "p0,1,1,1,10,T4||P100,LS,Running,0,1,0\n",
               ":2: column gpu_spec: empty GPU model name");
    expect_err("openb", OPENB_HDR "p0,1,1,1,10,,LS,Running,5,4,5\n",
               ":2: column deletion_time: 4 is before scheduled_time 5");
    expect_err("openb", OPENB_HDR "p0,1,1,1,10,,LS,Running,5,9,4\n",
               ":2: column scheduled_time: 4 is before creation_time 5");
    expect_err("openb", OPENB_HDR "p0,1,1,1,10,,LS,Running,0x5,9,4\n",
               ":2: column creation_time: expected an integer, got \"0x5\"");
    expect_err("openb", OPENB_HDR "p1,1,1,1,10,,LS,Running,0,9,0\nq1,1,1,1,10,,LS,Running,0,9,0\n",
               ":3: duplicate job id 1 (first on line 2)");
    expect_err("openb", OPENB_HDR "p1,1,1,1,10,,a-team-name-that-is-far-too-long,Running,0,9,0\n",
               ":2: column qos: team name");
    expect_bytes(NULL, "", 0, FS_EDATA, ":1: empty file");
    expect_bytes(NULL, "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,H800\n", 47, FS_EDATA,
                 ":2: column model: unknown GPU model \"H800\"");
    expect_bytes(NULL, "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,65,T4\n", 46, FS_EDATA,
                 ":2: column gpu: must be 0..64, got 65");
    expect_bytes(NULL, "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\n", 44, FS_EDATA,
                 ": no GPU nodes");
}

static void test_bad_philly(void)
{
    common_bad("philly", PHILLY_HDR, "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n",
               ":3: expected 5 columns");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,nan,1,66.0,11cb48\n",
               ":2: column duration: expected a finite number, got \"nan\"");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,1e400,1,66.0,11cb48\n",
               ":2: column duration: expected a finite number, got \"1e400\"");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,-5,1,66.0,11cb48\n",
               ":2: column duration: must be in [0, 9e+12], got -5");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,5,1.5,66.0,11cb48\n",
               ":2: column num_gpus: expected an integer, got \"1.5\"");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,5, 1,66.0,11cb48\n",
               ":2: column num_gpus: expected an integer, got \" 1\"");
    expect_err("philly", PHILLY_HDR "2017-13-09 07:01:55,5,1,66.0,11cb48\n",
               ":2: column timestamp: no such date-time");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,0,1,0,11cb48\n",
               ": no jobs: all 1 rows dropped (first: line 2, duration 0)");
    expect_err("philly", PHILLY_HDR "2017-10-09 07:01:55,5,1,\xff\xfe,11cb48\n",
               ":2: column gpu_time: expected a finite number, got \"??\"");
}

static void test_bad_swf(void)
{
    const char *row = "1 0 -1 100 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n";
    char buf[512];
    expect_err("swf", "", ":1: empty file");
    snprintf(buf, sizeof buf, "; MaxProcs: 8\n%s%.20s", row, row);
    expect_err("swf", buf, ":3: expected 18 whitespace-separated fields, found 8");
    expect_err("swf", "; MaxProcs: eight\n", ":1: column MaxProcs: expected an integer");
    expect_err("swf", "; MaxProcs: 0\n", ":1: column MaxProcs: must be >= 1");
    expect_err("swf", "; only comments\n", ": no jobs");
    expect_err("swf", "1 0 -1 100 4.5 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n",
               ":1: column processors (field 5): expected an integer, got \"4.5\"");
    expect_err("swf", "1 0 -1 1OO 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n",
               ":1: column run_time (field 4): expected a finite number, got \"1OO\"");
    expect_err("swf", "1 0 -1 100 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -7\n",
               ":1: column think_time (field 18): must be -1..");
    expect_err("swf", "1 0 -1 100 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n"
               "1 5 -1 100 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n",
               ":2: duplicate job id 1 (first on line 1)");
    expect_err("swf", "1 0 -1 -1 4 -1 -1 4 -1 -1 1 3 1 -1 -1 1 -1 -1\n",
               ": no jobs: all 1 rows dropped (first: line 1, run time <= 0 or unknown)");
    size_t big = 100 * 1000;
    char *line = xmalloc(big);
    memset(line, ' ', big);
    expect_bytes("swf", line, big, FS_EDATA, ":1: line longer than 65536 bytes");
    free(line);
    unsigned char junk[2000];
    unsigned s = 777;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((s = s * 1103515245u + 12345u) >> 16);
    expect_bytes("swf", junk, sizeof junk, FS_EDATA, ":1: ");
}

static void test_bad_azure(void)
{
    const char *cases[][2] = {
        {"", ":1: empty file"},
        {"time,a,b\n", ":1: bad header"},
        {AZURE_HDR "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:1", ":3: expected 3 columns"},
        {AZURE_HDR "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47,37,4", ""},
        {AZURE_HDR "2023-11-16 18:15:46,1e3,44\n", ":2: column ContextTokens: expected an integer"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(cases); i++) {
        char *p = tmp_bytes(cases[i][0], strlen(cases[i][0]));
        struct demand_curve d;
        struct fs_err e = {0};
        int rc = azure_read_demand(p, 60, &d, &e);
        if (!*cases[i][1]) { /* cut inside the last number: indistinguishable */
            if (rc)
                printf("\n    got: %s\n", e.msg);
            CU_ASSERT(rc == 0 && d.total_prompt == 411);
        } else {
            CU_ASSERT(rc == FS_EDATA && strncmp(e.msg, p, strlen(p)) == 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, cases[i][1]));
        }
        demand_curve_free(&d);
        unlink(p);
        free(p);
    }
    size_t big = 100 * 1000;
    char *line = xmalloc(big);
    memcpy(line, AZURE_HDR, strlen(AZURE_HDR));
    memset(line + strlen(AZURE_HDR), 'x', big - strlen(AZURE_HDR));
    char *p = tmp_bytes(line, big);
    struct demand_curve d;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL(azure_read_demand(p, 60, &d, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, ":2: line longer than 65536 bytes"));
    unlink(p);
    free(p);
    free(line);
}

/* ---- appending, and the scenario's keys ------------------------------------------------ */

static void test_append_and_rollback(void)
{
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_as("philly", philly_sample, NULL, &w, NULL, &e), 0);
    size_t n = w.n, nteams = w.nteams;
    /* ids 1, 2, 5 are taken: an SWF job 1 collides. */
    CU_ASSERT_EQUAL(read_as("swf", swf_sample, NULL, &w, NULL, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, ":4: duplicate job id 1 (already in the workload)"));
    CU_ASSERT(w.n == n && w.nteams == nteams);
    CU_ASSERT_EQUAL(read_as("philly", PHILLY_HDR "2017-10-09 07:01:55,66.0,1,66.0,zz\nbad\n",
                            NULL, &w, NULL, &e), FS_EDATA);
    CU_ASSERT(w.n == n && w.nteams == nteams);
    /* The team table still finds what it holds. */
    CU_ASSERT_STRING_EQUAL(w.teams[workload_team(&w, "vc6214e9")], "vc6214e9");
    CU_ASSERT_EQUAL(w.nteams, nteams);
    workload_free(&w);
}

#define SCENARIO "{\"name\": \"x\", \"fleet\": [{\"gpu\": \"v100m32\", \"nodes\": 2, " \
                 "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\", %s}}"

static void test_scenario_formats(void)
{
    char trace[256], text[1024];
    snprintf(trace, sizeof trace, "%s", tu_tmpfile(".csv", philly_sample));
    struct scenario_options so = {.catalog = tu_path("models/data/gpus.json")};
    const struct {
        const char *keys;
        int code;
        const char *sub;
    } cases[] = {
        {"\"format\": \"philly\"", 0, NULL},
        {"\"format\": \"philly\", \"reference_gpu\": \"v100m16\"", 0, NULL},
        {"\"format\": \"philly\", \"reference_gpu\": \"v100m3\"", FS_EDATA,
         "$.workload.reference_gpu: unknown GPU type \"v100m3\"; did you mean"},
        {"\"format\": \"native\", \"reference_gpu\": \"t4\"", FS_EDATA,
         "$.workload.reference_gpu: a native trace names the reference type on every row"},
        {"\"format\": \"alibaba\"", FS_EDATA,
         "$.workload.format: unknown trace format \"alibaba\" (native, openb, philly, swf, sacct, gavel)"},
        {"\"format\": \"swf\"", FS_EDATA, ":1: expected 18 whitespace-separated fields"},
        {"\"format\": \"philly\", \"reference_gpus\": \"t4\"", FS_EDATA,
         "unknown key \"reference_gpus\"; did you mean \"reference_gpu\"?"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(cases); i++) {
        snprintf(text, sizeof text, SCENARIO, trace, cases[i].keys);
        const char *path = tu_tmpfile(".json", text);
        struct scenario *sc = NULL;
        struct fs_err e = {0};
        int rc = scenario_load(path, &so, &sc, &e);
        CU_ASSERT_EQUAL(rc, cases[i].code);
        if (rc == 0) {
            CU_ASSERT_EQUAL(sc->wl.n, 3);
            CU_ASSERT_EQUAL(sc->wl.jobs[0].ref_type,
                            type(strstr(cases[i].keys, "v100m16") ? "v100m16" : "p100"));
        } else if (!strstr(e.msg, cases[i].sub)) {
            printf("\n    got:  %s\n    want: %s\n", e.msg, cases[i].sub);
            CU_FAIL("message");
        }
        scenario_free(sc);
        unlink(path);
    }
}

static CU_TestInfo tests[] = {
    {"openb pods: fields, short form", test_openb_fields},
    {"openb nodes: groups, skipped CPU nodes", test_openb_nodes},
    {"philly: fields, relative submit, drops", test_philly_fields},
    {"swf: fields, MaxProcs, drops", test_swf_fields},
    {"azure: exact bins and totals", test_azure_bins},
    {"read, write native, read: same jobs", test_round_trips},
    {"openb: bad files", test_bad_openb},
    {"philly: bad files", test_bad_philly},
    {"swf: bad files", test_bad_swf},
    {"azure: bad files", test_bad_azure},
    {"append; a failed read changes nothing", test_append_and_rollback},
    {"scenario format and reference_gpu", test_scenario_formats},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"readers", tu_cat_setup, tu_cat_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_readers", suites);
}
