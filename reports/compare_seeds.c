/* compare_seeds.c - the comparison at several seeds (compare_seeds.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/version.h"
#include "compare_seeds.h"
#include "output.h"

void compare_seeds_add(struct compare_seeds *cs, int s, uint64_t seed, const struct compare_entry *e, int n)
{
    cs->nruns = n;
    cs->seeds[s] = seed;
    if (s + 1 > cs->nseeds)
        cs->nseeds = s + 1;
    for (int i = 0; i < n; i++) {
        if (s == 0)
            snprintf(cs->names[i], sizeof cs->names[i], "%s", e[i].name);
        memcpy(cs->v[s][i], e[i].v, sizeof e[i].v);
    }
}

struct spread {
    double mean, min, max;
};

/* Over the seeds: run i's row k, minus the baseline's at the same seed
 * when paired.  NaN (no value) at any seed makes the whole spread NaN. */
static struct spread spread(const struct compare_seeds *cs, int i, int k, bool paired, cJSON *each)
{
    struct spread sp = {0, INFINITY, -INFINITY};
    for (int s = 0; s < cs->nseeds; s++) {
        double x = cs->v[s][i][k] - (paired ? cs->v[s][0][k] : 0);
        if (each)
            cJSON_AddItemToArray(each, isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull());
        sp.mean += x / cs->nseeds;
        sp.min = fmin(sp.min, x);
        sp.max = fmax(sp.max, x);
        if (!isfinite(x))
            sp = (struct spread){NAN, NAN, NAN};
    }
    return sp;
}

static void add_spread(cJSON *o, struct spread sp)
{
    const double v[3] = {sp.mean, sp.min, sp.max};
    static const char *const k[3] = {"mean", "min", "max"};
    for (int j = 0; j < 3; j++)
        cJSON_AddItemToObject(o, k[j], isfinite(v[j]) ? cJSON_CreateNumber(v[j]) : cJSON_CreateNull());
}

static cJSON *tree(const struct compare_seeds *cs)
{
    cJSON *root = cJSON_CreateObject(), *seeds = cJSON_AddArrayToObject(root, "seeds");
    for (int s = 0; s < cs->nseeds; s++)
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)cs->seeds[s]));
    cJSON_AddStringToObject(root, "baseline", cs->names[0]);
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    for (int i = 0; i < cs->nruns; i++) {
        cJSON *r = cJSON_CreateObject(), *m = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", cs->names[i]);
        for (int k = 0; k < metric_count; k++) {
            cJSON *o = cJSON_CreateObject(), *each = cJSON_AddArrayToObject(o, "per_seed");
            add_spread(o, spread(cs, i, k, false, each));
            if (i > 0) {
                cJSON *d = cJSON_AddObjectToObject(o, "vs_baseline"), *de = cJSON_AddArrayToObject(d, "per_seed");
                add_spread(d, spread(cs, i, k, true, de));
            }
            cJSON_AddItemToObject(m, metric_table[k].name, o);
        }
        cJSON_AddItemToObject(r, "metrics", m);
        cJSON_AddItemToArray(runs, r);
    }
    cJSON_AddItemToObject(root, "meta", version_json());
    return root;
}

int compare_seeds_write(const struct compare_seeds *cs, const char *dir, struct fs_err *err)
{
    struct outfile o = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/seeds.json", dir);
    cJSON *root = tree(cs);
    char *text = cJSON_Print(root);
    int rc = out_open_path(&o, path, err);
    if (rc == 0) {
        fprintf(o.f, "%s\n", text);
        if ((rc = out_close(&o, err)) == 0)
            rc = out_commit(&o, err);
    }
    out_discard(&o);
    free(text);
    cJSON_Delete(root);
    return rc;
}

void compare_seeds_print(FILE *f, const struct compare_seeds *cs)
{
    fprintf(f, "over %d seeds: mean [min, max]; vs %s at the same seed\n", cs->nseeds, cs->names[0]);
    for (int i = 0; i < cs->nruns; i++) {
        struct spread c = spread(cs, i, METRIC_COST_MONTH, false, NULL),
                      w = spread(cs, i, METRIC_WAIT_P95, false, NULL),
                      u = spread(cs, i, METRIC_UTILIZATION, false, NULL);
        fprintf(f, "  %-24s %.0f [%.0f, %.0f] USD/month, p95 wait %.2f [%.2f, %.2f] h, utilization %.3f "
                   "[%.3f, %.3f]", cs->names[i], c.mean, c.min, c.max, w.mean / 3600, w.min / 3600,
                w.max / 3600, u.mean, u.min, u.max);
        if (i > 0) {
            struct spread d = spread(cs, i, METRIC_COST_MONTH, true, NULL);
            fprintf(f, "; cost %+.0f [%+.0f, %+.0f] USD/month", d.mean, d.min, d.max);
        }
        fputc('\n', f);
    }
}
