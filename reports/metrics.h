/* metrics.h - the metrics collector: a sim observer that integrates
 * piecewise-constant quantities exactly between events (GPU-microseconds
 * allocated per type, queue-length microseconds) and streams timeseries.csv
 * rows as simulated time crosses each interval boundary.
 *
 * Every figure is an exact integral: a timeseries row holds the mean of each
 * quantity over its interval, not a sample at one instant.
 *
 * The caller owns the collector (metrics_free) and the FILE it writes rows
 * to, which may be NULL for no timeseries.
 */
#ifndef FS_REPORTS_METRICS_H
#define FS_REPORTS_METRICS_H

#include <stdio.h>

#include "energy.h"

/* Exact integer integrals too wide for 64 bits (a GCC/Clang extension). */
__extension__ typedef __int128 metrics_wide;

/* Milli-GPUs job j holds while it runs: GPUs x share. */
static inline int64_t metrics_job_milli(const struct job *j) { return (int64_t)j->gpus * j->milli; }

struct metrics {
    const struct scenario *sc;
    FILE *ts;                              /* timeseries.csv, or NULL */
    fs_time last;                          /* integrals are settled to here */
    int64_t alloc[GPU_MAX_TYPES];          /* milli-GPUs allocated now, per type */
    int64_t queue;                         /* jobs queued now */
    int64_t queue_max;
    /* Whole-run integrals, in milli-GPU-microseconds (128-bit: a 100k-GPU
     * fleet over a year is 3e21) and job-microseconds. */
    metrics_wide alloc_us[GPU_MAX_TYPES];
    int64_t queue_us;
    /* The current timeseries interval [bucket_start, bucket_start + width). */
    fs_time bucket_start, width;
    int64_t rows;                        /* intervals closed so far */
    int64_t max_rows;                    /* the most the run may close:
                                            SCENARIO_MAX_TS_ROWS unless the
                                            caller lowers it (run_spec) */
    metrics_wide bucket_alloc_us[GPU_MAX_TYPES];
    int64_t bucket_queue_us;
    int64_t capacity[GPU_MAX_TYPES];       /* GPUs per type in the fleet */
    /* GPU-microseconds each team's jobs held on each type, settled when a
     * run segment ends (finish, eviction, the end of the run):
     * team_us[team * ntypes + type].  A job evicted from one type and
     * restarted on another is charged each type for its own segment. */
    double *team_us;
    int ntypes;
    struct energy en;                      /* power, energy and PSU load */
    double done_gpu_h;                     /* reference GPU-hours of the jobs done
                                              by the end, summed in job order at
                                              its SIM_END (reports/costing.c) */
};

/* A collector for the run s, writing timeseries rows (header first) to ts. */
struct metrics *metrics_new(const struct sim *s, FILE *ts);
void metrics_free(struct metrics *m);

/* Share of type t's GPU time allocated over [0, end]; 0 when end is 0. */
double metrics_utilization(const struct metrics *m, int t, fs_time end);

/* The observer to register with sim_observe. */
struct sim_observer metrics_observer(struct metrics *m);

#endif
