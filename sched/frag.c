/* frag.c - node fragmentation F_n(m), the typical-pod set M, F_n(M) and
 * cluster totals (see frag.h). */
#include "frag.h"

#include <stdlib.h>
#include <string.h>

struct frag_class frag_class_of(const struct job *j)
{
    bool gpu = j->gpus > 0;
    return (struct frag_class){
        .cpu = j->cpu_milli,
        .milli = gpu ? j->milli : 0,
        .gpus = gpu ? j->gpus : 0,
        .allowed = gpu ? j->allowed : 0,
    };
}

bool frag_class_same(const struct frag_class *a, const struct frag_class *b)
{
    return a->cpu == b->cpu && a->milli == b->milli && a->gpus == b->gpus &&
           a->allowed == b->allowed;
}

/* Request order: larger cpu first, then larger milli, gpus, allowed - the
 * authors' tie order among classes of equal popularity. */
static int request_cmp(const struct frag_class *a, const struct frag_class *b)
{
    if (a->cpu != b->cpu)
        return a->cpu > b->cpu ? -1 : 1;
    if (a->milli != b->milli)
        return a->milli > b->milli ? -1 : 1;
    if (a->gpus != b->gpus)
        return a->gpus > b->gpus ? -1 : 1;
    if (a->allowed != b->allowed)
        return a->allowed > b->allowed ? -1 : 1;
    return 0;
}

static int by_request(const void *pa, const void *pb)
{
    return request_cmp(pa, pb);
}

static int by_popularity(const void *pa, const void *pb)
{
    const struct frag_class *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return request_cmp(a, b);
}

void frag_target_build(struct frag_target *m, const struct job *jobs, size_t n, double coverage)
{
    *m = (struct frag_target){0};
    if (!n)
        return;
    struct frag_class *all = xmalloc(n * sizeof *all);
    for (size_t i = 0; i < n; i++)
        all[i] = frag_class_of(&jobs[i]);
    qsort(all, n, sizeof *all, by_request);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && frag_class_same(&all[k - 1], &all[i])) {
            all[k - 1].count++;
            continue;
        }
        all[k] = all[i];
        all[k++].count = 1;
    }
    qsort(all, k, sizeof *all, by_popularity);
    double want = coverage * (double)n;
    while (m->n < k && (m->n == 0 || (double)m->total < want))
        m->total += all[m->n++].count;
    m->cls = xrealloc(all, m->n * sizeof *m->cls);
}

void frag_target_free(struct frag_target *m)
{
    free(m->cls);
    *m = (struct frag_target){0};
}

struct frag_node frag_node_of(const struct cluster *cl, int32_t n)
{
    const struct node *nd = &cl->nodes[n];
    return (struct frag_node){
        .type = nd->type,
        .cpu_free = nd->cpu ? nd->cpu_free : INT32_MAX,
        .ngpus = nd->gpus,
        .free = &cl->milli[nd->gpu0],
    };
}

static int64_t idle_of(const struct frag_node *nd)
{
    int64_t idle = 0;
    for (int g = 0; g < nd->ngpus; g++)
        idle += nd->free[g];
    return idle;
}

/* F_n(m) given idle(n). */
static int64_t amount(const struct frag_class *m, const struct frag_node *nd, int64_t idle)
{
    if (!m->gpus || (m->allowed && !(m->allowed >> nd->type & 1)) || nd->cpu_free < m->cpu)
        return idle;
    int fit = 0;
    int64_t small = 0;
    for (int g = 0; g < nd->ngpus; g++) {
        if (nd->free[g] >= m->milli)
            fit++;
        else
            small += nd->free[g];
    }
    return fit >= m->gpus ? small : idle;
}

int64_t frag_class_amount(const struct frag_class *m, const struct frag_node *nd)
{
    return amount(m, nd, idle_of(nd));
}

int64_t frag_node_scaled(const struct frag_target *m, const struct frag_node *nd)
{
    int64_t idle = idle_of(nd);
    if (!idle)
        return 0;
    int64_t sum = 0;
    for (size_t i = 0; i < m->n; i++)
        sum += m->cls[i].count * amount(&m->cls[i], nd, idle);
    return sum;
}

void frag_tracker_init(struct frag_tracker *t, const struct frag_target *m, const struct cluster *cl)
{
    *t = (struct frag_tracker){.m = m, .node = xcalloc((size_t)cl->nnodes, sizeof *t->node)};
    for (int32_t n = 0; n < cl->nnodes; n++) {
        struct frag_node fn = frag_node_of(cl, n);
        t->node[n] = frag_node_scaled(m, &fn);
        t->sum += t->node[n];
    }
}

void frag_tracker_update(struct frag_tracker *t, const struct cluster *cl, int32_t n)
{
    struct frag_node fn = frag_node_of(cl, n);
    int64_t f = frag_node_scaled(t->m, &fn);
    t->sum += f - t->node[n];
    t->node[n] = f;
}

void frag_tracker_free(struct frag_tracker *t)
{
    free(t->node);
    *t = (struct frag_tracker){0};
}

double frag_tracker_milli(const struct frag_tracker *t)
{
    return t->m && t->m->total ? (double)t->sum / (double)t->m->total : 0;
}
