/* run.c - one scenario run (run.h). */
#include "run.h"

#include "../base/signals.h"

/* spec's scenario into r->sc.  RET: 0 or the loader's error. */
static int load(const struct run_spec *spec, struct run_result *r, struct fs_err *err)
{
    if (spec->sc) {
        r->sc = spec->sc;
        return 0;
    }
    struct scenario *sc = NULL;
    int rc = spec->tree ? scenario_load_tree(spec->tree, spec->path, &spec->so, &sc, err)
                        : scenario_load(spec->path, &spec->so, &sc, err);
    r->sc = sc;
    r->own_sc = true;
    return rc;
}

int run_scenario(const struct run_spec *spec, struct run_result *r, struct fs_err *err)
{
    *r = (struct run_result){0};
    int rc = load(spec, r, err);
    if (rc) {
        run_result_free(r);
        return rc;
    }
    r->s = sim_new(r->sc);
    r->m = metrics_new(r->s, spec->timeseries);
    if (spec->timeseries_limit > 0)
        r->m->max_rows = spec->timeseries_limit;
    sim_observe(r->s, metrics_observer(r->m));
    if (spec->timeline) { /* after the metrics: the timeline reads the power they keep */
        r->tl = timeline_new(r->s, spec->timeline, &r->m->en, spec->timeline_limit);
        sim_observe(r->s, timeline_observer(r->tl));
    }
    if (spec->check) {
        r->ck.m = r->m;
        sim_observe(r->s, check_observer(&r->ck));
    }
    r->s->progress = spec->progress;
    sim_run(r->s);
    r->interrupted = r->s->interrupted;
    if (r->interrupted)
        return fs_fail_interrupted(err);
    if (r->s->stop.code) {
        *err = r->s->stop;
        return err->code;
    }
    if (spec->ended)
        spec->ended(spec->ended_ctx, r->s);
    run_stats_compute(r->s, r->m, &r->st);
    fleet_cost_compute(r->s, r->m, r->sc->cost.billing, r->sc->cost.commit, &r->cost);
    return 0;
}

void run_result_free(struct run_result *r)
{
    timeline_free(r->tl);
    metrics_free(r->m);
    sim_free(r->s);
    if (r->own_sc)
        scenario_free((struct scenario *)r->sc);
    *r = (struct run_result){0};
}
