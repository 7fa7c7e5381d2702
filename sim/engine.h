/* engine.h - the discrete-event simulation of a cluster over time.
 *
 * The engine pops every event due at `now` into a ready list before running
 * any handler; events that handlers schedule for `now` run after, in seq
 * order.  When the queue holds nothing more for `now`, one scheduling cycle
 * places what it can.  Arrivals are streamed: only the next one is queued.
 *
 * Progress is fluid: a running job has remaining work (reference
 * GPU-seconds) and a rate; sim_set_rate settles progress to `now`, changes
 * the rate and reschedules the job's single completion event.
 *
 * The engine publishes what happens to observers (sim_observe) and never
 * calls into reports/.
 *
 * Ownership: the caller owns the scenario and must keep it alive for the
 * sim's life; the sim mutates the scenario's jobs (their state and
 * placement).  sim_free releases the rest.
 */
#ifndef FS_SIM_ENGINE_H
#define FS_SIM_ENGINE_H

#include "../sched/sched.h"
#include "evq.h"
#include "scenario.h"

enum sim_note {
    SIM_SUBMIT,  /* job queued */
    SIM_START,   /* job placed and running */
    SIM_FINISH,  /* job completed, GPUs given back */
    SIM_END,     /* the run is over; job is NULL; now is the end time */
};

struct sim;

struct sim_observer {
    void *ctx;
    /* Called right after each state change, with s->now its time. */
    void (*notify)(void *ctx, struct sim *s, enum sim_note note, const struct job *j);
};

/* Engine-side state of a job: fluid progress. */
struct sim_progress {
    double remaining;    /* reference GPU-seconds left at `settled` */
    double rate;         /* reference GPU-seconds per second; 0 when not running */
    fs_time settled;
    evq_handle done;     /* the completion event, 0 when none */
    double gpu_w;        /* watts each of its GPUs draws while it runs */
};

#define SIM_MAX_OBSERVERS 8

struct sim {
    const struct scenario *sc;
    struct cluster *cl;
    struct sched sched;
    struct evq q;
    struct job *jobs;             /* the scenario's, in (submit, id) order */
    size_t njobs;
    struct sim_progress *prog;    /* one per job */
    const struct fleet_power **node_power; /* per node: its group's settings */
    size_t next_arrival;
    fs_time now;
    fs_time end;                  /* set when the run finishes */
    size_t nqueued, nrunning, ndone;
    uint64_t events;
    struct sim_observer obs[SIM_MAX_OBSERVERS];
    int nobs;
    /* Optional: called about every 64k events with the run's progress. */
    void (*progress)(void *ctx, fs_time now, fs_time horizon);
    void *progress_ctx;
};

/* A simulation of sc, ready to run.  RET: the new sim (caller frees). */
struct sim *sim_new(const struct scenario *sc);
void sim_free(struct sim *s);

/* Register an observer (at most SIM_MAX_OBSERVERS). */
void sim_observe(struct sim *s, struct sim_observer o);

/* Run to the horizon, or until every job has finished when there is none. */
void sim_run(struct sim *s);

/* Change running job i's rate at s->now (settles its progress first). */
void sim_set_rate(struct sim *s, size_t i, double rate);

/* Reference GPU-seconds job i still needs, settled to s->now. */
double sim_remaining(const struct sim *s, size_t i);

#endif
