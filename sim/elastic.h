/* elastic.h - an elastic cloud fleet in the engine (private to sim/;
 * observers read what it held through observe.h): the
 * scenario's fleet is the pool of instances a cloud would rent (one node =
 * one instance of the provider's size), and only those jobs need are held.
 *
 * Under $.cost.billing "cloud_elastic" or "cloud_spot" every node starts
 * released (its GPUs out of the cluster).  After each scheduling cycle the
 * controller walks the queue in order and requests instances for the
 * queued jobs that the instances already on their way cannot cover: per
 * job, the first GPU type it allows of which instances remain, as many as
 * its GPUs need.  A requested instance is billed from the request and
 * usable provision_s later; one that has run no job for scale_down_s is
 * released.  Each held instance is billed cost_elastic_billed(held,
 * increment, minimum) (models/cost.h).
 *
 * Spot instances are also interrupted by a Poisson process of rate
 * cost_spot_rate(spot_share_month) per held instance, drawn from the
 * RNG_SPOT stream: every job on the instance is evicted (sim_evict: back to
 * its last checkpoint), and the instance released; the controller asks for
 * another when the jobs queue again.
 *
 * Determinism: decisions follow the queue order and node ids; draws come
 * in event order. */
#ifndef FS_SIM_ELASTIC_H
#define FS_SIM_ELASTIC_H

#include <gsl/gsl_rng.h>

#include "observe.h"

enum elastic_state { ELASTIC_OFF, ELASTIC_PENDING, ELASTIC_ON };

struct elastic_run {
    enum cost_hold hold;
    fs_time provision, increment, minimum, scale_down;
    double spot_rate;                 /* interruptions per instance-second */
    gsl_rng *rng;                     /* RNG_SPOT; NULL unless spot */
    uint8_t *state;                   /* per node: enum elastic_state */
    fs_time *since;                   /* per node: requested at */
    double *held_s;                   /* per node: seconds held in all, request to release */
    fs_time *idle_since;              /* per node, ON: idle since; -1: busy */
    evq_handle *idle_ev, *spot_ev;    /* per node: its pending events, 0: none */
    int32_t *dirty;                   /* nodes a job left since the last cycle */
    uint8_t *is_dirty;
    int32_t ndirty;
    /* What was held and billed, per GPU type. */
    double held_gpu_s[GPU_MAX_TYPES];     /* GPU-seconds held, request to release */
    double billed_gpu_s[GPU_MAX_TYPES];   /* GPU-seconds billed */
    uint64_t requests, releases, interruptions; /* instances; spot interruptions */
    int32_t peak;                     /* most instances held at once */
    int32_t held;                     /* instances held now */
};

void elastic_init(struct sim *s);   /* nothing unless the hold is elastic or spot */
void elastic_free(struct sim *s);
bool elastic_event(struct sim *s, const struct event *ev); /* RET: true if it was its event */
void elastic_cycle(struct sim *s);  /* after each scheduling cycle */
void elastic_end(struct sim *s);    /* at the end: bill what is still held */
/* Whether node n draws power: a fixed fleet's always do; in an elastic
 * pool only the instances requested or held (a released one is not ours). */
bool elastic_powered(const struct sim *s, int32_t n);

#endif
