/* cluster.c - nodes and the per-type, per-free-count bitset index. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

static void bit_set(uint64_t *b, int32_t i) { b[i >> 6] |= 1ULL << (i & 63); }
static void bit_clear(uint64_t *b, int32_t i) { b[i >> 6] &= ~(1ULL << (i & 63)); }

struct cluster *cluster_new(const struct gpu_catalog *cat,
                            const struct fleet_group *groups, int ngroups)
{
    struct cluster *cl = xcalloc(1, sizeof *cl);
    cl->cat = cat;
    for (int g = 0; g < ngroups; g++)
        cl->nnodes += groups[g].nodes;
    cl->nodes = xcalloc((size_t)cl->nnodes, sizeof *cl->nodes);
    cl->nwords = ((size_t)cl->nnodes + 63) / 64;

    for (int t = 0; t < GPU_MAX_TYPES; t++)
        cl->types[t].first_node = cl->types[t].last_node = -1;

    int32_t id = 0;
    for (int g = 0; g < ngroups; g++) {
        struct cluster_type *ct = &cl->types[groups[g].type];
        for (int32_t k = 0; k < groups[g].nodes; k++, id++) {
            cl->nodes[id] = (struct node){
                .type = groups[g].type,
                .gpus = (int16_t)groups[g].gpus_per_node,
                .free = (int16_t)groups[g].gpus_per_node,
            };
            if (ct->first_node < 0)
                ct->first_node = id;
            ct->last_node = id;
            ct->gpus += groups[g].gpus_per_node;
        }
        if (groups[g].gpus_per_node > ct->max_gpus)
            ct->max_gpus = groups[g].gpus_per_node;
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
    for (int32_t n = 0; n < cl->nnodes; n++)
        bit_set(cl->types[cl->nodes[n].type].bucket[cl->nodes[n].free], n);
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
    }
    free(cl->nodes);
    free(cl);
}

static void move_node(struct cluster *cl, int32_t node, int delta)
{
    struct node *n = &cl->nodes[node];
    struct cluster_type *ct = &cl->types[n->type];
    bit_clear(ct->bucket[n->free], node);
    n->free = (int16_t)(n->free + delta);
    bit_set(ct->bucket[n->free], node);
    ct->allocated -= delta;
    cl->allocated -= delta;
}

void cluster_take(struct cluster *cl, int32_t node, int gpus)
{
    move_node(cl, node, -gpus);
}

void cluster_give(struct cluster *cl, int32_t node, int gpus)
{
    move_node(cl, node, gpus);
}

int32_t cluster_next(const struct cluster *cl, int32_t type, int free, int32_t after)
{
    const struct cluster_type *ct = &cl->types[type];
    if (!ct->max_gpus || free < 0 || free > ct->max_gpus)
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
    if (!ct->max_gpus || free < 0 || free > ct->max_gpus)
        return 0;
    int32_t count = 0;
    size_t lo = (size_t)ct->first_node >> 6, hi = (size_t)ct->last_node >> 6;
    for (size_t w = lo; w <= hi; w++)
        count += __builtin_popcountll(ct->bucket[free][w]);
    return count;
}
