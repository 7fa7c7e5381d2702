/* summary.h - the run's results: summary.json, jobs.csv and the short human
 * summary on stderr.  All figures come from the metrics collector's exact
 * integrals and the jobs' recorded times.
 *
 * Definitions (also in README.md):
 * - the window is [0, end]: end is the horizon when the scenario has one,
 *   else the time the last job finished;
 * - utilization = allocated GPU-seconds / (fleet GPUs x window);
 * - wait = start - submit over every submitted job; a job not started by
 *   the end of the window counts end - submit, a lower bound (so a fleet
 *   that starves jobs cannot look fast); JCT = end - submit, over jobs that
 *   completed; percentiles interpolate linearly between order statistics
 *   (GSL's gsl_stats_quantile_from_sorted_data);
 * - energy is at the facility (wall energy x PUE); the PSU peak is the
 *   highest load of any node's usable PSU capacity (a fraction);
 * - makespan = the last completion time (0 when none completed).
 */
#ifndef FS_REPORTS_SUMMARY_H
#define FS_REPORTS_SUMMARY_H

#include <stdio.h>

#include "metrics.h"

struct run_stats {
    size_t submitted, completed, queued, running, future;
    size_t timed_out;       /* of completed: ended at their hard time limit */
    bool limits;            /* some job has a hard limit (job.h kill_at_limit) */
    size_t not_started;              /* submitted, never started */
    size_t nwait, njct;
    double wait_mean, wait_p50, wait_p95, wait_p99, wait_max;
    double jct_mean, jct_p50, jct_p95, jct_max;
    double makespan_s, window_s;
    double alloc_gpu_h, utilization;
    double queue_mean;
    uint64_t evictions, migrations;  /* preemptions; moves for consolidation */
    double lost_gpu_h;               /* GPU-hours they cost (sim.h: sim_evict) */
    double slo_attainment;           /* services: served / demanded tokens; 1 without */
    double latency_attainment;       /* services: time their latency objective held /
                                        time with demand (service.h); 1 without */
    double svc_down_s;               /* services: seconds with demand and no replica ready */
    int services;                    /* the scenario's services (0: the two attainments are vacuous) */
    double energy_kwh;               /* facility: wall energy x PUE */
    double psu_peak;                 /* highest node PSU load, fraction of usable capacity */
};

/* Every submitted job's wait in seconds into w (room for the workload's
 * batch jobs), unsorted: start - submit, or end - submit for a job not
 * started by the end.  RET: how many (the submitted jobs). */
size_t summary_waits(const struct sim *s, double *w);

/* Compute the figures of a finished run. */
void run_stats_compute(const struct sim *s, const struct metrics *m, struct run_stats *st);

struct run_result;

/* summary.json, with every row of the metric table (metric.h) under
 * "metrics".  RET: 0 or FS_ECANTCREAT on a write error. */
int summary_write_json(FILE *f, const struct run_result *r);

/* jobs.csv: one row per job of the workload. */
void summary_write_jobs(FILE *f, const struct sim *s);

/* The short human summary. */
void summary_print(FILE *f, const struct sim *s, const struct metrics *m,
                   const struct run_stats *st);

#endif
