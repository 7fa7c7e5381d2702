/* cluster.c - nodes and the per-type, per-free-count bitset index. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

static void bit_set(uint64_t *b, int32_t i) { b[i >> 6] |= 1ULL << (i & 63); }
static void bit_clear(uint64_t *b, int32_t i) { b[i >> 6] &= ~(1ULL << (i & 63)); }

/* See cluster.h. */
static bool plain(const struct cluster *cl, const struct node *nd)
{
    return nd->gpus == cl->types[nd->type].max_gpus && !nd->cpu && !nd->mem && !nd->partial;
}

static void free_ranked(struct cluster_type *ct)
{
    for (int f = 0; ct->ranked && f <= ct->max_gpus; f++) {
        free(ct->ranked[f]);
        free(ct->ranked_any[f]);
    }
    free(ct->ranked);
    free(ct->ranked_any);
    ct->ranked = ct->ranked_any = NULL;
}

static void ranked_set(struct cluster_type *ct, int f, int32_t r)
{
    bit_set(ct->ranked[f], r);
    bit_set(ct->ranked_any[f], r >> 6);
}

static void ranked_clear(struct cluster_type *ct, int f, int32_t r)
{
    bit_clear(ct->ranked[f], r);
    if (!ct->ranked[f][r >> 6])
        bit_clear(ct->ranked_any[f], r >> 6);
}

struct cluster *cluster_new(const struct gpu_catalog *cat,
                            const struct fleet_group *groups, int ngroups)
{
    struct cluster *cl = xcalloc(1, sizeof *cl);
    cl->cat = cat;
    for (int g = 0; g < ngroups; g++)
        cl->nnodes += groups[g].nodes;
    cl->nodes = xcalloc((size_t)cl->nnodes, sizeof *cl->nodes);
    cl->nwords = ((size_t)cl->nnodes + 63) / 64;
    int64_t total = 0;
    for (int g = 0; g < ngroups; g++)
        total += (int64_t)groups[g].nodes * groups[g].gpus_per_node;
    cl->milli = xmalloc((size_t)total * sizeof *cl->milli);
    for (int64_t i = 0; i < total; i++)
        cl->milli[i] = GPU_MILLI;
    cl->free_milli = total * GPU_MILLI;

    for (int t = 0; t < GPU_MAX_TYPES; t++)
        cl->types[t].first_node = cl->types[t].last_node = -1;

    int32_t id = 0, gpu = 0;
    for (int g = 0; g < ngroups; g++) {
        const struct fleet_group *fg = &groups[g];
        struct cluster_type *ct = &cl->types[fg->type];
        for (int32_t k = 0; k < fg->nodes; k++, id++, gpu += fg->gpus_per_node) {
            cl->nodes[id] = (struct node){
                .type = fg->type,
                .gpus = (int16_t)fg->gpus_per_node,
                .free = (int16_t)fg->gpus_per_node,
                .gpu0 = gpu,
                .cpu = fg->cpu_milli, .cpu_free = fg->cpu_milli,
                .mem = fg->mem_mib, .mem_free = fg->mem_mib,
            };
            if (ct->first_node < 0)
                ct->first_node = id;
            ct->last_node = id;
            ct->gpus += groups[g].gpus_per_node;
        }
        if (fg->gpus_per_node > ct->max_gpus)
            ct->max_gpus = fg->gpus_per_node;
        if (fg->cpu_milli > ct->max_cpu || !fg->cpu_milli)
            ct->max_cpu = fg->cpu_milli ? fg->cpu_milli : INT32_MAX;
        if (fg->mem_mib > ct->max_mem || !fg->mem_mib)
            ct->max_mem = fg->mem_mib ? fg->mem_mib : INT32_MAX;
    }
    for (int t = 0; t < GPU_MAX_TYPES; t++) {
        struct cluster_type *ct = &cl->types[t];
        if (!ct->max_gpus)
            continue;
        ct->bucket = xcalloc((size_t)ct->max_gpus + 1, sizeof *ct->bucket);
        for (int f = 0; f <= ct->max_gpus; f++)
            ct->bucket[f] = xcalloc(cl->nwords, sizeof(uint64_t));
        cl->gpus += ct->gpus;
    }
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        if (cl->types[t].max_gpus)
            cl->types[t].mixed = xcalloc((size_t)cl->types[t].max_gpus + 1, sizeof(int32_t));
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        if (cl->types[t].max_gpus)
            cl->types[t].count = xcalloc((size_t)cl->types[t].max_gpus + 1, sizeof(int32_t));
    for (int32_t n = 0; n < cl->nnodes; n++) {
        const struct node *nd = &cl->nodes[n];
        bit_set(cl->types[nd->type].bucket[nd->free], n);
        cl->types[nd->type].mixed[nd->free] += !plain(cl, nd);
        cl->types[nd->type].count[nd->free]++;
    }
    return cl;
}

