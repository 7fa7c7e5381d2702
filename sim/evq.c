/* evq.c - the event queue: an indexed 8-ary min-heap over a slot array.
 *
 * The heap holds each queued event's key (time, seq) inline with its slot
 * index (at most 2^24 events queued at once, 2^40 pushes in all), so sifting compares neighbouring array entries instead of chasing
 * slot indices (a node's eight children fill two cache lines exactly,
 * heap_realloc); an 8-ary heap is a third as deep as a binary one, which
 * matters most for pops, the sifts that go all the way down.  A slot keeps the
 * rest of the event (kind, arg), its heap position (so that evq_cancel
 * finds it in O(1) and removes it in O(log n)) and a generation.  Slots
 * are recycled through a free list threaded through their pos field.
 *
 * Invariants:
 *  - the slots in use are exactly those named in heap[0 .. n-1], and for
 *    each of them heap[slots[s].pos].slot == s;
 *  - slots [0, hw) have been handed out at some time, where hw (the high-water
 *    mark) is n plus the length of the free list; so when the free list is
 *    empty, hw == n and the next fresh slot is index n.  That is why struct
 *    evq needs no separate count of slots in use;
 *  - a slot's generation is bumped each time it is freed, so a handle (which
 *    records the generation it was issued under) goes stale the moment its
 *    event pops or is cancelled.  Generations are 32 bits: a handle could only
 *    be confused with a newer one after 2^32 reuses of the same slot.
 *
 * Handles are (generation << 32) | (slot index + 1), so 0 is never valid.
 */
#include "evq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVQ_NONE UINT32_MAX /* "no slot": end of the free list */
#define EVQ_D 8             /* children per heap node */
#define EVQ_PAD 7           /* heap[k] is array position k + 7 (heap_realloc) */

/* 16 bytes: four nodes to a 64-byte cache line.  key = seq << 24 |
 * slot: seq (40 bits, a trillion pushes) orders equal times, and the slot
 * rides in the low bits, which never decide (seq is unique). */
#define EVQ_SLOT_BITS 24
#define EVQ_MAX_SLOTS ((size_t)1 << EVQ_SLOT_BITS)

struct evq_node {
    fs_time time;
    uint64_t key;
};

static inline uint32_t node_slot(const struct evq_node *x)
{
    return (uint32_t)(x->key & (EVQ_MAX_SLOTS - 1));
}

struct evq_slot {
    int kind;
    int32_t arg;
    uint32_t pos; /* heap position while queued; next free slot while free */
    uint32_t gen; /* bumped on free */
};

/* Strict total order: seq is unique within a queue. */
static inline bool node_less(const struct evq_node *a, const struct evq_node *b)
{
    return a->time != b->time ? a->time < b->time : a->key < b->key;
}

static inline void heap_put(struct evq *q, size_t pos, const struct evq_node *x)
{
    q->heap[pos] = *x;
    q->slots[node_slot(x)].pos = (uint32_t)pos;
}

/* Move the hole at pos up until x fits there, then place x. */
static void sift_up(struct evq *q, size_t pos, struct evq_node x)
{
    while (pos > 0) {
        size_t parent = (pos - 1) / EVQ_D;
        if (!node_less(&x, &q->heap[parent]))
            break;
        heap_put(q, pos, &q->heap[parent]);
        pos = parent;
    }
    heap_put(q, pos, &x);
}

/* Move the hole at pos down until x fits there, then place x. */
static void sift_down(struct evq *q, size_t pos, struct evq_node x)
{
    size_t n = q->n;
    for (;;) {
        size_t first = EVQ_D * pos + 1;
        if (first >= n)
            break;
        size_t best = first, end = first + EVQ_D < n ? first + EVQ_D : n;
        for (size_t c = first + 1; c < end; c++)
            if (node_less(&q->heap[c], &q->heap[best]))
                best = c;
        if (!node_less(&q->heap[best], &x))
            break;
        heap_put(q, pos, &q->heap[best]);
        pos = best;
    }
    heap_put(q, pos, &x);
}

static void slot_release(struct evq *q, uint32_t s)
{
    struct evq_slot *sl = &q->slots[s];
    sl->gen++;
    sl->pos = q->free_head;
    q->free_head = s;
}

