/* sched_util.h - shared by tests/test_sched.c and tests/test_queue.c: the
 * shipped catalog, jobs and a one-type fleet under a policy. */
#ifndef FS_TESTS_SCHED_UTIL_H
#define FS_TESTS_SCHED_UTIL_H

#include "../sched/sched.h"

/* The shipped catalog and three of its types, loaded by su_setup. */
extern struct gpu_catalog *su_cat;
extern int su_h100, su_a100, su_rtx;
int su_setup(void);
int su_teardown(void);

/* Job id, submitted at id microseconds, asking for gpus whole GPUs, 100
 * reference (A100) GPU-seconds of work, not placed. */
struct job su_job(int64_t id, int gpus);

/* Take or give back k whole GPUs on node n. */
void su_take(struct cluster *cl, int32_t n, int k);
void su_give(struct cluster *cl, int32_t n, int k);

/* A fleet of n nodes of 8 GPUs of type t, with the policy called name. */
struct sched *su_sched(const char *name, int t, int n);
void su_free(struct sched *s);

/* One scheduling cycle.  RET: the jobs it started. */
size_t su_cycle(struct sched *s);

#endif
