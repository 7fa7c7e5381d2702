/* serve.c - `fleetsim serve`: the extender over HTTP with its inputs
 * read and its summary printed (serve.h). */
#include <stdio.h>
#include <string.h>

#include "../base/signals.h"
#include "serve.h"

static void ready(const char *host, int port, void *ctx)
{
    const struct extender_options *eo = ctx;
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "fleetsim serve: listening on http://%s%s%s:%d (policy %s, %zu pods in the workload)\n",
            v6 ? "[" : "", host, v6 ? "]" : "", port, eo->policy->name, eo->nworkload);
}

int serve_extender(const struct serve_extender_spec *s, struct serve_options *so, struct fs_err *err)
{
    struct gpu_catalog *cat = NULL;
    struct workload wl;
    struct extender *x = NULL;
    FILE *log = NULL;
    workload_init(&wl);
    int rc = gpu_catalog_load(s->catalog, &cat, err);
    if (!rc && s->workload)
        rc = s->format->read(s->workload, NULL, cat, &wl, NULL, err);
    if (!rc && s->log && !(log = fopen(s->log, "w")))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot create", s->log);
    if (!rc && fs_signals_install())
        rc = fs_fail(err, FS_EINTERNAL, "serve: cannot catch SIGINT and SIGTERM");
    if (rc)
        goto done;
    struct extender_options eo = {.cat = cat, .policy = s->policy, .workload = wl.jobs,
                                  .nworkload = wl.n, .seed = s->seed};
    x = extender_new(&eo);
    so->log = log;
    so->ready = s->quiet ? NULL : ready;
    so->ready_ctx = &eo;
    if ((rc = serve_run(x, so, err)))
        goto done;
    if (!s->quiet) {
        const struct extender_stats *st = extender_stats(x);
        unsigned long long calls = 0;
        for (int o = 0; o < EXT_NOUTCOMES; o++)
            calls += st->outcomes[o];
        fprintf(stderr, "fleetsim serve: %s: stopped after %llu extender calls (%lld pods decided, "
                        "%lld nodes known)\n", fs_signal_name(fs_interrupted()), calls,
                (long long)st->pods, (long long)st->nodes);
    }
done:
    extender_free(x);
    if (log)
        fclose(log);
    workload_free(&wl);
    gpu_catalog_free(cat);
    return rc;
}
