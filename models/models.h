/* models.h - every model data file at once: the GPU catalog and, beside it
 * in the same folder, workloads.json, nodes.json, power.json, prices.json
 * and llm.json.
 *
 * The caller owns the set and frees it with model_set_free (which accepts a
 * partly loaded set).
 */
#ifndef FS_MODELS_MODELS_H
#define FS_MODELS_MODELS_H

#include "cost.h"
#include "gpu.h"
#include "llm.h"
#include "node.h"
#include "perf.h"
#include "power.h"

struct model_set {
    struct gpu_catalog *cat;
    struct perf_model *perf;
    struct node_catalog *nodes;
    struct power_model *power;
    struct cost_prices *prices;
    struct llm_model *llm;
};

/* Load the catalog at catalog_path and the files beside it.
 * RET: 0, FS_ENOINPUT or FS_EDATA with err naming the file. */
int model_set_load(const char *catalog_path, struct model_set *ms, struct fs_err *err);
void model_set_free(struct model_set *ms);

/* Load share in [0,1] of workload w's work on a GPU of type t (models/
 * power.h): the fitted inference curve at the workload's batch on t
 * (perf_batch) for LLM inference, the measured training share for every
 * other workload. */
double model_load_share(const struct power_model *pw, const struct gpu_catalog *cat,
                        const struct perf_workload *w, int t);

/* DC watts of node template nt with every GPU at load share load in [0,1]
 * (0: idle) and every PSU healthy. */
double model_node_dc_w(const struct model_set *ms, const struct node_template *nt, double load);

#endif
