/* fill_grid.h - `fleetsim fill`: the FGD paper's fill experiment
 * (sim/fill.h) for policies x seeds on an openb node list and pod list,
 * run on the executor (run/exec.h) and written as fill.csv,
 * fill-median.csv and a gnuplot chart (fill_write.c). */
#ifndef FS_STUDY_FILL_GRID_H
#define FS_STUDY_FILL_GRID_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../sim/fill.h"

#define FILL_MAX_SEEDS 10000
#define FILL_MAX_POLICIES 32

/* The grid: every policy with every seed, run k = policy * nseeds + seed. */
struct fill_grid {
    const struct sched_policy *policy[FILL_MAX_POLICIES];
    int npolicies;
    uint64_t *seeds;
    int nseeds;
};

/* The grid's runs once made. */
struct fill_runs {
    const struct fill_grid *g;
    struct fill_spec base;     /* the fleet and pods every run shares */
    struct fill_result *res;   /* [policy * nseeds + seed] */
};

/* Read the node list, the pod list and the catalog, run g with jobs
 * workers and write the outputs into dir, committed whole or not at all
 * (reports/output.h); unless quiet, a summary on stderr.  RET: 0 or an
 * FS_E* code with err set (the lowest failing run's). */
int fill_grid_run(const char *nodes, const char *pods, const char *catalog, const struct fill_grid *g,
                  const char *dir, int jobs, bool quiet, struct fs_err *err);

/* fill.csv, fill-median.csv, fill.gp and, with gnuplot, fill.svg into dir.
 * OUT *drawn: the chart was rendered.  RET: 0 or an FS_E* code. */
int fill_write(const struct fill_runs *w, const char *dir, bool *drawn, struct fs_err *err);

/* The median unallocated share at 90 and 100 % arrived, per policy. */
void fill_print(FILE *out, const struct fill_runs *w, int nnodes, double wall, int jobs);

#endif
