/* backfill.c - EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001)
 * for policies that set sched_policy.backfill (sched.h).
 *
 * When the first job in queue order (the head) cannot start, it gets a
 * reservation: the running jobs are taken in order of their estimated ends
 * (then id), and their GPUs are given back, in a picture of the free GPUs
 * per node, until the head fits a GPU type there.  That end is the shadow
 * time; the picture then holds every GPU free at it.  Jobs behind the head
 * start now only where they fit now (the policy's own placement) and do
 * not delay the head: they are estimated to end by the shadow time, or run
 * on another GPU type than the reserved one, or leave the picture still
 * holding the head (their GPUs are then taken out of it).  Only the head is
 * ever reserved for.
 *
 * Estimates: a job's limit (job.h; the trace's requested time), else its
 * run time on its reference type with perfect scaling, work / GPUs (work
 * for a CPU-only job).  A running job is expected to end at its current
 * segment's start plus its estimate less what it ran before; one past that
 * is expected to end now.
 *
 * The picture counts whole GPUs (struct node.free): GPUs partly held by
 * shares, and CPU and host memory, are not reserved.  A head that fits no
 * picture (it waits on shares, or on room that never frees) gets no
 * reservation, and the jobs behind it start wherever they fit.
 */
#include <stdlib.h>
#include <string.h>

#include "backfill.h"

fs_time backfill_estimate(const struct job *j)
{
    if (j->limit > 0)
        return j->limit;
    double s = j->gpus > 0 ? j->work / j->gpus : j->work;
    return s > 0 && fs_seconds_ok(s) ? fs_from_seconds(s) : 1;
}

/* When running job j is expected to end, seen at now. */
static fs_time expected_end(const struct job *j, fs_time now)
{
    fs_time left = backfill_estimate(j) - j->ran;
    fs_time end = left > FS_TIME_MAX - j->seg ? FS_TIME_MAX : j->seg + left;
    return end > now ? end : now;
}

/* Does the head fit the picture on type t? */
static bool head_fits(const struct sched *s, const struct backfill *bf, int32_t t)
{
    const struct cluster *cl = s->cl;
    const struct cluster_type *ct = &cl->types[t];
    const struct job *h = bf->head;
    int32_t need = h->gpus > 0 ? h->gpus : 1, whole = 0;
    for (int32_t n = ct->first_node; n >= 0 && n <= ct->last_node; n++) {
        if (cl->nodes[n].type != t)
            continue;
        if (need <= ct->max_gpus && bf->future[n] >= need)
            return true;
        whole += cl->nodes[n].gpus == ct->max_gpus && bf->future[n] == ct->max_gpus;
    }
    return need > ct->max_gpus && need % ct->max_gpus == 0 && whole >= need / ct->max_gpus;
}

/* The first type in catalog order the head may use and fits in the
 * picture, or -1. */
static int32_t fitting_type(const struct sched *s, const struct backfill *bf)
{
    for (int32_t t = 0; t < s->cl->cat->n; t++)
        if (bf->usable[t] && head_fits(s, bf, t))
            return t;
    return -1;
}

struct ending {
    fs_time end;
    struct job *j;
};

static int ending_cmp(const void *a, const void *b)
{
    const struct ending *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->j->id != y->j->id)
        return x->j->id < y->j->id ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* The running whole-GPU jobs (each once) by expected end.  OUT *n.  RET:
 * the array (caller frees). */
static struct ending *running_by_end(const struct sched *s, size_t *n)
{
    const struct cluster *cl = s->cl;
    struct ending *e = xmalloc((size_t)(cl->gpus > 0 ? cl->gpus : 1) * sizeof *e);
    size_t k = 0;
    for (int32_t g = 0; g < cl->gpus; g++) {
        struct job *j = s->owner[g];
        if (j && j->state == JOB_RUNNING && (g == 0 || s->owner[g - 1] != j))
            e[k++] = (struct ending){expected_end(j, s->now), j};
    }
    qsort(e, k, sizeof *e, ending_cmp);
    /* A gang's GPUs on different nodes appear apart: keep one entry. */
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || e[m - 1].j != e[i].j)
            e[m++] = e[i];
    *n = m;
    return e;
}

/* Add (sign +1) or take away (-1) the GPUs j holds (or would hold) on
 * nodes[0..nnodes) of type t in the picture. */
static void picture_add(const struct sched *s, struct backfill *bf, const struct job *j, int32_t t,
                        const int32_t *nodes, int32_t nnodes, int sign)
{
    int32_t size = s->cl->types[t].max_gpus;
    int32_t per = nnodes > 1 ? size : j->gpus > 0 ? j->gpus : 0;
    if (j->milli < GPU_MILLI)
        per = 1; /* a share's GPU is not whole again until it ends */
    for (int32_t k = 0; k < nnodes; k++)
        bf->future[nodes[k]] += sign * per;
}

void backfill_reserve(struct sched *s, struct backfill *bf, const struct job *head)
{
    const struct cluster *cl = s->cl;
    bf->active = false;
    bf->head = head;
    if (!bf->future)
        bf->future = xmalloc((size_t)(cl->nnodes > 0 ? cl->nnodes : 1) * sizeof *bf->future);
    for (int32_t n = 0; n < cl->nnodes; n++)
        bf->future[n] = cl->nodes[n].free;
    for (int32_t t = 0; t < cl->cat->n; t++)
        bf->usable[t] = sched_fits_type(cl, head, t);
    size_t n, i = 0;
    struct ending *e = running_by_end(s, &n);
    fs_time shadow = s->now;
    int32_t t = fitting_type(s, bf);
    while (t < 0 && i < n) {
        /* Every job ending at the same time frees its GPUs together. */
        shadow = e[i].end;
        for (; i < n && e[i].end == shadow; i++) {
            const struct job *j = e[i].j;
            picture_add(s, bf, j, j->type, j->nnodes > 1 ? j->gang : &j->node, j->nnodes, +1);
        }
        t = fitting_type(s, bf);
    }
    free(e);
    if (t < 0)
        return;
    bf->active = true;
    bf->type = t;
    bf->shadow = shadow;
}

bool backfill_allows(const struct sched *s, struct backfill *bf, const struct job *j, int32_t type,
                     const int32_t *nodes, int32_t nnodes)
{
    fs_time est = backfill_estimate(j);
    if (est <= bf->shadow - s->now || type != bf->type)
        return true;
    /* Try it in the picture; keep it there only if the head still fits. */
    picture_add(s, bf, j, type, nodes, nnodes, -1);
    bool ok = head_fits(s, bf, type);
    if (!ok)
        picture_add(s, bf, j, type, nodes, nnodes, +1);
    return ok;
}

void backfill_free(struct backfill *bf)
{
    free(bf->future);
    free(bf->queued);
    memset(bf, 0, sizeof *bf);
}
