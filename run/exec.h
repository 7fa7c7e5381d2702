/* exec.h - the one executor for many independent runs: sweep points,
 * plan seeds and fleets, compare runs.  A caller describes n tasks by a
 * function that computes task i into bytes; the executor runs them in this
 * process (one job), in forked worker processes (-j N), or on MPI ranks
 * (exec_mpi_run, a build with `make MPI=1`), and hands back every result
 * by its index.  Every task's bytes go through the same record whatever
 * the executor, and results are kept by index, never by arrival, so what
 * the caller writes from them is byte-identical for -j 1, -j N and MPI.
 *
 * Tasks are handed out lowest index first to whichever worker is free.
 * After a task fails no new one is handed out (every lower one already
 * was), so the failure reported is always the lowest failing task's, as
 * with one job.
 *
 * A forked worker inherits the caller's memory as it was when exec_run
 * began: ctx may point at anything the tasks read.  The caller owns the
 * results array and frees each one's bytes with exec_results_free.
 */
#ifndef FS_RUN_EXEC_H
#define FS_RUN_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/base.h"

enum { EXEC_MAX_JOBS = 1024 };

/* A task's result: bytes the task appended (exec_put). */
struct exec_out {
    char *data;
    size_t len, cap;
};

/* Append n bytes of p to o. */
void exec_put(struct exec_out *o, const void *p, size_t n);

struct exec_tasks {
    size_t n;
    void *ctx;
    /* Compute task i into out.  Runs in a worker.  RET: 0, or a code (an
     * FS_E* code, or any the caller defines) with err's message filled:
     * the task failed. */
    int (*run)(void *ctx, size_t i, struct exec_out *out, struct fs_err *err);
    /* Optional, in this process, as each successful result comes back
     * (in completion order); done counts them. */
    void (*progress)(void *ctx, size_t i, const struct exec_out *res, size_t done);
};

/* Run t's tasks with jobs workers (1: here, in order; more: forked
 * processes, at most one per task).  OUT res[t->n]: each finished task's
 * bytes (zeroed first); *failed: the lowest failing task, or t->n.
 * RET: 0, the lowest failing task's code with its message in err, or
 * FS_EINTERNAL when a worker died. */
int exec_run(const struct exec_tasks *t, int jobs, struct exec_out *res, size_t *failed, struct fs_err *err);

/* Free the bytes of res[0..n). */
void exec_results_free(struct exec_out *res, size_t n);

/* The number of CPUs online: the default -j. */
int exec_cpus(void);

/* --- MPI (exec_mpi.c; without FS_MPI, one rank and no MPI) ------------------ */

/* Join the MPI job when the process was started by mpirun (MPI_Init).
 * OUT *rank, *nranks: 0 and 1 when not. */
void exec_mpi_begin(int *argc, char ***argv, int *rank, int *nranks);

/* Whether every rank is ready: a collective every rank calls, with its own
 * readiness.  RET: true when all are. */
bool exec_mpi_agree(bool ready);

/* Run t's tasks over the ranks: rank 0 hands them out and keeps the
 * results (as exec_run), every other rank computes.  Every rank calls it
 * with the same tasks.  RET: on rank 0, as exec_run; on the others, 0. */
int exec_mpi_run(const struct exec_tasks *t, int rank, struct exec_out *res, size_t *failed,
                 struct fs_err *err);

/* MPI_Finalize, when exec_mpi_begin joined a job (again: nothing). */
void exec_mpi_end(void);

/* --- what exec.c and exec_mpi.c share ---------------------------------------- */

/* What a worker sends back: this header, then len bytes of result. */
struct exec_head {
    int64_t task;               /* -1: a worker's first request, no result */
    uint64_t len;
    struct fs_err err;          /* err.code: the task's code, 0 when it succeeded */
};

/* How a master reaches its workers. */
struct exec_link {
    int nworkers;
    void *ctx;
    /* Wait for the next message of any worker: a result (its bytes into
     * *out, which the master then owns), or its first request (task -1).
     * OUT *worker.  RET: 0 or FS_EINTERNAL with err filled. */
    int (*recv)(void *ctx, int *worker, struct exec_head *h, struct exec_out *out, struct fs_err *err);
    /* Tell worker which task to compute next, or -1: stop.  RET: 0 or
     * FS_EINTERNAL. */
    int (*send)(void *ctx, int worker, int64_t task, struct fs_err *err);
};

/* Hand out every task to the workers as they ask until each has been
 * told to stop, keeping each result by its index.  RET: as exec_run. */
int exec_master(const struct exec_tasks *t, const struct exec_link *link, struct exec_out *res,
                size_t *failed, struct fs_err *err);

/* Compute task i into out and fill h (a worker's step). */
void exec_compute(const struct exec_tasks *t, int64_t i, struct exec_head *h, struct exec_out *out);

#endif