/* Take the event at heap position pos out of the heap and free its slot. */
static void heap_remove_at(struct evq *q, size_t pos)
{
    uint32_t s = node_slot(&q->heap[pos]);
    size_t last = --q->n;
    if (pos != last) {
        struct evq_node m = q->heap[last];
        if (pos > 0 && node_less(&m, &q->heap[(pos - 1) / EVQ_D]))
            sift_up(q, pos, m);
        else
            sift_down(q, pos, m);
    }
    slot_release(q, s);
}

/* The heap array, cache-line aligned and shifted by EVQ_PAD nodes so that
 * the eight children of node k (8k+1 .. 8k+8) sit at array positions
 * 8k+8 .. 8k+15: two whole 64-byte lines.  Keeps the first n nodes of old. */
static struct evq_node *heap_realloc(struct evq_node *old, size_t n, size_t cap)
{
    size_t bytes = (cap + EVQ_PAD) * sizeof *old;
    struct evq_node *base = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!base) {
        fprintf(stderr, "fleetsim: out of memory (event queue of %zu)\n", cap);
        abort();
    }
    if (old) {
        memcpy(base + EVQ_PAD, old, n * sizeof *old);
        free(old - EVQ_PAD);
    }
    return base + EVQ_PAD;
}

/* Double the capacity of slots and heap.  Fresh slots get pos = EVQ_NONE and
 * gen = 0 so that a forged handle naming one never reads indeterminate
 * memory and never passes evq_cancel's liveness check. */
static void grow(struct evq *q)
{
    /* Slot indices must fit a node's key. */
    const size_t max = EVQ_MAX_SLOTS;
    if (q->cap >= max) {
        fprintf(stderr, "fleetsim: event queue full (%zu events)\n", q->cap);
        abort();
    }
    size_t cap = q->cap ? q->cap * 2 : 64;
    if (cap > max)
        cap = max;
    q->slots = xrealloc(q->slots, cap * sizeof *q->slots);
    q->heap = heap_realloc(q->heap, q->n, cap);
    for (size_t i = q->cap; i < cap; i++)
        q->slots[i] = (struct evq_slot){.pos = EVQ_NONE, .gen = 0};
    q->cap = cap;
}

void evq_init(struct evq *q)
{
    *q = (struct evq){.free_head = EVQ_NONE};
}

void evq_free(struct evq *q)
{
    if (!q)
        return;
    free(q->slots);
    if (q->heap)
        free(q->heap - EVQ_PAD);
    evq_init(q);
}

evq_handle evq_push(struct evq *q, fs_time time, int kind, int32_t arg)
{
    uint32_t s;
    if (q->free_head != EVQ_NONE) {
        s = q->free_head;
        q->free_head = q->slots[s].pos;
    } else {
        if (q->n == q->cap)
            grow(q);
        s = (uint32_t)q->n; /* free list empty: high-water mark == n */
    }
    struct evq_slot *sl = &q->slots[s];
    sl->kind = kind;
    sl->arg = arg;
    uint64_t seq = q->next_seq++;
    sift_up(q, q->n++, (struct evq_node){.time = time, .key = seq << EVQ_SLOT_BITS | s});
    return (uint64_t)sl->gen << 32 | ((uint64_t)s + 1);
}

bool evq_pop(struct evq *q, struct event *out)
{
    if (q->n == 0)
        return false;
    const struct evq_node *top = &q->heap[0];
    const struct evq_slot *sl = &q->slots[node_slot(top)];
    *out = (struct event){.time = top->time, .seq = top->key >> EVQ_SLOT_BITS, .kind = sl->kind,
                          .arg = sl->arg};
    heap_remove_at(q, 0);
    return true;
}

fs_time evq_peek_time(const struct evq *q)
{
    return q->n ? q->heap[0].time : FS_TIME_MAX;
}

bool evq_cancel(struct evq *q, evq_handle h)
{
    uint64_t low = h & UINT32_MAX;
    if (low == 0 || low > q->cap)
        return false;
    uint32_t s = (uint32_t)(low - 1);
    const struct evq_slot *sl = &q->slots[s];
    /* The generation check rejects stale handles; the position check also
     * rejects forged ones that name a free or never-used slot. */
    if (sl->gen != (uint32_t)(h >> 32) || sl->pos >= q->n || node_slot(&q->heap[sl->pos]) != s)
        return false;
    heap_remove_at(q, sl->pos);
    return true;
}
