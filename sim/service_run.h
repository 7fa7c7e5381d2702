/* service_run.h - inference services in the engine (private to sim/;
 * observers read their figures through observe.h):
 * each service's autoscaler runs every as.tick (an engine event), submits
 * replicas into its slots (scenario.h) and stops the newest when it scales
 * down; a started replica serves after as.cold_start (another event).
 * Demand, the ready replicas' capacity and the M/M/c latency are accounted
 * exactly between events, since each is constant in between.
 *
 * A replica is a job of its service's class (latency or standard) that
 * never finishes by itself: it runs at rate 0 until scaled down, evicted or
 * the run ends.  Its GPU time counts in utilization, energy and cost like
 * any job's; its wait and run time stay out of the jobs' statistics. */
#ifndef FS_SIM_SERVICE_RUN_H
#define FS_SIM_SERVICE_RUN_H

#include "observe.h"

/* What a service did over the run. */
struct svc_run {
    struct service_state st;  /* the autoscaler's state and service_account's integrals */
    fs_time last;             /* accounted up to here */
    struct llm_operating *op; /* per catalog type: a replica's operating point
                                 on the service's replica GPUs (service_replica),
                                 zero where the type cannot hold one */
    int gpus;                 /* GPUs per replica */
    double capacity;          /* tokens/s of the ready replicas */
    int slots;                /* batch slots of the ready replicas */
    int ready, live;          /* replicas ready; submitted and not stopped */
    int running, max_running; /* replicas holding GPUs (starting or ready): now, the most */
    double ttft_slots;        /* sum of batch x no-queue TTFT of the ready replicas */
    double latency_tokens;    /* sum of latency x tokens served: / served = mean */
    double demand_s;          /* seconds with demand */
    double met_s;             /* of those, seconds its latency objective held
                                 (service_latency_met on each stretch where
                                 demand and the ready replicas are constant) */
    double within_tokens;     /* tokens served while it held */
    struct svc_row row;       /* the timeseries row being accounted */
    fs_time row_end;          /* where it ends */
    struct svc_row *done;     /* rows closed and not yet taken, a FIFO */
    size_t ndone, done_head, done_cap;
    double down_s;            /* seconds with demand and no ready replica */
    double replica_s;         /* replica-seconds holding GPUs (a queued one holds none) */
};

void svc_init(struct sim *s);     /* after the queue and jobs exist */
void svc_free(struct sim *s);
bool svc_event(struct sim *s, const struct event *ev); /* RET: true if it was a service event */
void svc_started(struct sim *s, size_t i);             /* replica i was placed */
void svc_evicted(struct sim *s, size_t i);             /* replica i is being evicted */
void svc_end(struct sim *s);                           /* account to s->now, the end */

#endif
