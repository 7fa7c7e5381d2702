/* fill.c - fill mode (see fill.h). */
#include "fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/frag.h"
#include "../base/rng.h"
#include "../base/signals.h"

double fill_round2(double x)
{
    return rint(x * 100.0) / 100.0;
}

/* Per-GPU share the authors' stopping test adds (0 for a CPU-only pod). */
static int64_t share_of(const struct job *j)
{
    return j->gpus > 0 ? j->milli : 0;
}

static int64_t demand_of(const struct job *j)
{
    return j->gpus > 0 ? (int64_t)j->gpus * j->milli : 0;
}

/* By id; equal ids keep their list order, which fill_run parks in start
 * (a placement field, reset before a pod arrives). */
static int by_id(const void *pa, const void *pb)
{
    const struct job *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* The arrival order: indices into pool, the shuffled pool then the clones.
 * RET: 0 or FS_EDATA (too many pods). */
static int arrivals(const struct job *pool, size_t n, int64_t capacity, uint64_t seed,
                    size_t **order, size_t *norder, size_t *clones, struct fs_err *err)
{
    gsl_rng *r = rng_stream(seed, RNG_ARRIVALS);
    size_t cap = n, m = n;
    size_t *o = xmalloc(cap * sizeof *o);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        o[i] = i;
        total += demand_of(&pool[i]);
    }
    for (size_t i = n; i-- > 1;) {
        size_t k = gsl_rng_uniform_int(r, i + 1), t = o[i];
        o[i] = o[k];
        o[k] = t;
    }
    double target = FILL_TARGET * (double)capacity;
    int rc = 0;
    for (;;) {
        size_t k = gsl_rng_uniform_int(r, n);
        if ((double)(total + share_of(&pool[k])) > target)
            break;
        if (m >= FILL_MAX_PODS) {
            rc = fs_fail(err, FS_EDATA, "fill: more than %d pods before the demand reaches "
                         "%.0f %% of capacity", FILL_MAX_PODS, FILL_TARGET * 100);
            break;
        }
        total += demand_of(&pool[k]);
        xgrow(&o, &cap, m + 1, sizeof *o);
        o[m++] = k;
    }
    gsl_rng_free(r);
    *order = o;
    *norder = m;
    *clones = m - n;
    return rc;
}

/* Sums of one bin's events. */
struct acc {
    double alloc, frag, ratio;
    long long n;
};

/* The run's running state, sampled after every pod. */
struct sample {
    double alloc, frag, ratio;
};

static struct sample sample_now(const struct cluster *cl, const struct frag_tracker *ft,
                                int64_t capacity)
{
    double gpus = (double)(capacity / GPU_MILLI), frag = frag_tracker_milli(ft);
    struct sample s = {
        .alloc = fill_round2((double)(capacity - cl->free_milli) / gpus / 10),
        .frag = frag / (double)capacity * 100,
        .ratio = cl->free_milli ? frag / (double)cl->free_milli * 100 : 0,
    };
    return s;
}

static void finish_bins(const struct acc *acc, const struct sample *last_before,
                        struct fill_result *out)
{
    for (int x = 0; x <= FILL_MAX_PCT; x++) {
        struct acc a = acc[x];
        if (!a.n) {
            for (int y = x - 1; y <= x + 1; y++) {
                if (y < 0 || y > FILL_MAX_PCT || y == x)
                    continue;
                a.alloc += acc[y].alloc;
                a.frag += acc[y].frag;
                a.ratio += acc[y].ratio;
                a.n += acc[y].n;
            }
        }
        struct fill_bin *b = &out->bin[x];
        if (a.n) {
            *b = (struct fill_bin){a.alloc / (double)a.n, a.frag / (double)a.n,
                                   a.ratio / (double)a.n};
        } else {
            const struct sample *s = &last_before[x];
            *b = (struct fill_bin){s->alloc, s->frag, s->ratio};
        }
        b->allocated_pct = fill_round2(b->allocated_pct);
        b->fragmented_pct = fill_round2(b->fragmented_pct);
        b->frag_ratio_pct = fill_round2(b->frag_ratio_pct);
    }
}

/* Let the pods arrive in order, one by one, each placed now or dropped,
 * and bin the state after each (see fill.h).  jobs has room for norder.
 * RET: false when a signal stopped it (base/signals.h). */
