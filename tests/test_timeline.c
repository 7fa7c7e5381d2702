/* test_timeline.c - timeline.json: event shapes, one slice per job per GPU
 * with the job's run time, named tracks, no overlap on a track, the counter
 * size rule, the event limit, and byte-identical reruns. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/metrics.h"
#include "../reports/timeline.h"
#include "testutil.h"


static const char *header = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type,"
                            "gpu_milli,cpu_milli,mem_mib\n";

/* Two 4-GPU A100 nodes: a gang over both (1), two jobs sharing one GPU (2,
 * 3), a team name that needs escaping (4), two concurrent CPU-only jobs (5,
 * 6), and a job the 20000 s horizon cuts (7).  Jobs 2-4 queue behind 1. */
static const char *hand_csv =
    "1,0,train,alpha,8,0,,8000,a100-sxm-80,,,\n"
    "2,10,infer,beta,1,0,,300,a100-sxm-80,500,,\n"
    "3,10,infer,beta,1,0,,600,a100-sxm-80,500,,\n"
    "4,20,finetune,q\"t\\x,2,0,,400,a100-sxm-80,,,\n"
    "5,30,batch,alpha,0,0,,100,a100-sxm-80,,,\n"
    "6,30,batch,alpha,0,0,,50,a100-sxm-80,,,\n"
    "7,40,train,alpha,2,0,,1e6,a100-sxm-80,,,\n";

/* One 4-GPU node, no horizon: A holds it from 10 s; B, C, D (whole node
 * each) arrive at 100, 110, 120 s and run one after another. */
static const char *queue_csv =
    "1,10,train,a,4,0,,4000,a100-sxm-80,,,\n"
    "2,100,train,a,4,0,,400,a100-sxm-80,,,\n"
    "3,110,train,a,4,0,,400,a100-sxm-80,,,\n"
    "4,120,train,a,4,0,,400,a100-sxm-80,,,\n";

#define MIXED \
    "{\"name\": \"mixed\", \"seed\": 7, \"horizon_s\": 200000, \"fleet\": [" \
    "{\"gpu\": \"h100-sxm\", \"nodes\": 3, \"gpus_per_node\": 8}," \
    "{\"gpu\": \"a100-sxm-80\", \"nodes\": 2, \"gpus_per_node\": 4}," \
    "{\"gpu\": \"rtx4090\", \"nodes\": 3, \"gpus_per_node\": 8}]," \
    "\"workload\": {\"generator\": {\"jobs\": 1500, \"arrivals_per_hour\": 30," \
    "\"duration_median_s\": 3600, \"duration_sigma\": 1.2," \
    "\"gpus\": {\"1\": 0.5, \"2\": 0.2, \"4\": 0.2, \"16\": 0.1}," \
    "\"kinds\": {\"train\": 1, \"infer\": 1}, \"teams\": {\"a\": 1, \"b\": 2}," \
    "\"reference_gpu\": \"a100-sxm-80\"}}, \"scheduler\": {\"policy\": \"best-fit\"}}"

/* A scenario JSON over a CSV trace: nodes x 4 A100s, horizon_s (0: none). */
static const char *trace_scenario(const char *csv, int nodes, int horizon_s)
{
    static char text[1024];
    char body[1024], horizon[64] = "";
    snprintf(body, sizeof body, "%s%s", header, csv);
    if (horizon_s)
        snprintf(horizon, sizeof horizon, "\"horizon_s\": %d, ", horizon_s);
    snprintf(text, sizeof text, "{\"name\": \"hand\", %s\"fleet\": [{\"gpu\": \"a100-sxm-80\", \"nodes\": %d, "
             "\"gpus_per_node\": 4}], \"workload\": {\"trace\": \"%s\"}}", horizon, nodes,
             tu_tmpfile(".csv", body));
    return text;
}

/* A finished run: the sim (its jobs), the file's bytes and their parse. */
struct run {
    struct scenario *sc;
    struct run_result r;
    const struct sim *s;
    char *buf;
    size_t len;
    cJSON *doc, *events;
};

