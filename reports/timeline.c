/* timeline.c - timeline.json: job slices per GPU and fleet counters,
 * streamed as a Chrome trace.  The format and the size rule are in
 * timeline.h. */
#include "timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The lanes of one slot (a GPU or a node's CPU): bit k set while a sharing
 * or CPU-only job holds lane k.  Whole-GPU jobs always take lane 0 without
 * marking it: nothing else runs on their GPUs meanwhile. */
struct lanes {
    uint64_t *bits;
    uint32_t nwords;
    uint32_t named;          /* lanes 0..named-1 have had a thread_name */
};

/* A counter track.  Values are quantized (x 10^digits) so that equal
 * values compare equal and print the same on every run. */
struct counter {
    const char *name, *unit;
    int digits;
    int64_t cur;             /* the value at the end of instant `seen` */
    int64_t last;            /* the last value written */
    fs_time last_t;          /* when it was written; -1: never */
};

enum { CTR_POWER, CTR_PSU, CTR_QUEUE, CTR_COUNT };

struct timeline {
    const struct sim *s;
    FILE *f;
    const struct energy *en;
    int64_t limit, written, dropped;
    fs_time cut;             /* when the limit was reached; -1: not yet */
    bool evicting;           /* the slice being written ends in an eviction */
    fs_time gap, seen;
    int32_t fleet_pid;
    int64_t tid_base, stride;
    int64_t ngpus;
    struct lanes *lanes;     /* stride slots: every GPU, then every node's CPU */
    bool *node_named;
    int32_t *lane;           /* per job: its lane while it runs; made at the
                                first job that shares a GPU or runs on a CPU
                                (the others are always on lane 0) */
    double *psu;             /* max-tree over node PSU loads; leaves at npsu */
    size_t npsu;
    struct counter ctr[CTR_COUNT];
    bool first;              /* nothing written into traceEvents yet */
    char *line;              /* a job's complete events, built at line + HEAD */
    size_t line_cap;
};

/* Room before the part of a complete event that all of a job's GPUs share,
 * for the part that differs (slice). */
enum { HEAD = 64 };

/* s as a JSON string at p (room for 6 * strlen(s) + 2): quote, backslash
 * and control characters escaped.  RET: the end of what was written. */
static char *str_json(char *p, const char *s)
{
    *p++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p += sprintf(p, "\\u%04x", c);
        } else {
            *p++ = (char)c;
        }
    }
    *p++ = '"';
    return p;
}

static void put_string(FILE *f, const char *s)
{
    char *buf = xmalloc(6 * strlen(s) + 2);
    fwrite(buf, 1, (size_t)(str_json(buf, s) - buf), f);
    free(buf);
}

/* q / 10^digits with exactly that many decimals. */
static void put_fixed(FILE *f, int64_t q, int digits)
{
    int64_t div = 1;
    for (int k = 0; k < digits; k++)
        div *= 10;
    if (digits == 0) {
        fprintf(f, "%lld", (long long)q);
        return;
    }
    fprintf(f, "%s%lld.%0*lld", q < 0 ? "-" : "", (long long)(llabs(q) / div), digits,
            (long long)(llabs(q) % div));
}

/* Start the next element of traceEvents. */
/* Append v in decimal at p (fs_put appends a string).  RET: the end of
 * what was appended. */
static char *num(char *p, long long v)
{
    return p + fs_int_str(p, v);
}

static void sep(struct timeline *t)
{
    fputs(t->first ? "\n" : ",\n", t->f);
    t->first = false;
}

/* Room for need more events?  Past the limit (one slot kept for the
 * marker) the timeline is cut: the marker is written once, and this and
 * every later event is dropped. */
static bool reserve(struct timeline *t, int64_t need)
{
    if (t->cut < 0 && t->written + need > t->limit - 1) {
        t->cut = t->s->now;
        sep(t);
        fprintf(t->f, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,"
                "\"name\":\"timeline truncated: event limit %lld reached\"}",
                t->fleet_pid, t->fleet_pid, (long long)t->cut, (long long)t->limit);
        t->written++;
    }
    if (t->cut >= 0) {
        t->dropped += need;
        return false;
    }
    t->written += need;
    return true;
}

static int64_t tid_of(const struct timeline *t, int64_t slot, int32_t lane)
{
    return t->tid_base + slot + lane * t->stride;
}

