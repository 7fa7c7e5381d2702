/* place.h - where one job goes (internal to sched/; sched.h is the
 * interface: sched_fits_type, sched_fits_fleet, sched_place, sched_try). */
#ifndef FS_SCHED_PLACE_H
#define FS_SCHED_PLACE_H

#include "sched.h"

/* May j run on type t at all (allowed, GPU memory, node size)? */
bool place_type_ok(const struct cluster *cl, const struct job *j, int32_t t);

/* Is there room for j (not a gang) on node n now? */
bool place_room(const struct cluster *cl, const struct job *j, int32_t n);

/* The scratch state the policy's hooks decide on type t with. */
struct sched_cycle place_cycle(const struct sched *s, int32_t t);

/* Record (who = j) or clear (who = NULL) j's whole GPUs in s->owner. */
void place_set_owner(struct sched *s, const struct job *j, struct job *who);

/* Take queued j out of the queue (sched.c). */
void sched_remove_queued(struct sched *s, struct job *j);

#endif