void cluster_free(struct cluster *cl)
{
    if (!cl)
        return;
    for (int t = 0; t < GPU_MAX_TYPES; t++) {
        struct cluster_type *ct = &cl->types[t];
        for (int f = 0; ct->bucket && f <= ct->max_gpus; f++)
            free(ct->bucket[f]);
        free(ct->bucket);
        free(ct->mixed);
        free(ct->count);
        free_ranked(ct);
    }
    free(cl->rank);
    free(cl->by_rank);
    free(cl->nodes);
    free(cl->milli);
    free(cl);
}

/* Move node n between buckets after its fully free count or plainness
 * changed. */
static void rebucket(struct cluster *cl, int32_t n, int old_free, bool was_plain)
{
    struct node *nd = &cl->nodes[n];
    struct cluster_type *ct = &cl->types[nd->type];
    ct->mixed[old_free] -= !was_plain;
    ct->mixed[nd->free] += !plain(cl, nd);
    if (nd->free == old_free)
        return;
    bit_clear(ct->bucket[old_free], n);
    bit_set(ct->bucket[nd->free], n);
    ct->count[old_free]--;
    ct->count[nd->free]++;
    if (ct->ranked) {
        ranked_clear(ct, old_free, cl->rank[n]);
        ranked_set(ct, nd->free, cl->rank[n]);
    }
    ct->allocated -= nd->free - old_free;
    cl->allocated -= nd->free - old_free;
}

/* Add delta thousandths to each GPU of mask, and cpu and mem, on node n
 * (negative: take). */
static void adjust(struct cluster *cl, int32_t n, uint64_t mask, int delta, int cpu, int mem)
{
    struct node *nd = &cl->nodes[n];
    int old_free = nd->free;
    bool was_plain = plain(cl, nd);
    for (int i = 0; mask; i++, mask >>= 1) {
        if (!(mask & 1))
            continue;
        int16_t *m = &cl->milli[nd->gpu0 + i];
        nd->free = (int16_t)(nd->free - (*m == GPU_MILLI));
        nd->partial = (int16_t)(nd->partial - (*m > 0 && *m < GPU_MILLI));
        *m = (int16_t)(*m + delta);
        nd->free = (int16_t)(nd->free + (*m == GPU_MILLI));
        nd->partial = (int16_t)(nd->partial + (*m > 0 && *m < GPU_MILLI));
        cl->free_milli += delta;
    }
    nd->cpu_free += cpu;
    nd->mem_free += mem;
    rebucket(cl, n, old_free, was_plain);
}

void cluster_take(struct cluster *cl, int32_t node, uint64_t mask, int milli, int cpu, int mem)
{
    adjust(cl, node, mask, -milli, -cpu, -mem);
}

void cluster_give(struct cluster *cl, int32_t node, uint64_t mask, int milli, int cpu, int mem)
{
    adjust(cl, node, mask, milli, cpu, mem);
}

uint64_t cluster_whole_gpus(const struct cluster *cl, int32_t node, int k)
{
    const struct node *nd = &cl->nodes[node];
    uint64_t mask = 0;
    for (int i = 0; i < nd->gpus && k > 0; i++)
        if (cl->milli[nd->gpu0 + i] == GPU_MILLI) {
            mask |= 1ULL << i;
            k--;
        }
    return k ? 0 : mask;
}

