/* energy.h - power, energy and PSU load over a run, kept by the metrics
 * collector.  Power is piecewise constant between events, so energy is an
 * exact integral: joules += watts x seconds at every state change.
 *
 * Per node it keeps the PSU load (DC power over usable PSU capacity,
 * models/node.h) and, weighted by time, its peak, a histogram in 1 % bins
 * (for the p99), the seconds above 80 % and 100 %, and the number of
 * overload events (moves from <= 100 % to above).
 */
#ifndef FS_REPORTS_ENERGY_H
#define FS_REPORTS_ENERGY_H

#include "../sim/engine.h"

#define PSU_BINS 201 /* 0..199 % in 1 % bins, then everything above */

struct psu_stat {
    double load;            /* now */
    fs_time since;          /* when load last changed */
    double peak;
    int64_t above80_us, above100_us;
    uint32_t overloads;
    int64_t hist_us[PSU_BINS];
};

/* The fleet's PSU figures, from every node's (energy_finish): the one
 * place the summary, the reports and the metric table read them. */
struct psu_fleet {
    double peak;                 /* the highest node's peak load */
    double p99;                  /* the highest node's p99 load */
    double above80_s, above100_s; /* node-seconds above 80 % and 100 % */
    uint64_t overloads;          /* overload events, all nodes */
};

struct energy {
    const struct sim *s;
    int32_t nnodes;
    struct node_power *np;   /* per node: electrical state now */
    double *node_gpu_w;      /* per node: watts of all its GPUs now */
    struct psu_stat *psu;
    double gpu_w, dc_w, wall_w;          /* fleet totals now */
    double gpu_w_type[GPU_MAX_TYPES];
    double gpu_j, dc_j, wall_j;          /* whole-run integrals */
    double bucket_gpu_j_type[GPU_MAX_TYPES];
    double bucket_psu_max;               /* highest node PSU load this interval */
    struct psu_fleet fleet;              /* set by energy_finish */
};

void energy_init(struct energy *e, const struct sim *s);
void energy_fini(struct energy *e);

/* Integrate the current power over dt microseconds. */
void energy_advance(struct energy *e, int64_t dt);

/* Job j started or stopped at time now: recompute its nodes. */
void energy_job(struct energy *e, const struct job *j, fs_time now);

/* Node n's power state changed (a power supply lost or regained):
 * recompute its power and PSU load from now. */
void energy_node(struct energy *e, int32_t n, fs_time now);

/* Start a new timeseries interval. */
void energy_new_bucket(struct energy *e);

/* Close every node's PSU statistics at the end time and sum them up
 * into e->fleet. */
void energy_finish(struct energy *e, fs_time end);

/* p99 of node n's PSU load over the run (upper edge of its 1 % bin). */
double energy_psu_p99(const struct energy *e, int32_t n);

#endif
