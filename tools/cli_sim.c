/* cli_sim.c - what several subcommands do alike: read --seed, and run a
 * scenario in memory for its figures (compare, regress). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cli_parse_seed(const char *arg, struct scenario_options *so)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '0' || arg[0] > '9') {
        fprintf(stderr, "fleetsim: --seed: \"%s\" is not a non-negative integer\n", arg);
        return 64;
    }
    so->has_seed = true;
    so->seed = v;
    return 0;
}

int cli_sim_run(const char *path, const struct scenario_options *so, struct cli_sim *r,
                struct fs_err *err)
{
    *r = (struct cli_sim){0};
    int rc = scenario_load(path, so, &r->sc, err);
    if (rc)
        return rc;
    r->s = sim_new(r->sc);
    r->m = metrics_new(r->s, NULL);
    sim_observe(r->s, metrics_observer(r->m));
    sim_run(r->s);
    run_stats_compute(r->s, r->m, &r->st);
    return 0;
}

void cli_sim_free(struct cli_sim *r)
{
    metrics_free(r->m);
    sim_free(r->s);
    scenario_free(r->sc);
    *r = (struct cli_sim){0};
}
