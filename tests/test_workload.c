/* test_workload.c - the job list and the native job CSV reader and writer
 * (the generator is tests/test_gen.c). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>

#include "../base/rng.h"
#include "../io/workload.h"
#include "testutil.h"
#include "wl_util.h"

#define HDR "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"

/* ---- reading good files ------------------------------------------------- */

static void test_read_fields(void)
{
    /* BOM, CRLF, comments, blank lines, unsorted rows, no final newline. */
    const char *text = "\xEF\xBB\xBF" HDR "# a comment\r\n"
                       "7,1.5,infer,ml-serving,2,40.5,h100-sxm|rtx4090,0.1,a100-sxm-80\r\n"
                       "\r\n  \n"
                       "3,1.5,train,research,16,0,,360000,h200-sxm\n"
                       "4,0,batch,ml-serving,1,0,h200-sxm,1e3,h100-sxm";
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_text(text, &w, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 3);
    CU_ASSERT_EQUAL(w.nteams, 2);
    const struct job *a = &w.jobs[0], *b = &w.jobs[1], *c = &w.jobs[2];
    CU_ASSERT(a->id == 4 && a->submit == 0 && a->kind == JOB_BATCH && a->work == 1000);
    CU_ASSERT(b->id == 3 && b->submit == 1500000 && b->kind == JOB_TRAIN);
    CU_ASSERT(b->gpus == 16 && b->allowed == 0 && b->ref_type == 1 && b->work == 360000);
    CU_ASSERT_STRING_EQUAL(w.teams[b->team], "research");
    CU_ASSERT(c->id == 7 && c->submit == 1500000 && c->kind == JOB_INFER && c->gpus == 2);
    CU_ASSERT(c->gpu_mem_gb == 40.5 && c->work == 0.1 && c->ref_type == 2);
    CU_ASSERT_EQUAL(c->allowed, (1u << 0) | (1u << 3));
    CU_ASSERT_STRING_EQUAL(w.teams[c->team], "ml-serving");
    CU_ASSERT_EQUAL(a->team, c->team);
    CU_ASSERT(c->state == JOB_FUTURE && c->type == -1 && c->node == -1 && c->nnodes == 0);
    CU_ASSERT(c->gang == NULL && c->start == -1 && c->end == -1);
    workload_free(&w);
}

