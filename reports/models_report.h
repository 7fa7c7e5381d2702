/* models_report.h - what `fleetsim models` and `fleetsim calibrate` print:
 * the catalog and the curves the models derive from it, the LLM serving
 * model's answer to one query and its calibration, a power fit.  Each
 * comes as a JSON tree (the caller owns it and frees it with cJSON_Delete)
 * and as text on f. */
#ifndef FS_REPORTS_MODELS_REPORT_H
#define FS_REPORTS_MODELS_REPORT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "../models/models.h"
#include "../models/power.h"

/* The catalog, relative throughput, memory fit of reference models, power
 * at 0..100 % load and the node templates' DC power. */
cJSON *models_json(const struct model_set *ms);
void models_print(FILE *f, const struct model_set *ms);

/* q answered for every GPU type of ms: {"llm": {the inputs}, "gpus":
 * {"<type>": {...}}}; models_llm_print prints that tree. */
cJSON *models_llm_json(const struct model_set *ms, const struct llm_query *q);
void models_llm_print(FILE *f, const cJSON *root);

/* The LLM model's fitted parameters and every calibration point. */
cJSON *models_calibration_json(const struct llm_model *lm);
void models_calibration_print(FILE *f, const struct llm_model *lm);

/* A logistic power fit of the points of path (x in log2 when log2x), as
 * one JSON object when json, else as text. */
void power_fit_print(FILE *f, const char *path, bool log2x, bool json, const struct power_logistic *c,
                     const struct power_fit_stats *st);

#endif
