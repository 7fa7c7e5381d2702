/* exec_mpi.c - fleetsim sweep over MPI ranks (sweep.h), in a build with
 * FS_MPI (`make MPI=1`, compiled with mpicc); without it, one rank and no
 * MPI at all.
 *
 * Rank 0 is the master and computes nothing: it runs sweep_master with a
 * link whose messages are MPI messages.  Every other rank is a worker: it
 * sends a request (tag SWEEP_TAG_REQUEST) carrying its last result record
 * (point -1 the first time), receives the next point index (tag
 * SWEEP_TAG_POINT; -1: stop) and computes it.  Points go out lowest first
 * to whichever worker asks, so a slow point does not hold up the others,
 * and the master keeps each record by its point: the files rank 0 writes
 * are the bytes -j 1 writes.
 *
 * MPI_Init is called only when the process was started by an MPI launcher
 * (its environment says so), so an MPI build also runs as a plain command,
 * as root too, where Open MPI's singleton start refuses.
 */
#include "../study/sweep.h"

#ifdef FS_MPI

#include <mpi.h>
#include <stdlib.h>

enum { SWEEP_TAG_REQUEST = 1, SWEEP_TAG_POINT = 2 };

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

void sweep_mpi_begin(int *argc, char ***argv, int *rank, int *nranks)
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

bool sweep_mpi_agree(bool ready)
{
    if (!joined)
        return ready;
    int mine = ready, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
}

static int mpi_recv(void *ctx, int *worker, struct sweep_result *res, struct fs_err *err)
{
    (void)ctx;
    MPI_Status st;
    if (MPI_Recv(res, (int)sizeof *res, MPI_BYTE, MPI_ANY_SOURCE, SWEEP_TAG_REQUEST, MPI_COMM_WORLD, &st) !=
        MPI_SUCCESS)
        return fs_fail(err, FS_EINTERNAL, "sweep: MPI_Recv failed");
    *worker = st.MPI_SOURCE;
    return 0;
}

static int mpi_send(void *ctx, int worker, int32_t point, struct fs_err *err)
{
    (void)ctx;
    if (MPI_Send(&point, 1, MPI_INT32_T, worker, SWEEP_TAG_POINT, MPI_COMM_WORLD) != MPI_SUCCESS)
        return fs_fail(err, FS_EINTERNAL, "sweep: MPI_Send to rank %d failed", worker);
    return 0;
}

int sweep_mpi_run(struct sweep *sw, int rank, bool quiet, struct fs_err *err)
{
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0) {
        /* Workers are ranks 1..nranks-1; the link names them by rank. */
        struct sweep_link link = {.nworkers = nranks - 1, .recv = mpi_recv, .send = mpi_send};
        return sweep_master(sw, &link, quiet, err);
    }
    struct sweep_result *res = xcalloc(1, sizeof *res);
    res->point = -1;
    for (;;) {
        int32_t point;
        MPI_Send(res, (int)sizeof *res, MPI_BYTE, 0, SWEEP_TAG_REQUEST, MPI_COMM_WORLD);
        MPI_Recv(&point, 1, MPI_INT32_T, 0, SWEEP_TAG_POINT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (point < 0)
            break;
        sweep_point(sw, (size_t)point, res);
    }
    free(res);
    return 0;
}

void sweep_mpi_end(void)
{
    if (joined)
        MPI_Finalize();
    joined = false;
}

#else /* no MPI: every sweep is one rank */

void sweep_mpi_begin(int *argc, char ***argv, int *rank, int *nranks)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *nranks = 1;
}

bool sweep_mpi_agree(bool ready)
{
    return ready;
}

int sweep_mpi_run(struct sweep *sw, int rank, bool quiet, struct fs_err *err)
{
    (void)sw;
    (void)rank;
    (void)quiet;
    return fs_fail(err, FS_EINTERNAL, "sweep: this fleetsim was built without MPI (make MPI=1)");
}

void sweep_mpi_end(void)
{
}

#endif
