/* run_dir.c - one run with every output written into a folder
 * (run_dir.h): what `fleetsim run` does. */
#include <stdio.h>
#include <time.h>

#include "../base/task.h"
#include "../reports/output.h"
#include "../reports/report.h"
#include "../reports/summary.h"
#include "run_dir.h"

static void progress_bar(void *ctx, fs_time now, fs_time horizon)
{
    (void)ctx;
    if (horizon == FS_TIME_MAX) {
        fprintf(stderr, "\r  simulated %.2f days", fs_to_seconds(now) / 86400);
        return;
    }
    int width = 40, done = (int)((double)width * (double)now / (double)horizon);
    fprintf(stderr, "\r  [%.*s%*s] %3d %%", done, "########################################",
            width - done, "", (int)(100.0 * (double)now / (double)horizon));
}

enum { OUT_SUMMARY, OUT_JOBS, OUT_TIMESERIES, OUT_TIMELINE, OUT_COUNT };

/* jobs.csv, the largest file (a million rows), written and made durable
 * on a thread of its own from the moment the simulation ends, beside the
 * figures, the other files and the report: on two cores the run ends
 * sooner. */
struct jobs_writer {
    const struct sim *s;
    struct outfile *o;
    struct fs_task *task;
    bool started;
    struct fs_err err;
    int rc;
};

static void write_jobs(void *arg)
{
    struct jobs_writer *w = arg;
    summary_write_jobs(w->o->f, w->s);
    w->rc = out_close(w->o, &w->err);
}

static void start_jobs(void *ctx, const struct sim *s)
{
    struct jobs_writer *w = ctx;
    w->s = s;
    w->started = true;
    w->task = fs_task_start(write_jobs, w);
}
static const char *const out_names[OUT_COUNT] = {"summary.json", "jobs.csv", "timeseries.csv",
                                                 "timeline.json"};

int run_dir(const struct scenario *sc, const char *dir, bool progress, bool quiet, bool check, struct fs_err *err)
{
    struct outset set = {.lock = -1};
    struct outfile out[OUT_COUNT] = {0};
    struct run_result r = {0};
    struct report rep = {0};
    struct timespec t0, t1;
    int rc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = out_set_begin(&set, dir, err)))
        goto done;
    for (int k = 0; k < OUT_COUNT; k++)
        if ((rc = out_set_open(&set, &out[k], out_names[k], err)))
            goto done;
    if ((rc = report_open(&rep, &set, err)))
        goto done;

    struct jobs_writer jw = {.o = &out[OUT_JOBS]};
    struct run_spec spec = {.sc = sc, .timeseries = out[OUT_TIMESERIES].f, .timeline = out[OUT_TIMELINE].f,
                            .check = check, .progress = progress ? progress_bar : NULL,
                            .ended = start_jobs, .ended_ctx = &jw};
    rc = run_scenario(&spec, &r, err);
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    if (!rc && r.ck.violations)
        rc = fs_fail(err, FS_EINTERNAL, "%s: --check: %llu invariant violations; the first %s", sc->path,
                     (unsigned long long)r.ck.violations, r.ck.first);
    if (!rc)
        summary_write_json(out[OUT_SUMMARY].f, &r);
    for (int k = 0; k < OUT_COUNT && !rc; k++)
        if (k != OUT_JOBS)
            rc = out_close(&out[k], err);
    if (!rc)
        rc = report_write(&rep, r.s, r.m, &r.st, out[OUT_TIMESERIES].tmp, err);
    fs_task_join(jw.task); /* before anything it writes is discarded */
    if (!rc && jw.started && jw.rc) {
        *err = jw.err;
        rc = jw.rc;
    }
    if (rc)
        goto done;
    if ((rc = out_set_commit(&set, err)))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet) {
        summary_print(stderr, r.s, r.m, &r.st);
        if (check)
            fprintf(stderr, "  check        %llu state changes checked, no invariant violated\n",
                    (unsigned long long)r.ck.notes);
        fprintf(stderr, "  wrote        %s/{summary.json,jobs.csv,timeseries.csv,timeline.json,report.md,report.html} "
                        "(%llu events, %.2f s wall)\n", dir, (unsigned long long)r.s->events,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
done:
    for (int k = 0; k < OUT_COUNT; k++)
        out_discard(&out[k]);
    report_discard(&rep);
    out_set_end(&set);
    run_result_free(&r);
    return rc;
}
