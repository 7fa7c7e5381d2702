/* exec.c - handing a sweep's points out (sweep.h): the master loop
 * any transport drives, the points run here one after another (-j 1), and
 * forked local workers (-j N).
 *
 * A local worker is a child process with a pipe each way: it writes a
 * request (a result record with point -1), then reads a point index,
 * computes it and writes its record, which is also its next request, until
 * it reads -1 or the end of the pipe.  The parent polls the result pipes,
 * so whichever worker finishes first gets the next point.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../study/sweep.h"

static void progress(const struct sweep *sw, size_t done, const struct sweep_result *res)
{
    char what[512];
    sweep_describe(sw, (size_t)res->point, what, sizeof what);
    fprintf(stderr, "  [%zu/%zu] point %d%s%s%s: utilization %.3f, p95 wait %.2f h, %.2f USD per month\n", done,
            sw->npoints, res->point, what[0] ? " (" : "", what, what[0] ? ")" : "", res->v[METRIC_UTILIZATION],
            res->v[METRIC_WAIT_P95] / 3600, res->v[METRIC_COST_MONTH]);
}

/* Keep res; track the lowest failing point in *fail (with its message). */
static void keep(struct sweep *sw, const struct sweep_result *res, size_t *fail, struct fs_err *ferr)
{
    if (res->code) {
        if ((size_t)res->point < *fail) {
            *fail = (size_t)res->point;
            fs_fail(ferr, res->code, "%s", res->msg);
        }
        return;
    }
    sw->rows[res->point].seed = res->seed;
    memcpy(sw->rows[res->point].v, res->v, sizeof res->v);
}

int sweep_master(struct sweep *sw, const struct sweep_link *link, bool quiet, struct fs_err *err)
{
    size_t next = 0, fail = sw->npoints, done = 0;
    int active = link->nworkers, rc = 0;
    struct fs_err ferr = {0};
    struct sweep_result res;
    while (active > 0) {
        int w;
        if ((rc = link->recv(link->ctx, &w, &res, err)))
            return rc;
        if (res.point >= 0) {
            if ((size_t)res.point >= sw->npoints)
                return fs_fail(err, FS_EINTERNAL, "sweep: a worker returned point %d of %zu", res.point,
                               sw->npoints);
            keep(sw, &res, &fail, &ferr);
            done++;
            if (!quiet && !res.code)
                progress(sw, done, &res);
        }
        bool more = next < sw->npoints && fail == sw->npoints;
        if ((rc = link->send(link->ctx, w, more ? (int32_t)next : -1, err)))
            return rc;
        if (more)
            next++;
        else
            active--;
    }
    if (fail < sw->npoints) {
        *err = ferr;
        return ferr.code;
    }
    return done == sw->npoints ? 0 : fs_fail(err, FS_EINTERNAL, "sweep: %zu of %zu points came back", done,
                                             sw->npoints);
}

/* Local workers: one process each, a pipe each way; pid 0 once reaped. */
struct local {
    int n;
    pid_t *pid;
    int *task;    /* the parent writes point indices */
    int *result;  /* ... and reads result records */
    bool *stopped;
};

