/* exec_mpi.c - the executor over MPI ranks (exec.h), in a build with
 * FS_MPI (`make MPI=1`, compiled with mpicc); without it, one rank and no
 * MPI at all.
 *
 * Rank 0 is the master and computes nothing: it runs exec_master with a
 * link whose messages are MPI messages.  Every other rank is a worker: it
 * sends a request (tag EXEC_TAG_REQUEST) carrying its last result header
 * (task -1 the first time), then the result's bytes (tag EXEC_TAG_BYTES)
 * when there are any, receives the next task index (tag EXEC_TAG_TASK; -1:
 * stop) and computes it.  Tasks go out lowest first to whichever worker
 * asks, so a slow task does not hold up the others, and the master keeps
 * each result by its index: what rank 0 writes is the bytes -j 1 writes.
 *
 * MPI_Init is called only when the process was started by an MPI launcher
 * (its environment says so), so an MPI build also runs as a plain command,
 * as root too, where Open MPI's singleton start refuses.
 */
#include "exec.h"

#ifdef FS_MPI

#include <mpi.h>
#include <stdlib.h>

enum { EXEC_TAG_REQUEST = 1, EXEC_TAG_TASK = 2, EXEC_TAG_BYTES = 3 };

static bool joined;

/* Started by mpirun or mpiexec (Open MPI, MPICH's Hydra, PMIx, Slurm)? */
static bool launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
    for (size_t i = 0; i < FS_ARRAY_LEN(vars); i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

void exec_mpi_begin(int *argc, char ***argv, int *rank, int *nranks)
{
    *rank = 0;
    *nranks = 1;
    if (!launched())
        return;
    MPI_Init(argc, argv);
    joined = true;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
}

bool exec_mpi_agree(bool ready)
{
    if (!joined)
        return ready;
    int mine = ready, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
}

static int mpi_recv(void *ctx, int *worker, struct exec_head *h, struct exec_out *out, struct fs_err *err)
{
    (void)ctx;
    MPI_Status st;
    if (MPI_Recv(h, (int)sizeof *h, MPI_BYTE, MPI_ANY_SOURCE, EXEC_TAG_REQUEST, MPI_COMM_WORLD, &st) !=
        MPI_SUCCESS)
        return fs_fail(err, FS_EINTERNAL, "exec: MPI_Recv failed");
    *worker = st.MPI_SOURCE;
    *out = (struct exec_out){0};
    if (h->len == 0) /* a first request, or a failure: no bytes */
        return 0;
    xgrow(&out->data, &out->cap, h->len, 1);
    out->len = h->len;
    if (MPI_Recv(out->data, (int)h->len, MPI_BYTE, *worker, EXEC_TAG_BYTES, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return fs_fail(err, FS_EINTERNAL, "exec: MPI_Recv of %llu bytes from rank %d failed",
                       (unsigned long long)h->len, *worker);
    return 0;
}

static int mpi_send(void *ctx, int worker, int64_t task, struct fs_err *err)
{
    (void)ctx;
    if (MPI_Send(&task, 1, MPI_INT64_T, worker, EXEC_TAG_TASK, MPI_COMM_WORLD) != MPI_SUCCESS)
        return fs_fail(err, FS_EINTERNAL, "exec: MPI_Send to rank %d failed", worker);
    return 0;
}

int exec_mpi_run(const struct exec_tasks *t, int rank, struct exec_out *res, size_t *failed,
                 struct fs_err *err)
{
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0) {
        /* Workers are ranks 1..nranks-1; the link names them by rank. */
        struct exec_link link = {.nworkers = nranks - 1, .recv = mpi_recv, .send = mpi_send};
        return exec_master(t, &link, res, failed, err);
    }
    struct exec_head h = {.task = -1};
    struct exec_out out = {0};
    for (;;) {
        int64_t task;
        MPI_Send(&h, (int)sizeof h, MPI_BYTE, 0, EXEC_TAG_REQUEST, MPI_COMM_WORLD);
        if (h.len > 0)
            MPI_Send(out.data, (int)h.len, MPI_BYTE, 0, EXEC_TAG_BYTES, MPI_COMM_WORLD);
        MPI_Recv(&task, 1, MPI_INT64_T, 0, EXEC_TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (task < 0)
            break;
        exec_compute(t, task, &h, &out);
    }
    free(out.data);
    return 0;
}

void exec_mpi_end(void)
{
    if (joined)
        MPI_Finalize();
    joined = false;
}

#else /* no MPI: one rank */

void exec_mpi_begin(int *argc, char ***argv, int *rank, int *nranks)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *nranks = 1;
}

bool exec_mpi_agree(bool ready)
{
    return ready;
}

int exec_mpi_run(const struct exec_tasks *t, int rank, struct exec_out *res, size_t *failed,
                 struct fs_err *err)
{
    (void)t;
    (void)rank;
    (void)res;
    *failed = 0;
    return fs_fail(err, FS_EINTERNAL, "exec: this fleetsim was built without MPI (make MPI=1)");
}

void exec_mpi_end(void)
{
}

#endif
