/* backfill.c - EASY backfilling, as Slurm's backfill scheduler and Maui
 * do it with one reservation: jobs in submit order, first fit (lowest node
 * id with room, as fifo); when the oldest job cannot start it is reserved
 * the GPUs the running jobs are expected to free first (their trace limits,
 * else an estimate), and a job behind it starts now only if it does not
 * delay that reservation (sched/backfill.c).  Only the head is protected:
 * a backfilled job may delay jobs behind the head, and the head itself
 * slips when a running job outlives its estimate. */
#include "policies.h"

const struct sched_policy sched_policy_backfill = {
    .name = "backfill",
    .summary = "EASY backfilling: submit order, first fit; later jobs start early "
               "only where they do not delay the oldest job's reservation",
    .backfill = true,
    .first_in_bucket_wins = true,
};