static bool play(struct sched *s, struct frag_tracker *ft, const struct job *pool,
                 const size_t *order, size_t norder, struct job *jobs, struct fill_result *out)
{
    struct cluster *cl = s->cl;
    struct acc acc[FILL_MAX_PCT + 1] = {{0}};
    struct sample last_before[FILL_MAX_PCT + 1];
    struct sample now = sample_now(cl, ft, out->capacity_milli);
    int filled = 0;   /* bins below this have their last_before set */
    double gpus = (double)(out->capacity_milli / GPU_MILLI);
    for (size_t e = 0; e < norder; e++) {
        if (fs_interrupted()) /* a placement can take a millisecond: every pod */
            return false;
        struct job *j = &jobs[e];
        *j = pool[order[e]];
        job_reset_placement(j);
        /* Arrived before it is placed: a dropped pod still counts. */
        out->arrived_milli += demand_of(j);
        int x = (int)rint((double)out->arrived_milli / gpus / 10);
        if (sched_try(s, j)) {
            out->placed++;
            for (int32_t k = 0; k < j->nnodes; k++)
                frag_tracker_update(ft, cl, j->nnodes > 1 ? j->gang[k] : j->node);
        }
        for (; filled <= x && filled <= FILL_MAX_PCT; filled++)
            last_before[filled] = now;
        now = sample_now(cl, ft, out->capacity_milli);
        if (x > FILL_MAX_PCT)
            continue;
        acc[x].alloc += now.alloc;
        acc[x].frag += now.frag;
        acc[x].ratio += now.ratio;
        acc[x].n++;
    }
    for (; filled <= FILL_MAX_PCT; filled++)
        last_before[filled] = now;
    out->pods = norder;
    finish_bins(acc, last_before, out);
    return true;
}

/* A copy of the pod list in pod id order (the authors sort by pod name),
 * stable for equal ids. */
static struct job *sorted_pool(const struct job *pods, size_t n)
{
    struct job *pool = xmalloc(n * sizeof *pool);
    memcpy(pool, pods, n * sizeof *pool);
    for (size_t i = 0; i < n; i++) {
        pool[i].gang = NULL;  /* the caller's, if any */
        pool[i].start = (fs_time)i;
    }
    qsort(pool, n, sizeof *pool, by_id);
    return pool;
}

int fill_run(const struct fill_spec *spec, struct fill_result *out, struct fs_err *err)
{
    memset(out, 0, sizeof *out);
    if (!spec->npods)
        return fs_fail(err, FS_EDATA, "fill: the pod list is empty");
    struct job *pool = sorted_pool(spec->pods, spec->npods);
    struct cluster *cl = cluster_new(spec->cat, spec->fleet, spec->nfleet);
    struct sched s;
    struct frag_target m;
    struct frag_tracker ft;
    struct job *jobs = NULL;
    size_t *order = NULL, norder = 0;
    int64_t gpu_asks = 0;
    int rc = 0;

    sched_init(&s, cl, spec->policy);
    s.pods = true;
    frag_target_build(&m, pool, spec->npods, FRAG_COVERAGE);
    frag_tracker_init(&ft, &m, cl);
    for (size_t i = 0; i < spec->npods; i++)
        gpu_asks += share_of(&pool[i]);
    out->capacity_milli = cl->gpus * GPU_MILLI;
    if (!out->capacity_milli) {
        rc = fs_fail(err, FS_EDATA, "fill: the fleet has no GPU");
        goto done;
    }
    if (!gpu_asks) {
        rc = fs_fail(err, FS_EDATA, "fill: no pod asks for a GPU, so demand never grows");
        goto done;
    }
    sched_prepare(&s, pool, spec->npods, spec->seed);
    if ((rc = arrivals(pool, spec->npods, out->capacity_milli, spec->seed, &order, &norder,
                       &out->clones, err)))
        goto done;
    jobs = xcalloc(norder, sizeof *jobs);
    if (!play(&s, &ft, pool, order, norder, jobs, out))
        rc = fs_fail_interrupted(err);
done:
    for (size_t e = 0; jobs && e < norder; e++)
        job_drop_gang(&jobs[e]);
    free(jobs);
    free(order);
    frag_tracker_free(&ft);
    frag_target_free(&m);
    sched_fini(&s);
    cluster_free(cl);
    free(pool);
    return rc;
}