static void run_open(struct run *r, const char *json, int64_t limit)
{
    *r = (struct run){.sc = tu_scenario(tu_tmpfile(".json", json), NULL)};
    FILE *f = open_memstream(&r->buf, &r->len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct fs_err err = {0};
    struct run_spec spec = {.sc = r->sc, .timeline = f, .timeline_limit = limit};
    CU_ASSERT_EQUAL_FATAL(run_scenario(&spec, &r->r, &err), 0);
    r->s = r->r.s;
    CU_ASSERT_EQUAL(fclose(f), 0);
    r->doc = cJSON_ParseWithLength(r->buf, r->len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->doc);
    r->events = cJSON_GetObjectItemCaseSensitive(r->doc, "traceEvents");
    CU_ASSERT_FATAL(cJSON_IsArray(r->events));
}

static void run_close(struct run *r)
{
    cJSON_Delete(r->doc);
    free(r->buf);
    run_result_free(&r->r);
    scenario_free(r->sc);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool is(const cJSON *e, const char *ph)
{
    const char *p = str(e, "ph");
    return p && strcmp(p, ph) == 0;
}

/* The name a metadata event gives (pid, tid), or NULL; tid < 0: the
 * process. */
static const char *track_name(const struct run *r, double pid, double tid)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, r->events) {
        if (!is(e, "M") || num(e, "pid") != pid)
            continue;
        const char *what = str(e, "name");
        const char *name = str(cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
        if (tid < 0 && what && strcmp(what, "process_name") == 0)
            return name;
        if (tid >= 0 && what && strcmp(what, "thread_name") == 0 && num(e, "tid") == tid)
            return name;
    }
    return NULL;
}

/* Every event has the documented shape; every slice's process and thread
 * are named, nodes as "node N (TYPE)"; a thread id belongs to one process;
 * otherData counts the events. */
static void check_shapes(const struct run *r)
{
    const cJSON *e, *other = cJSON_GetObjectItemCaseSensitive(r->doc, "otherData");
    CU_ASSERT_STRING_EQUAL(str(r->doc, "displayTimeUnit"), "ms");
    CU_ASSERT(cJSON_IsObject(other));
    CU_ASSERT_EQUAL(num(other, "events"), cJSON_GetArraySize(r->events));
    int bad = 0, unnamed = 0, slices = 0;
    cJSON_ArrayForEach(e, r->events) {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        bad += !str(e, "ph") || isnan(num(e, "pid")) || num(e, "pid") < 1;
        if (is(e, "X")) {
            slices++;
            bad += isnan(num(e, "ts")) || !(num(e, "dur") >= 0) || isnan(num(e, "tid")) || !str(e, "cat") ||
                   !str(e, "name") || strncmp(str(e, "name"), "job ", 4) != 0 || !cJSON_IsObject(args) ||
                   isnan(num(args, "job")) || !str(args, "team") || !str(args, "kind") ||
                   isnan(num(args, "gpus")) || isnan(num(args, "milli"));
            double pid = num(e, "pid"), tid = num(e, "tid");
            const char *node = track_name(r, pid, -1), *thread = track_name(r, pid, tid);
            unnamed += !node || !thread;
            if (node) {
                const struct node *nd = &r->s->cl->nodes[(int)pid - 1];
                char want[128];
                snprintf(want, sizeof want, "node %d (%s)", (int)pid - 1, r->sc->cat->types[nd->type].name);
                CU_ASSERT_STRING_EQUAL(node, want);
            }
            if (thread)
                bad += strncmp(thread, "GPU ", 4) != 0 && strncmp(thread, "CPU", 3) != 0;
        } else if (is(e, "C")) {
            bad += isnan(num(e, "ts")) || !str(e, "name") || !cJSON_IsObject(args) ||
                   cJSON_GetArraySize(args) != 1 || !cJSON_IsNumber(args->child);
        } else if (is(e, "M")) {
            bad += !str(e, "name") || !cJSON_IsObject(args);
        } else {
            bad += !is(e, "i");
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(unnamed, 0);
    CU_ASSERT(slices > 0);
    /* Thread ids are unique in the file: no tid shows up under two pids. */
    int shared_tid = 0;
    const cJSON *a, *b;
    cJSON_ArrayForEach(a, r->events) {
        if (!is(a, "X"))
            continue;
        for (b = a->next; b; b = b->next)
            shared_tid += is(b, "X") && num(a, "tid") == num(b, "tid") && num(a, "pid") != num(b, "pid");
    }
    CU_ASSERT_EQUAL(shared_tid, 0);
}

/* Started jobs: one slice per GPU held (one for a CPU-only job), each
 * from the job's start for its run time (to the end time when unfinished);
 * slices on one thread never overlap. */
static void check_slices(const struct run *r)
{
    const struct sim *s = r->s;
    int64_t want = 0, got = 0;
    int *per_job = xcalloc(s->njobs, sizeof *per_job);
    int wrong = 0, overlap = 0;
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].start >= 0)
            want += s->jobs[i].gpus ? s->jobs[i].gpus : 1;
    const cJSON *e, *o;
    cJSON_ArrayForEach(e, r->events) {
        if (!is(e, "X"))
            continue;
        got++;
        double id = num(cJSON_GetObjectItemCaseSensitive(e, "args"), "job");
        size_t i = 0;
        while (i < s->njobs && (double)s->jobs[i].id != id)
            i++;
        CU_ASSERT_FATAL(i < s->njobs);
        const struct job *j = &s->jobs[i];
        per_job[i]++;
        fs_time end = j->end >= 0 ? j->end : s->end;
        wrong += num(e, "ts") != (double)j->start || num(e, "dur") != (double)(end - j->start);
        const cJSON *unfinished = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "args"), "unfinished");
        wrong += (cJSON_IsTrue(unfinished) != 0) != (j->end < 0);
        for (o = e->next; o; o = o->next) {
            if (!is(o, "X") || num(o, "tid") != num(e, "tid"))
                continue;
            double a0 = num(e, "ts"), a1 = a0 + num(e, "dur"), b0 = num(o, "ts"), b1 = b0 + num(o, "dur");
            overlap += a0 < b1 && b0 < a1;
        }
    }
    CU_ASSERT_EQUAL(got, want);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(overlap, 0);
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].start >= 0 && per_job[i] != (s->jobs[i].gpus ? s->jobs[i].gpus : 1))
            wrong++;
    CU_ASSERT_EQUAL(wrong, 0);
    free(per_job);
}