/* Lowest free lane of l, marked busy. */
static int32_t lane_take(struct lanes *l)
{
    for (uint32_t w = 0;; w++) {
        if (w == l->nwords) {
            /* One word at a time: most slots never need a second lane. */
            l->bits = xrealloc(l->bits, ((size_t)w + 1) * sizeof *l->bits);
            l->bits[w] = 0;
            l->nwords = w + 1;
        }
        if (~l->bits[w]) {
            int b = __builtin_ctzll(~l->bits[w]);
            l->bits[w] |= 1ULL << b;
            return (int32_t)(w * 64 + (uint32_t)b);
        }
    }
}

static void lane_give(struct lanes *l, int32_t k)
{
    l->bits[k / 64] &= ~(1ULL << (k % 64));
}

/* Slot of job j's single GPU (sharing) or node CPU (gpus 0); -1 when it
 * takes whole GPUs. */
static int64_t laned_slot(const struct timeline *t, const struct job *j)
{
    if (j->gpus == 0)
        return t->ngpus + j->node;
    if (j->milli < GPU_MILLI)
        return t->s->cl->nodes[j->node].gpu0 + __builtin_ctzll(j->gpu_mask);
    return -1;
}

/* Name slot's lanes up to lane (node n's slot, GPU i or the CPU when i < 0). */
static void name_lanes(struct timeline *t, int32_t n, int64_t slot, int i, int32_t lane)
{
    struct lanes *l = &t->lanes[slot];
    for (; (int64_t)l->named <= lane; l->named++) {
        sep(t);
        fprintf(t->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%lld,\"name\":\"thread_name\",\"args\":{\"name\":\"",
                n + 1, (long long)tid_of(t, slot, (int32_t)l->named));
        if (i >= 0)
            fprintf(t->f, "GPU %d", i);
        else
            fputs("CPU", t->f);
        if (l->named > 0)
            fprintf(t->f, " (%u)", l->named + 1);
        fputs("\"}}", t->f);
    }
}

/* One complete event on node n's GPU i (CPU when i < 0), ending with the
 * tail job_slices built. */
static void slice(struct timeline *t, int32_t n, int i, int32_t lane, size_t tail)
{
    const struct sim *s = t->s;
    const struct node *nd = &s->cl->nodes[n];
    int64_t slot = i >= 0 ? nd->gpu0 + i : t->ngpus + n;
    int64_t unnamed = (int64_t)lane + 1 - t->lanes[slot].named;
    if (!reserve(t, 1 + !t->node_named[n] + (unnamed > 0 ? unnamed : 0)))
        return;
    if (!t->node_named[n]) {
        t->node_named[n] = true;
        sep(t);
        fprintf(t->f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"node %d (%s)\"}}",
                n + 1, n, s->sc->cat->types[nd->type].name);
    }
    name_lanes(t, n, slot, i, lane);
    char head[HEAD], *p = fs_put(head, t->first ? "\n" : ",\n");
    t->first = false;
    p = fs_put(p, "{\"ph\":\"X\",\"pid\":");
    p = num(p, n + 1);
    p = fs_put(p, ",\"tid\":");
    p = num(p, tid_of(t, slot, lane));
    size_t h = (size_t)(p - head);
    memcpy(t->line + HEAD - h, head, h);
    fwrite(t->line + HEAD - h, 1, h + tail, t->f);
}

/* The part of job j's complete events after their thread id, run from
 * its start to end, in t->line after HEAD.  RET: its length. */
static size_t job_tail(struct timeline *t, const struct job *j, fs_time end)
{
    const char *kind = job_kind_name((enum job_kind)j->kind), *team = t->s->sc->wl.teams[j->team];
    xgrow(&t->line, &t->line_cap, HEAD + 320 + 2 * strlen(kind) + 6 * strlen(team), 1);
    char *p = t->line + HEAD;
    p = fs_put(p, ",\"ts\":");
    p = num(p, j->seg);
    p = fs_put(p, ",\"dur\":");
    p = num(p, end - j->seg);
    p = fs_put(p, ",\"name\":\"job ");
    p = num(p, j->id);
    p = fs_put(p, "\",\"cat\":\"");
    p = fs_put(p, kind);
    p = fs_put(p, "\",\"args\":{\"job\":");
    p = num(p, j->id);
    p = fs_put(p, ",\"team\":");
    p = str_json(p, team);
    p = fs_put(p, ",\"kind\":\"");
    p = fs_put(p, kind);
    p = fs_put(p, "\",\"gpus\":");
    p = num(p, j->gpus);
    p = fs_put(p, ",\"milli\":");
    p = num(p, j->milli);
    p = fs_put(p, end == j->end ? "}}" : t->evicting ? ",\"evicted\":true}}" : ",\"unfinished\":true}}");
    return (size_t)(p - (t->line + HEAD));
}

