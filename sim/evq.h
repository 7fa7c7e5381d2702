/* evq.h - the event queue: an indexed 8-ary min-heap of events ordered by
 * (time, seq), where seq is a per-queue counter taken at insertion.  Events
 * at equal times therefore pop in insertion order: a total order, so a run is
 * deterministic.
 *
 * Cancellation is explicit: evq_push returns a handle, evq_cancel removes
 * that event from the heap in O(log n).  A handle carries a generation
 * number, so cancelling an event that already fired (or was cancelled) is a
 * harmless no-op and can never remove a later event that reused its slot.
 *
 * The queue owns its storage; evq_free releases it.
 */
#ifndef FS_SIM_EVQ_H
#define FS_SIM_EVQ_H

#include <stdbool.h>

#include "../base/base.h"

typedef uint64_t evq_handle; /* 0 is never a valid handle */

struct event {
    fs_time time;
    uint64_t seq;
    int kind;      /* what happened; meaning is the engine's */
    int32_t arg;   /* e.g. a job index */
};

struct evq_slot;
struct evq_node;

struct evq {
    struct evq_slot *slots; /* event payloads, addressed by handle */
    struct evq_node *heap;  /* (time, seq, slot) in heap order */
    size_t n, cap;          /* heap size; capacity of slots and heap */
    uint32_t free_head;     /* first free slot, UINT32_MAX when none */
    uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);

/* Insert an event.  RET: its handle (never 0). */
evq_handle evq_push(struct evq *q, fs_time time, int kind, int32_t arg);

/* Remove the earliest event into *out.  RET: false when the queue is empty. */
bool evq_pop(struct evq *q, struct event *out);

/* Time of the earliest event, or FS_TIME_MAX when empty.  An event queued at
 * FS_TIME_MAX looks the same as an empty queue, so a loop that runs "while
 * evq_peek_time(q) <= horizon" must also test evq_size when horizon can be
 * FS_TIME_MAX. */
fs_time evq_peek_time(const struct evq *q);

/* Remove the event h if it is still queued.  RET: true if it was. */
bool evq_cancel(struct evq *q, evq_handle h);

static inline size_t evq_size(const struct evq *q) { return q->n; }

#endif