/* Each counter's samples are at least one gap apart, but for the closing
 * one at the end time. */
static void check_counters(const struct run *r)
{
    static const char *const names[] = {"fleet GPU power", "highest node PSU load", "queue length"};
    fs_time gap = timeline_counter_gap(r->s);
    for (size_t k = 0; k < FS_ARRAY_LEN(names); k++) {
        double prev = -1, last = -1;
        int n = 0, close = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, r->events) {
            if (!is(e, "C") || strcmp(str(e, "name"), names[k]) != 0)
                continue;
            double ts = num(e, "ts");
            if (prev >= 0 && ts - prev < (double)gap)
                close += ts != (double)r->s->end;
            CU_ASSERT(ts > prev);
            prev = last = ts;
            n++;
        }
        CU_ASSERT(n >= 2);
        CU_ASSERT_EQUAL(close, 0);
        CU_ASSERT_EQUAL(last, (double)r->s->end);
        CU_ASSERT(n <= r->s->end / gap + 2);
    }
}

static void test_hand_scenario(void)
{
    struct run r;
    run_open(&r, trace_scenario(hand_csv, 2, 20000), 0);
    const struct sim *s = r.s;
    CU_ASSERT_EQUAL(s->end, 20000 * FS_USEC);
    CU_ASSERT(s->jobs[0].nnodes == 2);            /* the gang */
    CU_ASSERT(s->jobs[6].start >= 0 && s->jobs[6].end < 0); /* cut by the horizon */
    check_shapes(&r);
    check_slices(&r);
    check_counters(&r);

    /* Jobs 2 and 3 share one GPU at once: two lanes, "GPU i" and
     * "GPU i (2)"; jobs 5 and 6 run CPU-only at once: "CPU", "CPU (2)". */
    const struct job *j2 = &s->jobs[1], *j3 = &s->jobs[2];
    CU_ASSERT(j2->node == j3->node && j2->gpu_mask == j3->gpu_mask);
    CU_ASSERT(j2->start < j3->end && j3->start < j2->end);
    const char *names[7] = {0};
    const cJSON *e;
    cJSON_ArrayForEach(e, r.events) {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (is(e, "X"))
            names[(int)num(args, "job") - 1] = track_name(&r, num(e, "pid"), num(e, "tid"));
        if (is(e, "X") && num(args, "job") == 4)
            CU_ASSERT_STRING_EQUAL(str(args, "team"), "q\"t\\x");
    }
    char want[32];
    snprintf(want, sizeof want, "GPU %d", __builtin_ctzll(j2->gpu_mask));
    CU_ASSERT_STRING_EQUAL(names[1], want);
    strcat(want, " (2)");
    CU_ASSERT_STRING_EQUAL(names[2], want);
    CU_ASSERT_STRING_EQUAL(names[4], "CPU");
    CU_ASSERT_STRING_EQUAL(names[5], "CPU (2)");
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(r.doc, "otherData");
    CU_ASSERT_EQUAL(num(other, "dropped"), 0);
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(other, "truncated_at_us")));
    CU_ASSERT_STRING_EQUAL(str(other, "scenario"), "hand");
    run_close(&r);
}

/* The queue counter, by hand: 0 from the start, 1 at 100 s, 2 and 3 held
 * back by the 60 s gap and written as 3 at 160 s, then one less at each
 * finish; the closing sample at the end.  Power starts at idle. */
