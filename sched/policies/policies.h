/* policies.h - the shipped policies, for the registry in sched/sched.c.
 * Each lives in its own file and is reached only through its ops table. */
#ifndef FS_SCHED_POLICIES_H
#define FS_SCHED_POLICIES_H

#include "../sched.h"

extern const struct sched_policy sched_policy_fifo;
extern const struct sched_policy sched_policy_best_fit;
extern const struct sched_policy sched_policy_spread;

#endif
