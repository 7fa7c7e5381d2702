/* models.c - loading the model data files together. */
#include "models.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>

int model_set_load(const char *catalog_path, struct model_set *ms, struct fs_err *err)
{
    char *copy = xstrdup(catalog_path);
    const char *dir = dirname(copy);
    char path[4096];
    int rc;
    *ms = (struct model_set){0};
    if ((rc = gpu_catalog_load(catalog_path, &ms->cat, err)))
        goto done;
    snprintf(path, sizeof path, "%s/nodes.json", dir);
    if ((rc = node_catalog_load(path, ms->cat, &ms->nodes, err)))
        goto done;
    snprintf(path, sizeof path, "%s/llm.json", dir);
    if ((rc = llm_model_load(path, ms->cat, ms->nodes, &ms->llm, err)))
        goto done;
    snprintf(path, sizeof path, "%s/workloads.json", dir);
    if ((rc = perf_model_load(path, ms->cat, ms->llm, &ms->perf, err)))
        goto done;
    snprintf(path, sizeof path, "%s/power.json", dir);
    if ((rc = power_model_load(path, ms->cat, &ms->power, err)))
        goto done;
    snprintf(path, sizeof path, "%s/prices.json", dir);
    rc = cost_prices_load(path, ms->cat, ms->nodes, &ms->prices, err);
done:
    free(copy);
    return rc;
}

void model_set_free(struct model_set *ms)
{
    perf_model_free(ms->perf);
    node_catalog_free(ms->nodes);
    power_model_free(ms->power);
    cost_prices_free(ms->prices);
    llm_model_free(ms->llm);
    gpu_catalog_free(ms->cat);
    *ms = (struct model_set){0};
}

double model_load_share(const struct power_model *pw, const struct gpu_catalog *cat,
                        const struct perf_workload *w, int t)
{
    double batch = perf_batch(w, t);
    return batch > 0 ? power_load_infer(pw, cat, batch) : pw->train_load;
}

double model_node_dc_w(const struct model_set *ms, const struct node_template *nt, double load)
{
    const struct gpu_type *g = &ms->cat->types[nt->gpu_type];
    return node_power_eval(ms->nodes, nt, nt->gpus * power_gpu_w(g, load), load, nt->psu_count).dc_w;
}
