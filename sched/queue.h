/* queue.h - the sched's job queue, kept by placement class (internal to
 * sched/; sched.h is the interface).
 *
 * Jobs that ask for the same thing - GPUs, share, CPU, host and GPU
 * memory, allowed types, and, when the policy filters (filter,
 * type_filter), also the throughput profile, kind and class that filters
 * read - are one class.  Whether a job can start depends only on its class
 * and the cluster, and a failed attempt changes nothing, so:
 *
 *   - within one scan (where capacity only shrinks), once a class's first
 *     job in queue order cannot start, none of its jobs can: the class
 *     sleeps;
 *   - a sleeping class can start again only on a node given back since it
 *     failed: the sched wakes it (squeue_wake) when such a node could host
 *     it, and scans only the awake classes, merged in queue order.
 *
 * Each class keeps its jobs in queue order; the queue order of the whole
 * sched is queue_less, then FIFO (submit time, then id: a total order, the
 * ids of a workload being distinct).  The queue owns its arrays, never
 * the jobs.
 */
#ifndef FS_SCHED_QUEUE_H
#define FS_SCHED_QUEUE_H

#include "sched.h"

struct squeue *squeue_new(void);
void squeue_free(struct squeue *q);

/* Queue j in its class (j->qclass set).  A class that was empty
 * is awake. */
void squeue_add(struct sched *s, struct job *j);

/* Take queued j out of its class, wherever it stands. */
void squeue_remove(struct sched *s, struct job *j);

/* Is j's class asleep (its first job failed, and nothing that could host
 * it was given back since)? */
bool squeue_asleep(const struct sched *s, const struct job *j);

/* Put j's class to sleep. */
void squeue_sleep(struct sched *s, const struct job *j);

/* Per class: when sched.c last tried to make room for it (its
 * throttles): the time of the last consolidation attempt, and the
 * sched's count of cluster changes at the last failed preemption. */
struct squeue_room {
    fs_time consolidated;
    uint64_t preempted;
};
struct squeue_room *squeue_room(struct sched *s, const struct job *j);

/* Wake every sleeping class whose first job can_wake(s, job) accepts.
 * RET: how many woke. */
size_t squeue_wake(struct sched *s, bool (*can_wake)(struct sched *s, const struct job *j));

/* Merge in queue order: every non-empty class (all), or the awake ones.
 * squeue_next gives the first job of the first class in queue order, or
 * NULL at the end; after each, say what became of it: squeue_started
 * (it left the queue; its class goes on with its next job) or
 * squeue_failed (its class sleeps and leaves the merge).  squeue_end
 * finishes (early, under strict order) and forgets which classes were
 * awake: a class still awake has no job left to try.  One merge at a
 * time. */
void squeue_begin(struct sched *s, bool all);
struct job *squeue_next(struct sched *s);
void squeue_started(struct sched *s);
void squeue_failed(struct sched *s);
void squeue_end(struct sched *s);

/* Call fn(ctx, j) for every queued job in queue order, until it returns
 * false.  Not during a merge. */
void squeue_each(struct sched *s, bool (*fn)(void *ctx, const struct job *j), void *ctx);

#endif
