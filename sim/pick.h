/* pick.h - step 3 of a round (rounds.h) for one GPU type: the candidates,
 * in their order, each take their GPUs while they fit.
 *
 * The order: priority, then deficit, then allocation (each the highest
 * first), then the lowest pos - total, since pos is a member's place in
 * the round's active list.  pick_in_order finds it only as far as the
 * choice depends on it (see pick.c); the choice is the one a full sort
 * and a scan in order give. */
#ifndef FS_SIM_PICK_H
#define FS_SIM_PICK_H

#include <stddef.h>
#include <stdint.h>

struct pick_entry {
    double prio, deficit, alloc;
    uint32_t pos;
    int32_t gpus;                    /* GPUs it asks for (>= 0) */
};

/* Offer the candidates e[0..n), in order, gpus GPUs: each takes its GPUs
 * when they fit in what is left, until none is left (a candidate asking
 * for 0 GPUs is taken only while some are).  e is reordered: the taken come first,
 * in no particular order.  tmp has room for n / 2 + 1.  RET: how many
 * were taken. */
size_t pick_in_order(struct pick_entry *e, struct pick_entry *tmp, size_t n, int32_t gpus);

/* Sort e[0..n) into the order, through tmp (room for n / 2 + 1). */
void pick_sort(struct pick_entry *e, struct pick_entry *tmp, size_t n);

#endif