static int full_write(int fd, const void *p, size_t n)
{
    for (const char *b = p; n > 0;) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* RET: 1 read, 0 end of file before any byte, -1 error or a short record. */
static int full_read(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 && got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

static void worker_main(const struct sweep *sw, int task, int result)
{
    struct sweep_result res = {.point = -1};
    int32_t point;
    while (full_write(result, &res, sizeof res) == 0 && full_read(task, &point, sizeof point) == 1 &&
           point >= 0)
        sweep_point(sw, (size_t)point, &res);
}

static int local_recv(void *ctx, int *worker, struct sweep_result *res, struct fs_err *err)
{
    struct local *l = ctx;
    struct pollfd pfd[SWEEP_MAX_JOBS];
    int who[SWEEP_MAX_JOBS], n = 0;
    for (int w = 0; w < l->n; w++)
        if (!l->stopped[w]) {
            pfd[n] = (struct pollfd){.fd = l->result[w], .events = POLLIN};
            who[n++] = w;
        }
    while (poll(pfd, (nfds_t)n, -1) < 0)
        if (errno != EINTR)
            return fs_fail(err, FS_EINTERNAL, "sweep: poll: %s", strerror(errno));
    for (int k = 0; k < n; k++) {
        if (!pfd[k].revents)
            continue;
        *worker = who[k];
        if (full_read(pfd[k].fd, res, sizeof *res) == 1)
            return 0;
        int status = 0;
        waitpid(l->pid[who[k]], &status, 0);
        l->pid[who[k]] = 0;
        return fs_fail(err, FS_EINTERNAL, "sweep: worker %d died (%s %d)", who[k] + 1,
                       WIFSIGNALED(status) ? "signal" : "exit status",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    return fs_fail(err, FS_EINTERNAL, "sweep: poll returned no worker");
}

static int local_send(void *ctx, int worker, int32_t point, struct fs_err *err)
{
    struct local *l = ctx;
    if (point < 0)
        l->stopped[worker] = true;
    if (full_write(l->task[worker], &point, sizeof point) != 0)
        return fs_fail(err, FS_EINTERNAL, "sweep: worker %d is gone: %s", worker + 1, strerror(errno));
    return 0;
}

/* Start worker l->n (pipes, fork).  RET: 0 or FS_EINTERNAL. */
static int spawn(struct local *l, const struct sweep *sw, struct fs_err *err)
{
    int t[2], r[2];
    if (pipe(t) != 0)
        return fs_fail(err, FS_EINTERNAL, "sweep: pipe: %s", strerror(errno));
    if (pipe(r) != 0) {
        close(t[0]);
        close(t[1]);
        return fs_fail(err, FS_EINTERNAL, "sweep: pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        for (int w = 0; w < l->n; w++) { /* the other workers' pipes */
            close(l->task[w]);
            close(l->result[w]);
        }
        close(t[1]);
        close(r[0]);
        worker_main(sw, t[0], r[1]);
        _exit(0);
    }
    close(t[0]);
    close(r[1]);
    if (pid < 0) {
        close(t[1]);
        close(r[0]);
        return fs_fail(err, FS_EINTERNAL, "sweep: fork: %s", strerror(errno));
    }
    l->pid[l->n] = pid;
    l->task[l->n] = t[1];
    l->result[l->n++] = r[0];
    return 0;
}

int sweep_run_local(struct sweep *sw, int nworkers, bool quiet, struct fs_err *err)
{
    struct local l = {.n = 0};
    l.pid = xcalloc((size_t)nworkers, sizeof *l.pid);
    l.task = xcalloc((size_t)nworkers, sizeof *l.task);
    l.result = xcalloc((size_t)nworkers, sizeof *l.result);
    l.stopped = xcalloc((size_t)nworkers, sizeof *l.stopped);
    /* A worker that died makes a write fail with EPIPE, not kill us. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    int rc = 0;
    while (rc == 0 && l.n < nworkers)
        rc = spawn(&l, sw, err);
    if (rc == 0) {
        struct sweep_link link = {.nworkers = l.n, .ctx = &l, .recv = local_recv, .send = local_send};
        rc = sweep_master(sw, &link, quiet, err);
    }
    for (int w = 0; w < l.n; w++) {
        close(l.task[w]); /* a worker still waiting reads the end and exits */
        close(l.result[w]);
        if (l.pid[w] > 0 && !l.stopped[w]) /* the master gave up on it */
            kill(l.pid[w], SIGTERM);
        if (l.pid[w] > 0)
            while (waitpid(l.pid[w], NULL, 0) < 0 && errno == EINTR)
                ;
    }
    sigaction(SIGPIPE, &old, NULL);
    free(l.pid);
    free(l.task);
    free(l.result);
    free(l.stopped);
    return rc;
}

int sweep_run_here(struct sweep *sw, bool quiet, struct fs_err *err)
{
    struct sweep_result res;
    size_t fail = sw->npoints;
    for (size_t i = 0; i < sw->npoints && fail == sw->npoints; i++) {
        sweep_point(sw, i, &res);
        keep(sw, &res, &fail, err);
        if (!quiet && !res.code)
            progress(sw, i + 1, &res);
    }
    return fail < sw->npoints ? err->code : 0;
}
