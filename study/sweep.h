/* sweep.h - fleetsim sweep's parts: the grid, its points and running them
 * on the executor (study/sweep_grid.c: run/exec.h, in this process, forked
 * processes or MPI ranks), and the command and its outputs
 * (tools/cmd_sweep.c).
 *
 * A sweep is a grid of points; any process that has loaded the grid can
 * compute any point by its index.  The executor keeps one fixed-size
 * record per point, by index; the outputs are written from the records in
 * point order, so they do not depend on how the points were distributed.
 *
 * The sweep owns everything it points to except what it borrows from its
 * grid tree (root); sweep_free frees it all.
 */
#ifndef FS_STUDY_SWEEP_H
#define FS_STUDY_SWEEP_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/jpath.h"
#include "../run/exec.h"
#include "../run/run.h"

enum { SWEEP_MAX_POINTS = 1000000, SWEEP_MAX_PARAMS = 64 };

struct sweep_param {
    const char *path;           /* as the grid writes it (borrowed) */
    struct jpath steps;         /* path parsed (base/jpath.h) */
    const cJSON *values;        /* a non-empty array (borrowed) */
    int nvalues;
};

/* A point's figures, as the master keeps them. */
struct sweep_row {
    uint64_t seed;              /* the seed the run used */
    double v[METRIC_MAX];     /* metric_values */
};

struct sweep {
    const char *grid;           /* the grid file, for messages */
    char *scenario;             /* the scenario's path */
    cJSON *root, *base;         /* the grid; the scenario as read */
    struct sweep_param *params;
    int nparams;                /* at most SWEEP_MAX_PARAMS */
    uint64_t *seeds;            /* nseeds 0: the scenario's own seed */
    int nseeds;
    size_t npoints;
    struct scenario_options so; /* the caller sets catalog before sweep_load */
    struct sweep_row *rows;     /* npoints, filled by the master */
};

/* --- the grid (study/sweep_grid.c) ------------------------------------------------ */

/* Read the grid file and its scenario, and apply every point's values to a
 * copy of the scenario (so a bad path fails before any run).
 * RET: 0, FS_ENOINPUT or FS_EDATA with err filled ("GRID: $.seeds[1]: ...",
 * "GRID: parameter "fleet[5].nodes": index 5 is out of range ..."). */
int sweep_load(struct sweep *sw, const char *grid, struct fs_err *err);
void sweep_free(struct sweep *sw);

/* Point i's value index of each parameter (vi[nparams]) and its seed index
 * (*si; 0 without seeds). */
void sweep_indexes(const struct sweep *sw, size_t i, int vi[SWEEP_MAX_PARAMS], int *si);

/* "fleet[0].nodes=4, scheduler.policy=\"flux\", seed 2" into buf. */
void sweep_describe(const struct sweep *sw, size_t i, char *buf, size_t size);

/* Run every point on the executor: jobs forked workers (1: here), or the
 * MPI ranks when nranks > 1 (every rank calls it); keep each point's
 * figures in sw->rows (on rank 0).  Progress goes to stderr unless quiet.
 * RET: 0, the lowest failing point's code with its message ("GRID: point 3
 * (fleet[0].nodes=0): ..."), or FS_EINTERNAL (a worker died). */
int sweep_run(struct sweep *sw, int jobs, int rank, int nranks, bool quiet, struct fs_err *err);

/* --- the outputs (study/sweep_write.c) ------------------------------------------- */

enum { SWEEP_CHARTS = 3 }; /* p95 wait, monthly cost, utilization */

/* results.csv, results.json and, per chart, NAME.csv, NAME.gp and (with
 * gnuplot) NAME.png into set, then committed.  RET: 0 or FS_E*. */
struct outset;
int sweep_write(const struct sweep *sw, struct outset *set, struct fs_err *err);

#endif
