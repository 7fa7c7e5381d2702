/* evq.c - the event queue: an indexed binary min-heap over a slot array.
 *
 * Every queued event lives in a slot; q->heap holds slot indices in heap
 * order, and each live slot remembers its heap position so that evq_cancel
 * can find it in O(1) and remove it in O(log n).  Slots are recycled through
 * a free list threaded through their pos field.
 *
 * Invariants:
 *  - the slots in use are exactly those in heap[0 .. n-1], and for each of
 *    them heap[slots[s].pos] == s;
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

#define EVQ_NONE UINT32_MAX /* "no slot": end of the free list */

struct evq_slot {
    struct event ev;
    uint32_t pos; /* heap position while queued; next free slot while free */
    uint32_t gen; /* bumped on free */
};

/* Strict total order: seq is unique within a queue. */
static inline bool slot_less(const struct evq_slot *a, const struct evq_slot *b)
{
    if (a->ev.time != b->ev.time)
        return a->ev.time < b->ev.time;
    return a->ev.seq < b->ev.seq;
}

static inline void heap_put(struct evq *q, size_t pos, uint32_t s)
{
    q->heap[pos] = s;
    q->slots[s].pos = (uint32_t)pos;
}

/* Move the hole at pos up until slot s fits there, then place s. */
static void sift_up(struct evq *q, size_t pos, uint32_t s)
{
    const struct evq_slot *sv = &q->slots[s];
    while (pos > 0) {
        size_t parent = (pos - 1) / 2;
        uint32_t p = q->heap[parent];
        if (!slot_less(sv, &q->slots[p]))
            break;
        heap_put(q, pos, p);
        pos = parent;
    }
    heap_put(q, pos, s);
}

/* Move the hole at pos down until slot s fits there, then place s. */
static void sift_down(struct evq *q, size_t pos, uint32_t s)
{
    const struct evq_slot *sv = &q->slots[s];
    size_t n = q->n;
    for (;;) {
        size_t child = 2 * pos + 1;
        if (child >= n)
            break;
        uint32_t c = q->heap[child];
        if (child + 1 < n) {
            uint32_t r = q->heap[child + 1];
            if (slot_less(&q->slots[r], &q->slots[c])) {
                child++;
                c = r;
            }
        }
        if (!slot_less(&q->slots[c], sv))
            break;
        heap_put(q, pos, c);
        pos = child;
    }
    heap_put(q, pos, s);
}

static void slot_release(struct evq *q, uint32_t s)
{
    struct evq_slot *sl = &q->slots[s];
    sl->gen++;
    sl->pos = q->free_head;
    q->free_head = s;
}

/* Take the slot at heap position pos out of the heap and free it. */
static void heap_remove_at(struct evq *q, size_t pos)
{
    uint32_t s = q->heap[pos];
    size_t last = --q->n;
    if (pos != last) {
        uint32_t m = q->heap[last];
        if (pos > 0 && slot_less(&q->slots[m], &q->slots[q->heap[(pos - 1) / 2]]))
            sift_up(q, pos, m);
        else
            sift_down(q, pos, m);
    }
    slot_release(q, s);
}

/* Double the capacity of slots and heap.  Fresh slots get pos = EVQ_NONE and
 * gen = 0 so that a forged handle naming one never reads indeterminate
 * memory and never passes evq_cancel's liveness check. */
static void grow(struct evq *q)
{
    /* Slot indices must stay below EVQ_NONE. */
    const size_t max = EVQ_NONE;
    if (q->cap >= max) {
        fprintf(stderr, "fleetsim: event queue full (%zu events)\n", q->cap);
        abort();
    }
    size_t cap = q->cap ? q->cap * 2 : 64;
    if (cap > max)
        cap = max;
    q->slots = xrealloc(q->slots, cap * sizeof *q->slots);
    q->heap = xrealloc(q->heap, cap * sizeof *q->heap);
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
    free(q->heap);
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
    sl->ev = (struct event){.time = time, .seq = q->next_seq++, .kind = kind, .arg = arg};
    sift_up(q, q->n++, s);
    return (uint64_t)sl->gen << 32 | ((uint64_t)s + 1);
}

bool evq_pop(struct evq *q, struct event *out)
{
    if (q->n == 0)
        return false;
    *out = q->slots[q->heap[0]].ev;
    heap_remove_at(q, 0);
    return true;
}

fs_time evq_peek_time(const struct evq *q)
{
    return q->n ? q->slots[q->heap[0]].ev.time : FS_TIME_MAX;
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
    if (sl->gen != (uint32_t)(h >> 32) || sl->pos >= q->n || q->heap[sl->pos] != s)
        return false;
    heap_remove_at(q, sl->pos);
    return true;
}
