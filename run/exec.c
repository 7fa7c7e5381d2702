/* exec.c - the executor (exec.h): the master loop any transport drives,
 * the tasks run here one after another (one job), and forked local
 * workers (-j N).
 *
 * A local worker is a child process with a pipe each way: it writes a
 * request (a header with task -1), then reads a task index, computes it
 * and writes its header and bytes, which are also its next request, until
 * it reads -1 or the end of the pipe.  The parent polls the result pipes,
 * so whichever worker finishes first gets the next task.
 */
#include "exec.h"

#include "../base/signals.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void exec_put(struct exec_out *o, const void *p, size_t n)
{
    xgrow(&o->data, &o->cap, o->len + n, 1);
    memcpy(o->data + o->len, p, n);
    o->len += n;
}

void exec_results_free(struct exec_out *res, size_t n)
{
    for (size_t i = 0; res && i < n; i++) {
        free(res[i].data);
        res[i] = (struct exec_out){0};
    }
}

int exec_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > EXEC_MAX_JOBS ? EXEC_MAX_JOBS : (int)n;
}

void exec_compute(const struct exec_tasks *t, int64_t i, struct exec_head *h, struct exec_out *out)
{
    out->len = 0;
    *h = (struct exec_head){.task = i};
    int rc = t->run(t->ctx, (size_t)i, out, &h->err);
    h->err.code = rc;
    if (rc)
        out->len = 0;
    h->len = out->len;
}

/* Keep a result (res[i] takes out's bytes); track the lowest failing task
 * in *fail, with its message in ferr. */
static void keep(const struct exec_head *h, struct exec_out *out, struct exec_out *res, size_t *fail,
                 struct fs_err *ferr)
{
    if (h->err.code) {
        if ((size_t)h->task < *fail) {
            *fail = (size_t)h->task;
            *ferr = h->err;
        }
        free(out->data);
    } else {
        res[h->task] = *out;
    }
    *out = (struct exec_out){0};
}

int exec_master(const struct exec_tasks *t, const struct exec_link *link, struct exec_out *res,
                size_t *failed, struct fs_err *err)
{
    size_t next = 0, fail = t->n, done = 0;
    int active = link->nworkers, rc = 0;
    struct fs_err ferr = {0};
    struct exec_head h;
    struct exec_out out = {0};
    memset(res, 0, t->n * sizeof *res);
    *failed = t->n;
    while (active > 0) {
        int w;
        if ((rc = link->recv(link->ctx, &w, &h, &out, err)))
            return rc;
        if (h.task >= 0) {
            if ((size_t)h.task >= t->n)
                return fs_fail(err, FS_EINTERNAL, "exec: a worker returned task %lld of %zu",
                               (long long)h.task, t->n);
            bool ok = h.err.code == 0;
            keep(&h, &out, res, &fail, &ferr);
            done++;
            if (ok && t->progress)
                t->progress(t->ctx, (size_t)h.task, &res[h.task], done);
        } else { /* a worker asking for its first task: nothing to keep */
            free(out.data);
            out = (struct exec_out){0};
        }
        bool more = next < t->n && fail == t->n && !fs_interrupted();
        if ((rc = link->send(link->ctx, w, more ? (int64_t)next : -1, err)))
            return rc;
        if (more)
            next++;
        else
            active--;
    }
    *failed = fail;
    if (fs_interrupted()) /* whatever the tasks said: they were stopped */
        return fs_fail_interrupted(err);
    if (fail < t->n) {
        *err = ferr;
        return ferr.code;
    }
    return done == t->n ? 0 : fs_fail(err, FS_EINTERNAL, "exec: %zu of %zu tasks came back", done, t->n);
}

/* --- local workers ------------------------------------------------------------ */