/* Every complete event of job j, run from its start to end: one per GPU
 * (a million-job timeline writes a line for every GPU of every job), all
 * the same after their thread id, which is built once, without printf.
 * Past the limit they are only counted. */
static void job_slices(struct timeline *t, const struct job *j, fs_time end)
{
    const struct cluster *cl = t->s->cl;
    size_t tail = t->cut < 0 ? job_tail(t, j, end) : 0;
    int32_t lane = t->lane ? t->lane[j - t->s->jobs] : 0;
    if (j->nnodes > 1) {
        for (int32_t k = 0; k < j->nnodes; k++)
            for (int i = 0; i < cl->nodes[j->gang[k]].gpus; i++)
                slice(t, j->gang[k], i, 0, tail);
    } else if (j->gpus == 0) {
        slice(t, j->node, -1, lane, tail);
    } else {
        for (uint64_t m = j->gpu_mask; m; m &= m - 1)
            slice(t, j->node, __builtin_ctzll(m), lane, tail);
    }
}

static void psu_update(struct timeline *t, int32_t n)
{
    size_t k = t->npsu + (size_t)n;
    t->psu[k] = t->en->psu[n].load;
    for (k /= 2; k >= 1; k /= 2) {
        double v = fmax(t->psu[2 * k], t->psu[2 * k + 1]);
        if (v == t->psu[k])
            break; /* the maxima above stand */
        t->psu[k] = v;
    }
}

static void psu_job(struct timeline *t, const struct job *j)
{
    if (!t->en)
        return;
    if (j->nnodes > 1)
        for (int32_t k = 0; k < j->nnodes; k++)
            psu_update(t, j->gang[k]);
    else
        psu_update(t, j->node);
}

static void read_counters(struct timeline *t)
{
    t->ctr[CTR_QUEUE].cur = (int64_t)t->s->nqueued;
    if (t->en) {
        t->ctr[CTR_POWER].cur = llround(t->en->gpu_w * 10);
        t->ctr[CTR_PSU].cur = llround(t->psu[1] * 10000);
    }
}

static void put_counter(struct timeline *t, struct counter *c, fs_time at)
{
    c->last = c->cur;
    c->last_t = at;
    if (!reserve(t, 1))
        return;
    sep(t);
    fprintf(t->f, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"%s\",\"args\":{\"%s\":",
            t->fleet_pid, t->fleet_pid, (long long)at, c->name, c->unit);
    put_fixed(t->f, c->cur, c->digits);
    fputs("}}", t->f);
}

/* The counters held their values from `seen` until `to`: write each that
 * differs from its last sample, as soon after `seen` as its gap allows. */
static void advance(struct timeline *t, fs_time to)
{
    for (int k = t->en ? 0 : CTR_QUEUE; k < CTR_COUNT; k++) {
        struct counter *c = &t->ctr[k];
        if (c->last_t >= 0 && c->cur == c->last)
            continue;
        fs_time at = c->last_t < 0 ? t->seen : c->last_t + t->gap;
        if (at < t->seen)
            at = t->seen;
        if (at < to)
            put_counter(t, c, at);
    }
}

static void finish(struct timeline *t)
{
    const struct sim *s = t->s;
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].state == JOB_RUNNING)
            job_slices(t, &s->jobs[i], s->now);
    read_counters(t);
    for (int k = t->en ? 0 : CTR_QUEUE; k < CTR_COUNT; k++)
        if (t->ctr[k].last_t < s->now || t->ctr[k].last_t < 0)
            put_counter(t, &t->ctr[k], s->now);
    fprintf(t->f, "\n],\n\"otherData\": {\"generator\": \"fleetsim\", \"scenario\": ");
    put_string(t->f, s->sc->name);
    fprintf(t->f, ", \"events\": %lld, \"dropped\": %lld, \"event_limit\": %lld, \"counter_gap_us\": %lld, "
            "\"truncated_at_us\": ", (long long)t->written, (long long)t->dropped, (long long)t->limit,
            (long long)t->gap);
    if (t->cut < 0) {
        fputs("null}}\n", t->f);
        return;
    }
    char cut[FS_SECONDS_LEN];
    fs_seconds_str(cut, t->cut);
    fprintf(t->f, "%lld, \"note\": \"event limit %lld reached at %s s: later events were dropped; "
            "summary.json and timeseries.csv cover the whole run\"}}\n", (long long)t->cut,
            (long long)t->limit, cut);
}

