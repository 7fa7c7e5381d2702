/* faults_run.h - faults in the engine (private to sim/; observers read
 * their counts through observe.h): each node fails at
 * the times of a renewal process (models/faults.h: Weibull with the
 * scenario's shape, mean 1 / the node's rate x $.faults.scale); a failure
 * evicts every job on the node (a gang loses all of its nodes' work since
 * its checkpoint: sim_evict) and takes the node out of service for the
 * cause's repair time, after which its next failure is drawn.  Draws come
 * from the scenario's RNG_FAULTS stream in event order: deterministic. */
#ifndef FS_SIM_FAULTS_RUN_H
#define FS_SIM_FAULTS_RUN_H

#include <gsl/gsl_rng.h>

#include "observe.h"

struct fault_run {
    gsl_rng *rng;
    uint8_t *down;                    /* per node: out of service */
    fs_time *failed_at;               /* per node: its last failure, -1: none */
    evq_handle *next_fail;            /* per node: its pending failure, 0: none */
    uint64_t failures, interruptions; /* node failures; jobs they evicted */
    uint64_t repairs, psu_failures;   /* repairs of both kinds; supplies lost */
    uint64_t windows, planned;        /* maintenance windows; jobs they moved */
    int32_t maint_next;               /* the next node to maintain */
    double repair_h;                  /* sum of the repairs' durations */
    uint64_t by_cause[FAULT_MAX_CAUSES];
};

void faults_init(struct sim *s);   /* nothing without $.faults */
void faults_free(struct sim *s);
bool faults_event(struct sim *s, const struct event *ev); /* RET: true if it was a fault event */

#endif
