/* backfill.h - EASY backfilling's reservation for the head of the queue
 * (backfill.c says how it is made and kept), used by the queue scan of
 * sched.c and the placement of place.c for a policy that sets
 * sched_policy.backfill.  Private to sched/.
 */
#ifndef FS_SCHED_BACKFILL_H
#define FS_SCHED_BACKFILL_H

#include <stdbool.h>

#include "sched.h"

/* The run time backfilling expects of j: its limit, else work / GPUs on its
 * reference type.  RET: > 0. */
fs_time backfill_estimate(const struct job *j);

/* Make the reservation for head, which cannot start now (s->now).  Sets
 * bf->active when the head fits the picture at some running job's end;
 * else no job is held back for it. */
void backfill_reserve(struct sched *s, struct backfill *bf, const struct job *head);

/* May j, placed now on type's nodes[0..nnodes) (one node, or a gang),
 * start without delaying the reserved head?  When it may and it would run
 * past the shadow time on the reserved type, its GPUs leave the picture.
 * RET: true if it may start. */
bool backfill_allows(const struct sched *s, struct backfill *bf, const struct job *j, int32_t type,
                     const int32_t *nodes, int32_t nnodes);

void backfill_free(struct backfill *bf);

#endif
