/* fifo.c - strict first-in first-out, first fit.
 *
 * Jobs start in submit order; when the oldest job cannot start, nothing
 * behind it may (head-of-line blocking, as a plain FIFO batch queue does).
 * A job goes to the lowest-numbered node with room: every node scores the
 * same, and the core breaks ties by lowest id. */
#include "policies.h"

const struct sched_policy sched_policy_fifo = {
    .name = "fifo",
    .summary = "strict submit order, first fit (lowest node id with room)",
    .strict_order = true,
    .first_in_bucket_wins = true,
};
