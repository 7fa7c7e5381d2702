/* sweep.h - fleetsim sweep's parts: the grid and its points
 * (study/sweep_grid.c), handing the points out to workers
 * (run/exec.c: in this process, forked processes, or MPI ranks with
 * run/exec_mpi.c), and the command and its outputs (tools/cmd_sweep.c).
 *
 * A sweep is a grid of points; any process that has loaded the grid can
 * compute any point by its index.  A master hands point indices to workers
 * on request and keeps one fixed-size result record per point; the outputs
 * are written from the records in point order, so they do not depend on
 * how the points were distributed.
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

#include "../run/run.h"

enum { SWEEP_MAX_POINTS = 1000000, SWEEP_MAX_PARAMS = 64, SWEEP_MAX_JOBS = 1024 };

/* One step of a key path: an object key, or (key NULL) an array index. */
struct sweep_step {
    char *key;
    long index;
};

struct sweep_param {
    const char *path;           /* as the grid writes it (borrowed) */
    struct sweep_step *steps;
    int nsteps;
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

/* What a worker sends back for a point: plain data, the same bytes on every
 * process of a build (records go through pipes and MPI as bytes). */
struct sweep_result {
    int32_t point;              /* -1: a worker's first request, no result yet */
    int32_t code;               /* 0, or an FS_E* code with msg saying why */
    uint64_t seed;
    double v[METRIC_MAX];
    char msg[1024];
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

/* Compute point i: apply its values to a copy of the scenario, run it in
 * memory and fill res (res->code and res->msg, which names the grid, the
 * point and its values, on failure). */
void sweep_point(const struct sweep *sw, size_t i, struct sweep_result *res);

/* --- handing out the points (run/exec.c) ----------------------------------- */

/* How a master reaches its workers. */
struct sweep_link {
    int nworkers;
    void *ctx;
    /* Wait for the next message of any worker: a result, or its first
     * request (res->point -1).  OUT *worker: who sent it.
     * RET: 0 or FS_EINTERNAL (a worker died) with err filled. */
    int (*recv)(void *ctx, int *worker, struct sweep_result *res, struct fs_err *err);
    /* Tell worker which point to compute next, or -1: stop.
     * RET: 0 or FS_EINTERNAL. */
    int (*send)(void *ctx, int worker, int32_t point, struct fs_err *err);
};

/* Hand out every point, lowest index first, to the workers as they ask,
 * until each has been told to stop, and keep each result in sw->rows.
 * After a failure no new point is handed out (every lower one already
 * was), so the failure reported is always the lowest failing point's, as
 * with one worker.  Progress goes to stderr unless quiet.
 * RET: 0, the lowest failing point's code with its message in err, or
 * FS_EINTERNAL. */
int sweep_master(struct sweep *sw, const struct sweep_link *link, bool quiet, struct fs_err *err);

/* Every point in this process, in order, up to the first that fails.
 * RET: as sweep_master. */
int sweep_run_here(struct sweep *sw, bool quiet, struct fs_err *err);

/* The points in nworkers forked processes that ask for them over pipes
 * (sweep_master); a worker that dies stops the sweep with FS_EINTERNAL
 * and the others are ended.  RET: as sweep_master. */
int sweep_run_local(struct sweep *sw, int nworkers, bool quiet, struct fs_err *err);

/* --- MPI (run/exec_mpi.c; without FS_MPI, one rank and no MPI) ----------------- */

/* Join the MPI job when the process was started by mpirun (MPI_Init).
 * OUT *rank, *nranks: 0 and 1 when not. */
void sweep_mpi_begin(int *argc, char ***argv, int *rank, int *nranks);

/* Whether every rank is ready: a collective every rank calls, with its own
 * readiness.  RET: true when all are. */
bool sweep_mpi_agree(bool ready);

/* Distribute the points over the ranks: rank 0 is the master
 * (sweep_master), every other rank a worker.  RET: on rank 0,
 * sweep_master's; on the others, 0. */
int sweep_mpi_run(struct sweep *sw, int rank, bool quiet, struct fs_err *err);

/* MPI_Finalize, when sweep_mpi_begin joined a job (again: nothing). */
void sweep_mpi_end(void);

#endif
