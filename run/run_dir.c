/* run_dir.c - one run with every output written into a folder
 * (run_dir.h): what `fleetsim run` does. */
#include <stdio.h>
#include <time.h>

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

    struct run_spec spec = {.sc = sc, .timeseries = out[OUT_TIMESERIES].f, .timeline = out[OUT_TIMELINE].f,
                            .check = check, .progress = progress ? progress_bar : NULL};
    rc = run_scenario(&spec, &r, err);
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    if (rc)
        goto done;
    if (r.ck.violations) {
        rc = fs_fail(err, FS_EINTERNAL, "%s: --check: %llu invariant violations; the first %s", sc->path,
                     (unsigned long long)r.ck.violations, r.ck.first);
        goto done;
    }

    summary_write_json(out[OUT_SUMMARY].f, &r);
    summary_write_jobs(out[OUT_JOBS].f, r.s);
    for (int k = 0; k < OUT_COUNT; k++)
        if ((rc = out_close(&out[k], err)))
            goto done;
    if ((rc = report_write(&rep, r.s, r.m, &r.st, out[OUT_TIMESERIES].tmp, err)))
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