/* One process each, a pipe each way; pid 0 once reaped. */
struct local {
    int n;
    pid_t *pid;
    int *task;    /* the parent writes task indexes */
    int *result;  /* ... and reads headers and results */
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

/* RET: 1 read, 0 end of file before any byte, -1 error or a short read. */
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

static void worker_main(const struct exec_tasks *t, int task, int result)
{
    struct exec_head h = {.task = -1};
    struct exec_out out = {0};
    int64_t i;
    while (full_write(result, &h, sizeof h) == 0 && full_write(result, out.data, h.len) == 0 &&
           full_read(task, &i, sizeof i) == 1 && i >= 0)
        exec_compute(t, i, &h, &out);
    free(out.data);
}

static int local_recv(void *ctx, int *worker, struct exec_head *h, struct exec_out *out, struct fs_err *err)
{
    struct local *l = ctx;
    struct pollfd pfd[EXEC_MAX_JOBS];
    int who[EXEC_MAX_JOBS], n = 0;
    for (int w = 0; w < l->n; w++)
        if (!l->stopped[w]) {
            pfd[n] = (struct pollfd){.fd = l->result[w], .events = POLLIN};
            who[n++] = w;
        }
    /* A signal here ends the wait (poll is never restarted): the caller
     * stops the workers. */
    while (poll(pfd, (nfds_t)n, -1) < 0) {
        if (errno != EINTR)
            return fs_fail(err, FS_EINTERNAL, "exec: poll: %s", strerror(errno));
        if (fs_interrupted())
            return fs_fail_interrupted(err);
    }
    for (int k = 0; k < n; k++) {
        if (!pfd[k].revents)
            continue;
        *worker = who[k];
        if (full_read(pfd[k].fd, h, sizeof *h) == 1) {
            *out = (struct exec_out){0};
            if (h->len == 0) /* a first request, or a failure: no bytes */
                return 0;
            xgrow(&out->data, &out->cap, h->len, 1);
            out->len = h->len;
            if (full_read(pfd[k].fd, out->data, h->len) == 1)
                return 0;
            free(out->data);
            *out = (struct exec_out){0};
        }
        int status = 0;
        waitpid(l->pid[who[k]], &status, 0);
        l->pid[who[k]] = 0;
        return fs_fail(err, FS_EINTERNAL, "exec: worker %d died (%s %d)", who[k] + 1,
                       WIFSIGNALED(status) ? "signal" : "exit status",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    return fs_fail(err, FS_EINTERNAL, "exec: poll returned no worker");
}

static int local_send(void *ctx, int worker, int64_t task, struct fs_err *err)
{
    struct local *l = ctx;
    if (task < 0)
        l->stopped[worker] = true;
    if (full_write(l->task[worker], &task, sizeof task) != 0)
        return fs_fail(err, FS_EINTERNAL, "exec: worker %d is gone: %s", worker + 1, strerror(errno));
    return 0;
}

/* Start worker l->n (pipes, fork).  RET: 0 or FS_EINTERNAL. */
static int spawn(struct local *l, const struct exec_tasks *t, struct fs_err *err)
{
    int tp[2], rp[2];
    if (pipe(tp) != 0)
        return fs_fail(err, FS_EINTERNAL, "exec: pipe: %s", strerror(errno));
    if (pipe(rp) != 0) {
        close(tp[0]);
        close(tp[1]);
        return fs_fail(err, FS_EINTERNAL, "exec: pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        for (int w = 0; w < l->n; w++) { /* the other workers' pipes */
            close(l->task[w]);
            close(l->result[w]);
        }
        close(tp[1]);
        close(rp[0]);
        worker_main(t, tp[0], rp[1]);
        _exit(0);
    }
    close(tp[0]);
    close(rp[1]);
    if (pid < 0) {
        close(tp[1]);
        close(rp[0]);
        return fs_fail(err, FS_EINTERNAL, "exec: fork: %s", strerror(errno));
    }
    l->pid[l->n] = pid;
    l->task[l->n] = tp[1];
    l->result[l->n++] = rp[0];
    return 0;
}

static int run_local(const struct exec_tasks *t, int nworkers, struct exec_out *res, size_t *failed,
                     struct fs_err *err)
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
        rc = spawn(&l, t, err);
    if (rc == 0) {
        struct exec_link link = {.nworkers = l.n, .ctx = &l, .recv = local_recv, .send = local_send};
        rc = exec_master(t, &link, res, failed, err);
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

/* One job: the same records, computed here in index order. */
static int run_here(const struct exec_tasks *t, struct exec_out *res, size_t *failed, struct fs_err *err)
{
    size_t fail = t->n;
    struct exec_head h;
    struct exec_out out = {0};
    memset(res, 0, t->n * sizeof *res);
    for (size_t i = 0; i < t->n && fail == t->n; i++) {
        if (fs_interrupted()) {
            exec_results_free(res, i);
            *failed = i;
            return fs_fail_interrupted(err);
        }
        exec_compute(t, (int64_t)i, &h, &out);
        bool ok = h.err.code == 0;
        keep(&h, &out, res, &fail, err);
        if (ok && t->progress)
            t->progress(t->ctx, i, &res[i], i + 1);
    }
    *failed = fail;
    return fail < t->n ? err->code : 0;
}

int exec_run(const struct exec_tasks *t, int jobs, struct exec_out *res, size_t *failed, struct fs_err *err)
{
    if (jobs > EXEC_MAX_JOBS)
        jobs = EXEC_MAX_JOBS;
    if ((size_t)jobs > t->n)
        jobs = (int)t->n;
    return jobs > 1 ? run_local(t, jobs, res, failed, err) : run_here(t, res, failed, err);
}
