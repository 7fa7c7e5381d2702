/* rounds.c - the round-based time-sharing policies of Gavel (Narayanan et
 * al., OSDI 2020): every round (360 s in Gavel) the engine re-divides GPU
 * time among all jobs by the policy's allocation (sched/alloc.h) and its
 * round mechanism (sim/rounds.h).  Their placement hooks are unused. */
#include "policies.h"

const struct sched_policy sched_policy_las = {
    .name = "las",
    .summary = "round-based time-sharing, least attained service (Gavel's heterogeneity-agnostic "
               "max-min fairness LP)",
    .rounds = SCHED_ROUNDS_LAS,
};

const struct sched_policy sched_policy_gavel_las = {
    .name = "gavel-las",
    .summary = "round-based time-sharing, Gavel's heterogeneity-aware LAS: max-min of throughput "
               "over an equal share's (LP over the job-type throughput matrix)",
    .rounds = SCHED_ROUNDS_GAVEL_LAS,
};

const struct sched_policy sched_policy_ts_fifo = {
    .name = "ts-fifo",
    .summary = "round-based FIFO: jobs in arrival order take a random GPU type with room and keep "
               "it (Gavel's agnostic FIFO)",
    .rounds = SCHED_ROUNDS_FIFO,
};

const struct sched_policy sched_policy_gavel_fifo = {
    .name = "gavel-fifo",
    .summary = "round-based FIFO, heterogeneity-aware: jobs in arrival order take the fastest GPU "
               "type with room, re-decided each allocation (Gavel's FIFO with throughputs)",
    .rounds = SCHED_ROUNDS_GAVEL_FIFO,
};