static void test_round_trip(void)
{
    const char *text = HDR "2,0.000001,finetune,t1,3,0.1,a100-sxm-80|h100-sxm,"
                           "123.456789012345678,h100-sxm\n"
                           "1,86400.25,train,t2,4096,141,,1e15,h200-sxm\n"
                           "9,0,infer,t1,1,23.999999999999996,rtx4090,3,rtx4090\n";
    struct workload w, back, again;
    struct fs_err e = {0};
    char out[4096];
    workload_init(&w);
    workload_init(&back);
    workload_init(&again);
    CU_ASSERT_EQUAL_FATAL(read_text(text, &w, &e), 0);
    CU_ASSERT_EQUAL_FATAL(write_and_read(&wl_cat, &w, &back, out, sizeof out), 0);
    CU_ASSERT_EQUAL(count_diffs(&w, &back), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n2,0.000001,finetune,t1,3,0.1,h100-sxm|a100-sxm-80,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1,86400.250000,train,t2,4096,141,,1e+15,h200-sxm\n"));
    /* A generated workload has odd doubles and sub-second submit times. */
    struct gen_spec s = {.jobs = 2000, .arrivals_per_hour = 3600, .duration_median_s = 600,
                         .duration_sigma = 2, .ncounts = 2, .gpu_counts = {1, 3},
                         .gpu_weights = {1, 1}, .kind_weights = {1, 1, 1, 1}, .nteams = 1,
                         .team_names = {"gen"}, .team_weights = {1}, .ref_type = 3};
    workload_generate(&s, 11, &again);
    workload_free(&back);
    CU_ASSERT_EQUAL_FATAL(write_and_read(&wl_cat, &again, &back, NULL, 0), 0);
    CU_ASSERT_EQUAL(count_diffs(&again, &back), 0);
    workload_free(&w);
    workload_free(&back);
    workload_free(&again);
}

static void test_write_errors(void)
{
    struct workload w;
    workload_init(&w);
    struct job j = {.id = 1, .gpus = 1, .work = 1, .ref_type = 0};
    j.team = (uint16_t)workload_team(&w, "t");
    workload_add(&w, &j);
    FILE *f = fopen("/dev/full", "w");
    if (f) { /* every write fails with ENOSPC */
        CU_ASSERT_EQUAL(workload_write_native(f, &w, &wl_cat), FS_ECANTCREAT);
        fclose(f);
    }
    const char *path = tu_tmpfile(".csv", "");
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(workload_write_native(f, &w, &wl_cat), 0);
    w.jobs[0].ref_type = (int16_t)wl_cat.n; /* not a catalog type: nothing sensible to write */
    CU_ASSERT_EQUAL(workload_write_native(f, &w, &wl_cat), FS_EINTERNAL);
    fclose(f);
    unlink(path);
    workload_free(&w);
}

/* ---- reading bad files -------------------------------------------------- */

struct bad_case {
    const char *text;
    int code;
    const char *msg; /* a substring of the message */
};

#define ROW(...) __VA_ARGS__ "\n"
#define GOOD "1,0,train,ml,8,40,h100-sxm,1000,h100-sxm\n"

static const struct bad_case bad_cases[] = {
    {"id,submit,kind\n" GOOD, FS_EDATA,
     ":1: bad header; expected \"id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,"
     "work_gpu_s,ref_type\""},
    {"", FS_EDATA, ": empty file; expected the header"},
    {HDR, FS_EDATA, ": no jobs"},
    {HDR "# only a comment\n\n", FS_EDATA, ": no jobs"},
    {HDR GOOD ROW("2,5,train,ml,8,40,,1000"), FS_EDATA, ":3: expected 9 columns as in the header"},
    {HDR ROW("2,5,train,ml,8,40,,1000,h100-sxm,x"), FS_EDATA, ":2: expected 9 columns"},
    {HDR ROW("1x,0,train,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column id: expected an integer, got \"1x\""},
    {HDR ROW("99999999999999999999,0,train,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column id: expected an integer"},
    {HDR GOOD ROW("2,abc,train,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":3: column submit_s: expected a finite number, got \"abc\""},
    {HDR ROW("2,nan,train,ml,8,40,,1000,h100-sxm"), FS_EDATA, ":2: column submit_s: expected"},
    {HDR ROW("2, 5,train,ml,8,40,,1000,h100-sxm"), FS_EDATA, ":2: column submit_s: expected"},
    {HDR ROW("2,,train,ml,8,40,,1000,h100-sxm"), FS_EDATA, ":2: column submit_s: expected"},
    {HDR ROW("2,-1,train,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column submit_s: must be >= 0, got -1"},
    {HDR ROW("2,1e13,train,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column submit_s: 1e13 is too large"},
    {HDR ROW("2,0,training,ml,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column kind: unknown kind \"training\" (valid: train, finetune, infer, batch)"},
    {HDR ROW("2,0,train,,8,40,,1000,h100-sxm"), FS_EDATA, ":2: column team: empty team name"},
    {HDR ROW("2,0,train,abcdefghijklmnopqrstuvwxyz012345,8,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column team: team name \"abcdefghijklmnopqrstuvwxyz012345...\" is longer than 31"},
    {HDR ROW("2,0,train,ml,0,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column gpus: must be 1..100000, got 0"},
    {HDR ROW("2,0,train,ml,100001,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column gpus: must be 1..100000, got 100001"},
    {HDR ROW("2,0,train,ml,1.5,40,,1000,h100-sxm"), FS_EDATA,
     ":2: column gpus: expected an integer, got \"1.5\""},
    {HDR ROW("2,0,train,ml,1,-3,,1000,h100-sxm"), FS_EDATA,
     ":2: column gpu_mem_gb: must be >= 0, got -3"},
    {HDR ROW("2,0,train,ml,1,0,,0,h100-sxm"), FS_EDATA, ":2: column work_gpu_s: must be > 0"},
    {HDR ROW("2,0,train,ml,1,0,,inf,h100-sxm"), FS_EDATA, ":2: column work_gpu_s: expected"},
    {HDR ROW("2,0,train,ml,1,0,,1e999,h100-sxm"), FS_EDATA, ":2: column work_gpu_s: expected"},
    {HDR ROW("2,0,train,ml,1,0,h100sxm,1,h100-sxm"), FS_EDATA,
     ":2: column allowed_types: unknown GPU type \"h100sxm\"; did you mean \"h100-sxm\"?"},
    {HDR ROW("2,0,train,ml,1,0,h100-sxm||rtx4090,1,h100-sxm"), FS_EDATA,
     ":2: column allowed_types: empty GPU type name"},
    {HDR ROW("2,0,train,ml,1,0,,1,zzz"), FS_EDATA,
     ":2: column ref_type: unknown GPU type \"zzz\""},
    {HDR ROW("2,0,train,ml,1,0,,1,"), FS_EDATA, ":2: column ref_type: empty GPU type name"},
    {HDR ROW("5,0,train,ml,1,0,,1,h100-sxm") "# c\n" ROW("17,0,train,ml,1,0,,1,h100-sxm")
         ROW("17,9,train,ml,1,0,,1,h100-sxm"),
     FS_EDATA, ":5: duplicate job id 17 (first on line 4)"},
    {HDR ROW("5,0,train,ml,1,0,,1,h100-sxm") ROW("17,0,train,ml,1,0,,1,h100-sxm")
         ROW("3,0,train,ml,1,0,,1,h100-sxm") ROW("17,0,train,ml,1,0,,1,h100-sxm")
             ROW("3,0,train,ml,1,0,,1,h100-sxm") ROW("5,0,train,ml,1,0,,1,h100-sxm"),
     FS_EDATA, ":5: duplicate job id 17 (first on line 3)"},
    {HDR "\r\n# x\r\n" GOOD "2,0,train,ml,8,40,,-1,h100-sxm\r\n", FS_EDATA,
     ":5: column work_gpu_s: must be > 0"},
};

static void expect_msg(int rc, int code, const struct fs_err *e, const char *msg)
{
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->msg, msg));
    if (rc != code || !strstr(e->msg, msg))
        printf("\n  want %d \"%s\"\n  got  %d \"%s\"\n", code, msg, rc, e->msg);
}

static void test_bad_files(void)
{
    for (size_t i = 0; i < FS_ARRAY_LEN(bad_cases); i++) {
        struct workload w;
        struct fs_err e = {0};
        workload_init(&w);
        expect_msg(read_text(bad_cases[i].text, &w, &e), bad_cases[i].code, &e,
                   bad_cases[i].msg);
        CU_ASSERT_EQUAL(w.n, 0);
        workload_free(&w);
    }
}

static void test_bad_bytes(void)
{
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    /* A line over 64 KiB, after a good one. */
    size_t long_len = 70000;
    char *text = malloc(sizeof HDR GOOD + long_len + 1);
    strcpy(text, HDR GOOD);
    memset(text + strlen(text), 'x', long_len);
    text[sizeof HDR GOOD - 1 + long_len] = '\0';
    expect_msg(read_text(text, &w, &e), FS_EDATA, &e, ":3: line longer than 65536 bytes");
    free(text);
    /* A NUL byte in line 3 (tu_tmpfile stops at a NUL, so write it here). */
    static const char nul[] = HDR GOOD "2,0,train,m\0l,1,0,,1,h100-sxm\n";
    const char *path = tu_tmpfile(".csv", "");
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(nul, 1, sizeof nul - 1, f);
    fclose(f);
    expect_msg(workload_read_native(path, &wl_cat, &w, &e), FS_EDATA, &e, ":3: NUL byte in line");
    unlink(path);
    expect_msg(workload_read_native("/nonexistent/jobs.csv", &wl_cat, &w, &e), FS_ENOINPUT, &e,
               "/nonexistent/jobs.csv: cannot open: No such file or directory");
    expect_msg(workload_read_native("/tmp", &wl_cat, &w, &e), FS_ENOINPUT, &e,
               "/tmp: cannot open: Is a directory");
    CU_ASSERT_EQUAL(w.n, 0);
    workload_free(&w);
}

/* A failed read leaves the workload as it was, team table included; ids are
 * unique across what was there and what is read. */
static void test_read_appends(void)
{
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_text(HDR ROW("3,5,train,old,1,0,,1,h100-sxm"), &w, &e), 0);
    expect_msg(read_text(HDR ROW("4,0,train,new1,1,0,,1,h100-sxm")
                             ROW("5,0,train,new2,1,0,,1,nope"), &w, &e),
               FS_EDATA, &e, ":3: column ref_type:");
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_EQUAL(w.nteams, 1);
    CU_ASSERT_EQUAL(workload_team(&w, "old"), 0);
    CU_ASSERT_EQUAL(workload_team(&w, "new2"), 1);
    expect_msg(read_text(HDR ROW("3,0,train,x,1,0,,1,h100-sxm"), &w, &e), FS_EDATA, &e,
               ":2: duplicate job id 3 (already in the workload)");
    CU_ASSERT_EQUAL(read_text(HDR ROW("1,9,train,x,1,0,,1,h100-sxm"), &w, &e), 0);
    CU_ASSERT(w.n == 2 && w.jobs[0].id == 3 && w.jobs[1].id == 1); /* sorted by submit */
    workload_free(&w);
    /* Ids w repeats itself are not the file's fault; the file's are. */
    struct gen_spec s = {.jobs = 10, .arrivals_per_hour = 60, .duration_median_s = 60,
                         .ncounts = 1, .gpu_counts = {1}, .gpu_weights = {1},
                         .kind_weights = {1}, .nteams = 1, .team_names = {"g"},
                         .team_weights = {1}};
    workload_generate(&s, 1, &w);
    workload_generate(&s, 2, &w);
    CU_ASSERT_EQUAL(read_text(HDR ROW("11,0,train,x,1,0,,1,h100-sxm"), &w, &e), 0);
    expect_msg(read_text(HDR ROW("12,0,train,x,1,0,,1,h100-sxm") "#\n"
                             ROW("7,0,train,x,1,0,,1,h100-sxm"), &w, &e),
               FS_EDATA, &e, ":4: duplicate job id 7 (already in the workload)");
    CU_ASSERT_EQUAL(w.n, 21);
    workload_free(&w);
}

/* ---- the job list ------------------------------------------------------- */

static void test_add_resets(void)
{
    struct workload w;
    workload_init(&w);
    int32_t *gang = malloc(2 * sizeof *gang);
    struct job j = {.id = 1, .state = JOB_RUNNING, .type = 2, .node = 5, .nnodes = 2,
                    .gang = gang, .start = 10, .end = 20, .gpus = 16, .work = 3};
    struct job *c = workload_add(&w, &j);
    CU_ASSERT(c == &w.jobs[0] && c->id == 1 && c->gpus == 16 && c->work == 3);
    CU_ASSERT(c->state == JOB_FUTURE && c->type == -1 && c->node == -1 && c->nnodes == 0);
    CU_ASSERT(c->gang == NULL && c->start == -1 && c->end == -1);
    CU_ASSERT(j.gang == gang && j.type == 2); /* the original is untouched */
    free(gang);
    /* workload_free frees the gangs the scheduler hangs on jobs (LSan checks). */
    c->gang = malloc(2 * sizeof *c->gang);
    c->nnodes = 2;
    workload_free(&w);
    CU_ASSERT(w.n == 0 && w.jobs == NULL && w.nteams == 0);
    workload_free(&w); /* twice is harmless */
    workload_free(NULL);
}

static void test_sort(void)
{
    struct workload w;
    workload_init(&w);
    static const int64_t keys[][2] = {{5, 2}, {5, 1}, {3, 9}, {5, 1}, {0, 100}};
    for (int i = 0; i < 5; i++)
        workload_add(&w, &(struct job){.submit = keys[i][0], .id = keys[i][1], .gpus = i});
    workload_sort(&w);
    static const int order[] = {4, 2, 1, 3, 0}; /* ties keep insertion order */
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(w.jobs[i].gpus, order[i]);
    workload_free(&w);

    /* Many ties: equal (submit, id) must keep insertion order (gpus). */
    srand(7);
    for (int i = 0; i < 20000; i++)
        workload_add(&w, &(struct job){.submit = rand() % 10, .id = rand() % 10, .gpus = i});
    workload_sort(&w);
    size_t bad = 0;
    for (size_t i = 1; i < w.n; i++) {
        const struct job *a = &w.jobs[i - 1], *b = &w.jobs[i];
        bad += a->submit > b->submit || (a->submit == b->submit && a->id > b->id) ||
               (a->submit == b->submit && a->id == b->id && a->gpus > b->gpus);
    }
    CU_ASSERT_EQUAL(w.n, 20000);
    CU_ASSERT_EQUAL(bad, 0);
    workload_free(&w);
}

static void test_teams(void)
{
    struct workload w;
    workload_init(&w);
    char name[32];
    int wrong = 0;
    for (int i = 0; i < 70000; i++) {
        snprintf(name, sizeof name, "team-%05d", i);
        wrong += workload_team(&w, name) != (i < WORKLOAD_MAX_TEAMS ? i : -1);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(w.nteams, WORKLOAD_MAX_TEAMS);
    CU_ASSERT_EQUAL(workload_team(&w, "team-00000"), 0);   /* found even when full */
    CU_ASSERT_EQUAL(workload_team(&w, "team-65534"), 65534);
    CU_ASSERT_EQUAL(workload_team(&w, "team-65535"), -1);
    CU_ASSERT_STRING_EQUAL(w.teams[123], "team-00123");
    workload_free(&w);
}

#define SPEC_HEADER "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type," \
                    "model_params_b,tokens,method\n"

/* The optional model-spec columns: read, written back only when some job
 * has a spec, and read again unchanged; bad values name line and column. */
static void test_spec_columns(void)
{
    struct workload w, back;
    struct fs_err e = {0};
    char text[1024];
    workload_init(&w);
    workload_init(&back);
    CU_ASSERT_EQUAL_FATAL(read_text(SPEC_HEADER "1,0,train,t,8,0,,,h100-sxm,7,1e9,train\n"
                                    "2,5,infer,t,1,0,,60,h100-sxm,,,\n"
                                    "3,9,finetune,t,1,0,,30,h100-sxm,13.5,,lora\n", &w, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 3);
    const struct job_spec *s0 = workload_spec(&w, &w.jobs[0]), *s2 = workload_spec(&w, &w.jobs[2]);
    CU_ASSERT_FATAL(s0 && s2);
    CU_ASSERT_DOUBLE_EQUAL(s0->params_b, 7, 0);
    CU_ASSERT_DOUBLE_EQUAL(s0->tokens, 1e9, 0);
    CU_ASSERT_EQUAL(s0->method, JOB_METHOD_TRAIN);
    CU_ASSERT_DOUBLE_EQUAL(w.jobs[0].work, 0, 0); /* derived later from the tokens */
    CU_ASSERT_PTR_NULL(workload_spec(&w, &w.jobs[1]));
    CU_ASSERT_EQUAL(s2->method, JOB_METHOD_LORA);
    CU_ASSERT_EQUAL(write_and_read(&wl_cat, &w, &back, text, sizeof text), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",model_params_b,tokens,method\n"));
    CU_ASSERT_EQUAL(count_diffs(&w, &back), 0);
    workload_free(&back);
    workload_free(&w);

    static const struct {
        const char *row, *msg;
    } bad[] = {
        {"1,0,train,t,1,0,,,h100-sxm,,,\n", ":2: column work_gpu_s: expected a finite number"},
        {"1,0,train,t,1,0,,,h100-sxm,7,,train\n", ":2: column work_gpu_s: expected a finite number"},
        {"1,0,train,t,1,0,,10,h100-sxm,-7,,train\n", ":2: column model_params_b: must be in (0, 100000]"},
        {"1,0,train,t,1,0,,10,h100-sxm,7,0,train\n", ":2: column tokens: must be > 0"},
        {"1,0,train,t,1,0,,10,h100-sxm,7,,pretrain\n", ":2: column method: unknown method \"pretrain\""},
        {"1,0,train,t,1,0,,10,h100-sxm,7,5\n", ":2: expected 12 columns"},
    };
    for (size_t k = 0; k < FS_ARRAY_LEN(bad); k++) {
        char csv[512];
        snprintf(csv, sizeof csv, "%s%s", SPEC_HEADER, bad[k].row);
        workload_init(&w);
        CU_ASSERT_EQUAL(read_text(csv, &w, &e), FS_EDATA);
        if (!strstr(e.msg, bad[k].msg))
            printf("\n    got:  %s\n    want: %s", e.msg, bad[k].msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[k].msg));
        workload_free(&w);
    }
}

#define SHARE_HEADER "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type," \
                     "gpu_milli,cpu_milli,mem_mib\n"

/* The optional sharing columns: GPU shares, CPU-only jobs, host resources;
 * either group order; round trip; bad values. */
static void test_share_columns(void)
{
    struct workload w, back;
    struct fs_err e = {0};
    char text[1024];
    workload_init(&w);
    workload_init(&back);
    CU_ASSERT_EQUAL_FATAL(read_text(SHARE_HEADER "1,0,batch,t,1,0,,60,h100-sxm,460,6000,12288\n"
                                    "2,1,batch,t,0,0,,30,h100-sxm,,2000,4096\n"
                                    "3,2,train,t,8,0,,90,h100-sxm,,,\n", &w, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 3);
    CU_ASSERT_EQUAL(w.jobs[0].milli, 460);
    CU_ASSERT_EQUAL(w.jobs[0].cpu_milli, 6000);
    CU_ASSERT_EQUAL(w.jobs[0].mem_mib, 12288);
    CU_ASSERT_EQUAL(w.jobs[1].gpus, 0);
    CU_ASSERT_EQUAL(w.jobs[2].milli, GPU_MILLI);
    CU_ASSERT_EQUAL(write_and_read(&wl_cat, &w, &back, text, sizeof text), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",gpu_milli,cpu_milli,mem_mib\n"));
    CU_ASSERT_EQUAL(count_diffs(&w, &back), 0);
    CU_ASSERT(back.jobs[0].milli == 460 && back.jobs[1].cpu_milli == 2000);
    workload_free(&back);
    workload_free(&w);

    /* Both groups, sharing first. */
    workload_init(&w);
    CU_ASSERT_EQUAL(read_text("id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type,"
                              "gpu_milli,cpu_milli,mem_mib,model_params_b,tokens,method\n"
                              "1,0,infer,t,1,0,,60,h100-sxm,250,1000,0,7,,infer\n", &w, &e), 0);
    CU_ASSERT(w.n == 1 && w.jobs[0].milli == 250 && workload_spec(&w, &w.jobs[0])->params_b == 7);
    workload_free(&w);

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {SHARE_HEADER "1,0,batch,t,1,0,,60,h100-sxm,0,,\n", ":2: column gpu_milli: out of range"},
        {SHARE_HEADER "1,0,batch,t,2,0,,60,h100-sxm,500,,\n", ":2: column gpu_milli: a share below 1000 needs exactly 1 GPU"},
        {SHARE_HEADER "1,0,batch,t,1,0,,60,h100-sxm,,-5,\n", ":2: column cpu_milli: out of range: -5"},
        {"id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
         "1,0,batch,t,0,0,,60,h100-sxm\n", ":2: column gpus: must be 1.."},
        {"id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type,gpu_milli,cpu_milli,mem_mib,"
         "gpu_milli,cpu_milli,mem_mib\n1,0,batch,t,1,0,,60,h100-sxm,1,1,1,1,1,1\n", ":1: bad header"},
    };
    for (size_t k = 0; k < FS_ARRAY_LEN(bad); k++) {
        workload_init(&w);
        CU_ASSERT_EQUAL(read_text(bad[k].text, &w, &e), FS_EDATA);
        if (!strstr(e.msg, bad[k].msg))
            printf("\n    got:  %s\n    want: %s", e.msg, bad[k].msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[k].msg));
        workload_free(&w);
    }
}

static CU_TestInfo list_tests[] = {
    {"add resets placement, free frees gangs", test_add_resets},
    {"sort by (submit, id), stable", test_sort},
    {"team interning, 65535 at most", test_teams},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo csv_tests[] = {
    {"read fields, CRLF, comments, BOM", test_read_fields},
    {"read, write, read round-trips exactly", test_round_trip},
    {"model-spec columns", test_spec_columns},
    {"sharing columns", test_share_columns},
    {"write errors", test_write_errors},
    {"bad files: code and FILE:LINE message", test_bad_files},
    {"long line, NUL byte, cannot open/read", test_bad_bytes},
    {"append, rollback, duplicates vs existing", test_read_appends},
    CU_TEST_INFO_NULL,
};


int main(void)
{
    CU_SuiteInfo suites[] = {
        {"workload", wl_setup, NULL, NULL, NULL, list_tests},
        {"native csv", wl_setup, NULL, NULL, NULL, csv_tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_workload", suites);
}
