/* fill_grid.c - the fill experiment's grid, policies x seeds (fill_grid.h),
 * run on the executor (run/exec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../io/readers.h"
#include "../run/exec.h"
#include "fill_grid.h"

/* Run k of the grid (an executor task): its fill_result's bytes. */
static int fill_task(void *ctx, size_t k, struct exec_out *out, struct fs_err *err)
{
    const struct fill_runs *w = ctx;
    struct fill_spec spec = w->base;
    spec.policy = w->g->policy[k / (size_t)w->g->nseeds];
    spec.seed = w->g->seeds[k % (size_t)w->g->nseeds];
    static struct fill_result r; /* large; one task at a time per process */
    memset(&r, 0, sizeof r);
    int rc = fill_run(&spec, &r, err);
    if (rc == 0)
        exec_put(out, &r, sizeof r);
    return rc;
}

/* Run the grid on the executor (run/exec.h) with jobs workers.
 * RET: 0 or the lowest failing run's error. */
static int run_grid(struct fill_runs *w, int jobs, struct fs_err *err)
{
    size_t total = (size_t)w->g->npolicies * (size_t)w->g->nseeds, failed;
    struct exec_out *res = xcalloc(total, sizeof *res);
    struct exec_tasks t = {.n = total, .ctx = w, .run = fill_task};
    int rc = exec_run(&t, jobs, res, &failed, err);
    for (size_t k = 0; rc == 0 && k < total; k++)
        memcpy(&w->res[k], res[k].data, sizeof w->res[k]);
    exec_results_free(res, total);
    free(res);
    return rc;
}

int fill_grid_run(const char *nodes, const char *pods, const char *catalog, const struct fill_grid *g,
                  const char *dir, int jobs, bool quiet, struct fs_err *err)
{
    struct gpu_catalog *cat = NULL;
    struct fleet_group *fleet = NULL;
    struct workload wl;
    struct fill_runs w = {.g = g};
    struct timespec t0, t1;
    int nfleet = 0, nnodes = 0, total = g->npolicies * g->nseeds;
    workload_init(&wl);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = gpu_catalog_load(catalog, &cat, err);
    if (!rc)
        rc = openb_read_nodes(nodes, cat, &fleet, &nfleet, NULL, err);
    if (!rc)
        rc = openb_read_pods(pods, NULL, cat, &wl, NULL, err);
    if (rc)
        goto done;
    for (int k = 0; k < nfleet; k++)
        nnodes += fleet[k].nodes;
    w.base = (struct fill_spec){.cat = cat, .fleet = fleet, .nfleet = nfleet,
                                .pods = wl.jobs, .npods = wl.n};
    w.res = xcalloc((size_t)total, sizeof *w.res);
    bool drawn = false;
    if ((rc = run_grid(&w, jobs, err)) || (rc = fill_write(&w, dir, &drawn, err)))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet)
        fill_print(stderr, &w, nnodes, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                   jobs < total ? jobs : total);
    if (!quiet)
        fprintf(stderr, "  wrote %s/{fill.csv,fill-median.csv,fill.gp%s}%s%s%s\n", dir, drawn ? ",fill.svg" : "",
                drawn ? "" : "; no chart (gnuplot was not found or failed): cd ", drawn ? "" : dir,
                drawn ? "" : " && gnuplot fill.gp");
done:
    free(w.res);
    workload_free(&wl);
    free(fleet);
    gpu_catalog_free(cat);
    return rc;
}
