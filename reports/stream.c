/* stream.c - the stream every output file is written through (stream.h):
 * the output budget, and chunks written by a thread of their own. */
#define _GNU_SOURCE /* fopencookie */
#include "stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/task.h"

/* Files may be written from two threads at once (run/run_dir.c writes
 * jobs.csv beside the rest): the count is atomic, and the name of the
 * first refused file is kept under a lock. */
static uint64_t budget = (uint64_t)OUT_DEFAULT_MAX_MB << 20;
static _Atomic uint64_t written;
static pthread_mutex_t over_lock = PTHREAD_MUTEX_INITIALIZER;
static char over[512]; /* the file whose write was refused for the budget */

void out_set_max_mb(uint64_t mb) { budget = mb << 20; }

/* Every output file is a stream over this writer: it checks the budget
 * before each write and refuses (EFBIG) a write that would pass it.  The
 * bytes gather in chunks, and a thread of its own copies each full one into
 * the file while the next fills: a deep queue's timeline.json under a
 * time-sharing policy is 190 MB, and copying it was a tenth of the run.  A
 * write that fails there shows when the file is closed (out_sink_drain).  The
 * cookie is its own (the caller's struct outfile may move). */
enum { CHUNK = 256 << 10 };

struct sink {
    int fd;
    char name[512];
    char *fill, *spare;         /* the chunk filling; the one on its way out */
    size_t used, nspare;
    struct fs_task *task;       /* writing spare, or NULL */
    int err;                    /* errno of the first write that failed */
};

/* Write buf[0..n) into k's file, on whichever thread. */
static void write_all(struct sink *k, const char *buf, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = write(k->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            atomic_fetch_sub(&written, n - done); /* give back what is not written */
            if (!k->err)
                k->err = w < 0 ? errno : EIO;
            return;
        }
        done += (size_t)w;
    }
}

static void write_spare(void *arg)
{
    struct sink *k = arg;
    write_all(k, k->spare, k->nspare);
}

/* Send the full chunk out, once the one before it is written. */
static void sink_send(struct sink *k)
{
    fs_task_join(k->task);
    if (!k->spare)
        k->spare = xmalloc(CHUNK);
    char *full = k->fill;
    k->fill = k->spare;
    k->spare = full;
    k->nspare = k->used;
    k->used = 0;
    k->task = fs_task_start(write_spare, k);
}

int out_sink_drain(struct sink *k)
{
    fs_task_join(k->task);
    k->task = NULL;
    write_all(k, k->fill, k->used);
    k->used = 0;
    return k->err;
}

static ssize_t budget_write(void *cookie, const char *buf, size_t n)
{
    struct sink *k = cookie;
    /* Take n bytes of the budget first. */
    uint64_t had = atomic_load(&written);
    do {
        if (n > budget - had) {
            pthread_mutex_lock(&over_lock);
            if (!over[0])
                snprintf(over, sizeof over, "%s", k->name);
            pthread_mutex_unlock(&over_lock);
            errno = EFBIG;
            return 0; /* fopencookie: 0 is an error */
        }
    } while (!atomic_compare_exchange_weak(&written, &had, had + n));
    if (!k->fill)
        k->fill = xmalloc(CHUNK);
    for (size_t done = 0; done < n;) {
        size_t m = n - done < CHUNK - k->used ? n - done : CHUNK - k->used;
        memcpy(k->fill + k->used, buf + done, m);
        k->used += m;
        done += m;
        if (k->used == CHUNK)
            sink_send(k);
    }
    return (ssize_t)n;
}

/* A plain fclose writes everything too. */
static int budget_close(void *cookie)
{
    struct sink *k = cookie;
    int late = out_sink_drain(k), rc = close(k->fd);
    free(k->fill);
    free(k->spare);
    free(k);
    if (late) {
        errno = late;
        return -1;
    }
    return rc;
}

int out_stream(struct outfile *o)
{
    struct sink *k = xcalloc(1, sizeof *k);
    k->fd = o->fd;
    o->sink = k;
    snprintf(k->name, sizeof k->name, "%s", o->final);
    o->f = fopencookie(k, "w", (cookie_io_functions_t){.write = budget_write, .close = budget_close});
    if (o->f)
        return 0;
    free(k);
    close(o->fd);
    return -1;
}

int out_budget_error(int code, struct fs_err *err)
{
    pthread_mutex_lock(&over_lock);
    if (over[0])
        code = fs_fail(err, FS_ECANTCREAT, "%s: the outputs would pass --max-output-mb %llu; nothing written "
                       "(raise the limit, or ask for less output)",
                       over, (unsigned long long)(budget >> 20));
    pthread_mutex_unlock(&over_lock);
    return code;
}