static void notify(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    struct timeline *t = ctx;
    if (s->now > t->seen) {
        advance(t, s->now);
        t->seen = s->now;
    }
    switch (note) {
    case SIM_SUBMIT:
    case SIM_WITHDRAW:
    case SIM_NODE:
        break;
    case SIM_START: {
        int64_t slot = laned_slot(t, j);
        if (slot >= 0) {
            if (!t->lane)
                t->lane = xcalloc(s->njobs + 1, sizeof *t->lane);
            t->lane[j - s->jobs] = lane_take(&t->lanes[slot]);
        }
        psu_job(t, j);
        break;
    }
    case SIM_FINISH:
    case SIM_EVICT: {
        t->evicting = note == SIM_EVICT;
        job_slices(t, j, note == SIM_EVICT ? s->now : j->end);
        t->evicting = false;
        int64_t slot = laned_slot(t, j);
        if (slot >= 0)
            lane_give(&t->lanes[slot], t->lane[j - s->jobs]);
        psu_job(t, j);
        break;
    }
    case SIM_END:
        finish(t);
        return;
    }
    read_counters(t);
}

fs_time timeline_counter_gap(const struct sim *s)
{
    fs_time h = s->sc->horizon, gap = TIMELINE_MIN_GAP;
    if (h != FS_TIME_MAX) {
        fs_time g = (h / TIMELINE_MAX_SAMPLES + FS_USEC - 1) / FS_USEC * FS_USEC;
        if (g > gap)
            gap = g;
    }
    return gap;
}

struct timeline *timeline_new(const struct sim *s, FILE *f, const struct energy *en, int64_t limit)
{
    const struct cluster *cl = s->cl;
    struct timeline *t = xcalloc(1, sizeof *t);
    *t = (struct timeline){
        .s = s, .f = f, .en = en, .limit = limit > 0 ? limit : TIMELINE_DEFAULT_LIMIT, .cut = -1,
        .gap = timeline_counter_gap(s), .fleet_pid = cl->nnodes + 1, .tid_base = (int64_t)cl->nnodes + 2,
        .ngpus = cl->gpus, .stride = cl->gpus + cl->nnodes, .first = true,
        .ctr = {[CTR_POWER] = {"fleet GPU power", "watts", 1, 0, 0, -1},
                [CTR_PSU] = {"highest node PSU load", "percent", 2, 0, 0, -1},
                [CTR_QUEUE] = {"queue length", "jobs", 0, 0, 0, -1}},
    };
    t->lanes = xcalloc((size_t)t->stride, sizeof *t->lanes);
    t->node_named = xcalloc((size_t)cl->nnodes, sizeof *t->node_named);
    if (en) {
        for (t->npsu = 1; t->npsu < (size_t)cl->nnodes; t->npsu *= 2)
            ;
        t->psu = xcalloc(2 * t->npsu, sizeof *t->psu);
        for (int32_t n = 0; n < cl->nnodes; n++)
            psu_update(t, n);
    }
    /* displayTimeUnit first: Perfetto flags it when it comes late. */
    fputs("{\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [", f);
    if (reserve(t, 2)) {
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"fleet\"}}", t->fleet_pid);
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":-1}}",
                t->fleet_pid);
    }
    read_counters(t);
    return t;
}

void timeline_free(struct timeline *t)
{
    if (!t)
        return;
    for (int64_t k = 0; k < t->stride; k++)
        free(t->lanes[k].bits);
    free(t->lanes);
    free(t->node_named);
    free(t->lane);
    free(t->psu);
    free(t->line);
    free(t);
}

struct sim_observer timeline_observer(struct timeline *t)
{
    return (struct sim_observer){.ctx = t, .notify = notify};
}
