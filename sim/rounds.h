/* rounds.h - round-based time-sharing, the mechanism of Gavel (Narayanan
 * et al., OSDI 2020, section 5; its artifact's scheduler.py in simulation).
 *
 * With a round-based policy (struct sched_policy.rounds) the engine does
 * not place jobs once.  Time is cut into rounds of $.scheduler.round_s
 * (360 s in Gavel).  At the start of each round:
 *
 *  1. The allocation (sched/alloc.h) over every job that has arrived and
 *     not finished is recomputed when jobs came or went, but at most once
 *     per $.scheduler.reallocate_s (1920 s, Gavel's
 *     minimum_time_between_allocation_resets); a recompute first settles
 *     each job's deficit and restarts the time counts below.
 *  2. Priorities: for job i and GPU type k, A[i][k] / (t[i][k] / T[k]),
 *     where t[i][k] is the time i ran on k since the last recompute (plus
 *     half a round, so a new job is not infinitely urgent) and T[k] the
 *     time all jobs ran on k; 0 when A is 0 or i came after the
 *     allocation.
 *  3. Assignment: type by type - fastest first (dense 16-bit TFLOPS) for
 *     heterogeneity-aware policies, in an order shuffled every round from
 *     the seed for agnostic ones (Gavel shuffles too) - the jobs not yet
 *     assigned, by priority, then deficit, then allocation, then arrival,
 *     each take their GPUs while the type has enough left.  FIFO policies
 *     skip jobs of priority 0.
 *  4. A running job assigned the type it is on keeps its GPUs and its
 *     completion event: nothing happens to it.  Any other running job is
 *     checkpointed and leaves (sim_evict as a migration); the assigned
 *     jobs not running then start on the lowest-id free GPUs of their
 *     type, first reloading for $.scheduler.migration_s (default 0: free)
 *     when they ran before.
 *
 * Progress is the engine's: fluid, at the job's throughput on its type
 * (models/perf: the measured job-type matrix where there is one), so a job
 * finishes mid-round at the exact time; Gavel runs whole steps, a
 * difference below one step per round.  Jobs arriving mid-round wait for
 * the next round; a round ends early when every running job has finished;
 * an idle cluster starts a round when a job arrives.
 *
 * The state belongs to the sim (s->rounds) and is freed with it.
 */
#ifndef FS_SIM_ROUNDS_H
#define FS_SIM_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

struct sim;
struct event;

/* Set up s->rounds when s's policy is round-based (else it stays NULL). */
void rounds_init(struct sim *s);
void rounds_free(struct sim *s);

/* Engine hooks.  rounds_event: RET true when ev was a round (handled).
 * rounds_arrived: job i was queued.  rounds_finished: job i completed (its
 * placement still set). */
bool rounds_event(struct sim *s, const struct event *ev);
void rounds_arrived(struct sim *s, size_t i);
void rounds_finished(struct sim *s, size_t i);

/* For tests: job i's priority on catalog type t as of the last round, and
 * the number of rounds run. */
double rounds_priority(const struct sim *s, size_t i, int t);
unsigned long rounds_count(const struct sim *s);

#endif