int cluster_share_gpu(const struct cluster *cl, int32_t node, int milli)
{
    const struct node *nd = &cl->nodes[node];
    int best = -1;
    for (int i = 0; i < nd->gpus; i++) {
        int free = cl->milli[nd->gpu0 + i];
        if (free >= milli && (best < 0 || free < cl->milli[nd->gpu0 + best]))
            best = i;
    }
    return best;
}

bool cluster_host_fits(const struct cluster *cl, int32_t node, int cpu, int mem)
{
    const struct node *nd = &cl->nodes[node];
    return (!nd->cpu || cpu <= nd->cpu_free) && (!nd->mem || mem <= nd->mem_free);
}

int32_t cluster_next(const struct cluster *cl, int32_t type, int free, int32_t after)
{
    const struct cluster_type *ct = &cl->types[type];
    if (!ct->max_gpus || free < 0 || free > ct->max_gpus || !ct->count[free])
        return -1;
    int32_t start = after + 1 > ct->first_node ? after + 1 : ct->first_node;
    if (start > ct->last_node)
        return -1;
    const uint64_t *b = ct->bucket[free];
    size_t w = (size_t)start >> 6, last = (size_t)ct->last_node >> 6;
    uint64_t word = b[w] & (~0ULL << (start & 63));
    for (;;) {
        if (word) {
            int32_t id = (int32_t)(w * 64 + (size_t)__builtin_ctzll(word));
            return id <= ct->last_node ? id : -1;
        }
        if (++w > last)
            return -1;
        word = b[w];
    }
}

int32_t cluster_count(const struct cluster *cl, int32_t type, int free)
{
    const struct cluster_type *ct = &cl->types[type];
    return !ct->max_gpus || free < 0 || free > ct->max_gpus ? 0 : ct->count[free];
}

bool cluster_uniform(const struct cluster *cl, int32_t type, int free)
{
    const struct cluster_type *ct = &cl->types[type];
    return ct->max_gpus && free >= 0 && free <= ct->max_gpus && ct->mixed[free] == 0;
}

void cluster_order(struct cluster *cl, const int32_t *rank)
{
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        free_ranked(&cl->types[t]);
    free(cl->rank);
    free(cl->by_rank);
    cl->rank = cl->by_rank = NULL;
    if (!rank || !cl->nnodes)
        return;
    size_t n = (size_t)cl->nnodes, summary = (cl->nwords + 63) / 64;
    cl->rank = xmalloc(n * sizeof *cl->rank);
    cl->by_rank = xmalloc(n * sizeof *cl->by_rank);
    memcpy(cl->rank, rank, n * sizeof *cl->rank);
    for (int32_t i = 0; i < cl->nnodes; i++)
        cl->by_rank[rank[i]] = i;
    for (int t = 0; t < GPU_MAX_TYPES; t++) {
        struct cluster_type *ct = &cl->types[t];
        if (!ct->max_gpus)
            continue;
        ct->ranked = xcalloc((size_t)ct->max_gpus + 1, sizeof *ct->ranked);
        ct->ranked_any = xcalloc((size_t)ct->max_gpus + 1, sizeof *ct->ranked_any);
        for (int f = 0; f <= ct->max_gpus; f++) {
            ct->ranked[f] = xcalloc(cl->nwords, sizeof(uint64_t));
            ct->ranked_any[f] = xcalloc(summary, sizeof(uint64_t));
        }
    }
    for (int32_t i = 0; i < cl->nnodes; i++)
        ranked_set(&cl->types[cl->nodes[i].type], cl->nodes[i].free, rank[i]);
}

int32_t cluster_first_ranked(const struct cluster *cl, int32_t type, int free)
{
    const struct cluster_type *ct = &cl->types[type];
    if (!ct->ranked || free < 0 || free > ct->max_gpus)
        return -1;
    size_t summary = (cl->nwords + 63) / 64;
    for (size_t k = 0; k < summary; k++) {
        uint64_t any = ct->ranked_any[free][k];
        if (any) {
            size_t w = k * 64 + (size_t)__builtin_ctzll(any);
            return cl->by_rank[w * 64 + (size_t)__builtin_ctzll(ct->ranked[free][w])];
        }
    }
    return -1;
}
