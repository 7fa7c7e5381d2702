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
#include "../io/scenario.h"

enum sim_note {
    SIM_SUBMIT,  /* job queued */
    SIM_START,   /* job placed and running */
    SIM_FINISH,  /* job completed, GPUs given back */
    SIM_EVICT,   /* job preempted: told while it still holds its placement,
                    then its GPUs go back and it is queued again */
    SIM_WITHDRAW,/* a queued service replica taken back by its autoscaler */
    SIM_NODE,    /* node s->node_changed's power changed: it lost or regained a power
                    supply, or an elastic instance was requested or released; job is NULL */
    SIM_END,     /* the run is over; job is NULL; now is the end time */
};

struct sim;
struct svc_run;
struct fault_run;
struct elastic_run;
struct round_run;

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
    double base;         /* remaining work when this segment began, before
                            the reload (see sim_evict) */
    double reload;       /* seconds this segment spends reloading first */
    bool timeout;        /* the completion event is the job's hard limit
                            (job.h kill_at_limit), before its work is done */
};

#define SIM_MAX_OBSERVERS 8

struct sim {
    const struct scenario *sc;
    struct cluster *cl;
    struct sched sched;
    struct evq q;
    struct job *jobs;             /* the scenario's, in (submit, id) order */
    size_t njobs;
    /* Progress records, one per job that has started and not stopped for
     * good (running, or queued again after an eviction): job i's is
     * prog[slot[i]] (slot -1: none).  Freed slots are reused, so the
     * records number the jobs in flight, not the workload. */
    struct sim_progress *prog;
    int32_t *slot;
    size_t nprog, prog_cap;
    int32_t *free_slots;
    size_t nfree;
    const struct fleet_power **node_power; /* per node: its group's settings */
    size_t next_arrival;
    fs_time now;
    fs_time end;                  /* set when the run finishes */
    int interrupted;              /* the signal that stopped sim_run early
                                     (base/signals.h), else 0 */
    struct fs_err stop;           /* code != 0: an observer ended the run
                                     early (sim_fail), saying why */
    size_t nqueued, nrunning, ndone;
    size_t ntimedout;             /* of ndone: ended at their hard limit */
    uint64_t events;
    /* Preemption: jobs evicted, and the GPU-seconds it cost: work redone
     * since the last checkpoint plus the restarts' reload time. */
    uint64_t evictions, migrations;
    double lost_gpu_s;
    double *busy, *busy_w;        /* per node: busy GPUs (a share counts its
                                     part) and their watts; updated before
                                     observers hear of a start or stop */
    struct svc_run *svc;          /* per service (sim/service_run.h) */
    uint8_t *svc_ready;           /* per job: a replica that is serving */
    struct fault_run *faults;     /* sim/faults_run.h; NULL without $.faults */
    struct elastic_run *elastic;  /* sim/elastic.h; NULL unless billed elastic or spot */
    struct round_run *rounds;     /* sim/rounds.h; NULL unless the policy is
                                     round-based */
    int32_t node_changed;         /* the node of the last SIM_NODE */
    bool *full_ok;                /* per node: all GPUs at full draw fit its PSUs */
    int *psus_ok;                 /* per node: healthy PSUs now (its group's, less
                                     PSU faults under repair) */
    struct sim_observer obs[SIM_MAX_OBSERVERS];
    int nobs;
    /* Optional: called about every 64k events with the run's progress. */
    void (*progress)(void *ctx, fs_time now, fs_time horizon);
    void *progress_ctx;
};

/* A simulation of sc, ready to run.  RET: the new sim (caller frees). */
struct sim *sim_new(const struct scenario *sc);
void sim_free(struct sim *s);

/* Node n's power now, on its healthy PSUs, with extra_gpus more GPUs busy
 * drawing extra_w each (0, 0: as it is): busy GPUs at their jobs' draw,
 * the rest idle.  OUT *gpu_w (may be NULL): its GPUs' watts in all. */
struct node_power sim_node_power(const struct sim *s, int32_t n, double extra_gpus, double extra_w,
                                 double *gpu_w);

/* sim_node_power's PSU load. */
double sim_psu_load(const struct sim *s, int32_t n, double extra_gpus, double extra_w);

/* Node n's healthy PSUs changed: recompute what power_ok may skip. */
void sim_power_changed(struct sim *s, int32_t n);

/* Tell every observer of a state change of j at s->now. */
void sim_publish(struct sim *s, enum sim_note note, const struct job *j);

/* End the run early: sim_run stops before the next batch of events, as
 * for a signal (no SIM_END), and s->stop holds code and the message.  The
 * first call wins.  RET: code. */
int sim_fail(struct sim *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Register an observer (at most SIM_MAX_OBSERVERS). */
void sim_observe(struct sim *s, struct sim_observer o);

/* Run to the horizon, or until every job has finished when there is none.
 * A SIGINT or SIGTERM caught (base/signals.h), or sim_fail, stops it
 * before the next batch of events: s->interrupted or s->stop is set,
 * observers get no SIM_END, and what they wrote is incomplete and is to
 * be discarded. */
void sim_run(struct sim *s);

/* Job j was just placed (sched_place): start it at s->now - its progress,
 * power and SIM_START - as a scheduling cycle would. */
void sim_start(struct sim *s, struct job *j);

/* Change running job i's rate at s->now (settles its progress first). */
void sim_set_rate(struct sim *s, size_t i, double rate);

/* Preempt running job i at s->now: its progress rolls back to its last
 * checkpoint (s->sc->kinds[kind].checkpoint_s of running since its
 * segment began; 0: back to the start), the GPU time since then is counted
 * lost, observers get SIM_EVICT, and the job is queued again.  When it
 * starts again it first spends restart_s reloading (counted lost too).
 * A migration (migrate true) checkpoints first: it loses only the reload,
 * and counts in s->migrations instead of s->evictions. */
void sim_evict(struct sim *s, size_t i, bool migrate);

/* Evict every job with a GPU on node n (sim_evict with migrate).
 * RET: how many. */
size_t sim_evict_node(struct sim *s, int32_t n, bool migrate);

/* End running job i now: its GPUs go back (state JOB_DONE), observers get
 * SIM_FINISH.  A completion calls it; so does a service scaling down. */
void sim_stop(struct sim *s, size_t i);

/* Reference GPU-seconds job i still needs, settled to s->now. */
double sim_remaining(const struct sim *s, size_t i);

/* Watts each GPU of running job i draws (its work on its placement, under
 * any power cap). */
double sim_gpu_w(const struct sim *s, size_t i);

#endif