static void test_counter_rule(void)
{
    struct run r;
    run_open(&r, trace_scenario(queue_csv, 1, 0), 0);
    const struct sim *s = r.s;
    double ta = (double)s->jobs[0].end, tb = (double)s->jobs[1].end, tc = (double)s->jobs[2].end;
    CU_ASSERT(tb - ta >= 60e6 && tc - tb >= 60e6);
    double want[][2] = {{0, 0}, {100e6, 1}, {160e6, 3}, {ta, 2}, {tb, 1}, {tc, 0}, {(double)s->end, 0}};
    double got[16][2];
    int n = 0;
    double power0 = -1, psu_max = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, r.events) {
        if (!is(e, "C"))
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "args")->child;
        if (strcmp(str(e, "name"), "queue length") == 0 && n < 16) {
            got[n][0] = num(e, "ts");
            got[n++][1] = v->valuedouble;
        }
        if (strcmp(str(e, "name"), "fleet GPU power") == 0 && power0 < 0)
            power0 = v->valuedouble;
        if (strcmp(str(e, "name"), "highest node PSU load") == 0)
            psu_max = fmax(psu_max, v->valuedouble);
    }
    CU_ASSERT_EQUAL_FATAL(n, 7);
    for (int k = 0; k < n; k++) {
        CU_ASSERT_EQUAL(got[k][0], want[k][0]);
        CU_ASSERT_EQUAL(got[k][1], want[k][1]);
    }
    const struct gpu_type *t = &r.sc->cat->types[s->cl->nodes[0].type];
    CU_ASSERT_DOUBLE_EQUAL(power0, 4 * t->idle_w, 0.05);
    /* Every change is at least a gap apart, so the highest sample is the
     * node's peak. */
    CU_ASSERT_DOUBLE_EQUAL(psu_max, r.r.m->en.psu[0].peak * 100, 0.005);
    check_counters(&r);
    run_close(&r);
}

/* 1500 jobs on a mixed fleet with gangs: the same checks at scale. */
static void test_mixed_fleet(void)
{
    struct run r;
    run_open(&r, MIXED, 0);
    CU_ASSERT(r.s->ndone > 100);
    check_shapes(&r);
    check_slices(&r);
    check_counters(&r);
    run_close(&r);
}

static void test_deterministic(void)
{
    struct run a, b;
    run_open(&a, MIXED, 0);
    run_open(&b, MIXED, 0);
    CU_ASSERT_EQUAL(a.len, b.len);
    CU_ASSERT(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);
    run_close(&a);
    run_close(&b);
}

/* Past the limit nothing more is written but the marker, and the file is
 * still whole JSON that says what was dropped. */
static void test_event_limit(void)
{
    struct run r;
    run_open(&r, MIXED, 40);
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(r.doc, "otherData"), *e;
    /* Events go in whole groups (a slice with its node's and lane's names,
     * at most a few here), so the cut leaves up to a group's room unused. */
    int n = cJSON_GetArraySize(r.events);
    printf("\n    %d events written under the limit of 40", n);
    CU_ASSERT(n <= 40 && n >= 36);
    CU_ASSERT_EQUAL(num(other, "events"), n);
    CU_ASSERT_EQUAL(num(other, "event_limit"), 40);
    CU_ASSERT(num(other, "dropped") > 1000);
    CU_ASSERT(num(other, "truncated_at_us") > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(str(other, "note"), "event limit 40 reached"));
    int marks = 0;
    cJSON_ArrayForEach(e, r.events)
        marks += is(e, "i") && num(e, "ts") == num(other, "truncated_at_us");
    CU_ASSERT_EQUAL(marks, 1);
    check_shapes(&r);
    run_close(&r);
}

static void test_gap_rule(void)
{
    struct run r;
    run_open(&r, trace_scenario(queue_csv, 1, 0), 0);
    CU_ASSERT_EQUAL(timeline_counter_gap(r.s), 60 * FS_USEC);          /* no horizon */
    r.sc->horizon = 604800 * FS_USEC;             /* a week: 60.48 s */
    CU_ASSERT_EQUAL(timeline_counter_gap(r.s), 61 * FS_USEC);
    r.sc->horizon = 365LL * 86400 * FS_USEC;      /* a year */
    CU_ASSERT_EQUAL(timeline_counter_gap(r.s), 3154 * FS_USEC);
    run_close(&r);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"hand scenario: shapes, slices, lanes", test_hand_scenario},
        {"counter rule by hand", test_counter_rule},
        {"mixed fleet with gangs", test_mixed_fleet},
        {"deterministic bytes", test_deterministic},
        {"event limit", test_event_limit},
        {"counter gap", test_gap_rule},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"timeline", NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_timeline", suites);
}
