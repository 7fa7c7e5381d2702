/* faults.c - the fault model (see faults.h). */
#include "faults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"

static int load_cause(const cJSON *c, const char *file, const char *path, double gpu_h, double node_h,
                      const cJSON *sources, struct fault_cause *out, struct fs_err *err)
{
    static const char *const keys[] = {"name", "scope", "effect", "count", "repair_h", "source",
                                       "repair_source", NULL};
    const char *name = NULL, *scope = NULL, *src = NULL, *rsrc = NULL, *effect = "node";
    double count = 0, repair_h = 0;
    int rc;
    if ((rc = json_check_keys(c, keys, file, path, err)) ||
        (rc = json_string(c, "name", true, &name, file, path, err)) ||
        (rc = json_string(c, "scope", true, &scope, file, path, err)) ||
        (rc = json_string(c, "effect", false, &effect, file, path, err)) ||
        (rc = json_number(c, "count", true, 0, 1e9, &count, file, path, err)) ||
        (rc = json_number(c, "repair_h", true, 0, 1e5, &repair_h, file, path, err)) ||
        (rc = json_string(c, "source", true, &src, file, path, err)) ||
        (rc = json_string(c, "repair_source", true, &rsrc, file, path, err)))
        return rc;
    if (!cJSON_GetObjectItemCaseSensitive(sources, src) || !cJSON_GetObjectItemCaseSensitive(sources, rsrc))
        return fs_fail(err, FS_EDATA, "%s: %s: unknown source \"%s\"", file, path,
                       cJSON_GetObjectItemCaseSensitive(sources, src) ? rsrc : src);
    if (strlen(name) >= sizeof out->name)
        return fs_fail(err, FS_EDATA, "%s: %s.name: longer than %zu characters", file, path,
                       sizeof out->name - 1);
    bool gpu = strcmp(scope, "gpu") == 0;
    if (!gpu && strcmp(scope, "node") != 0)
        return fs_fail(err, FS_EDATA, "%s: %s.scope: \"%s\" is not gpu or node", file, path, scope);
    if (strcmp(effect, "node") != 0 && strcmp(effect, "psu") != 0)
        return fs_fail(err, FS_EDATA, "%s: %s.effect: \"%s\" is not node or psu", file, path, effect);
    out->psu = strcmp(effect, "psu") == 0;
    snprintf(out->name, sizeof out->name, "%s", name);
    out->scope = gpu ? FAULT_GPU : FAULT_NODE;
    out->rate_h = count / (gpu ? gpu_h : node_h);
    out->repair = (fs_time)(repair_h * 3600 * FS_USEC + 0.5);
    return 0;
}

int fault_model_load(const char *path, struct fault_model **out, struct fs_err *err)
{
    static const char *const keys[] = {"about", "sources", "exposure", "causes", NULL};
    static const char *const ekeys[] = {"gpus", "gpus_per_node", "hours", "source", NULL};
    cJSON *root = NULL;
    const cJSON *sources = NULL, *exp = NULL, *causes = NULL;
    double gpus = 0, per = 0, hours = 0;
    *out = NULL;
    int rc = json_load_file(path, &root, err);
    if (rc || (rc = json_check_keys(root, keys, path, "$", err)) ||
        (rc = json_child(root, "sources", true, cJSON_Object, &sources, path, "$", err)) ||
        (rc = json_child(root, "exposure", true, cJSON_Object, &exp, path, "$", err)) ||
        (rc = json_check_keys(exp, ekeys, path, "$.exposure", err)) ||
        (rc = json_number(exp, "gpus", true, 1, 1e9, &gpus, path, "$.exposure", err)) ||
        (rc = json_number(exp, "gpus_per_node", true, 1, 64, &per, path, "$.exposure", err)) ||
        (rc = json_number(exp, "hours", true, 1e-3, 1e7, &hours, path, "$.exposure", err)) ||
        (rc = json_child(root, "causes", true, cJSON_Array, &causes, path, "$", err))) {
        cJSON_Delete(root);
        return rc;
    }
    struct fault_model *m = xcalloc(1, sizeof *m);
    int i = 0;
    for (const cJSON *c = causes->child; c && rc == 0; c = c->next, i++) {
        char p[48];
        snprintf(p, sizeof p, "$.causes[%d]", i);
        if (i >= FAULT_MAX_CAUSES) {
            rc = fs_fail(err, FS_EDATA, "%s: $.causes: more than %d causes", path, FAULT_MAX_CAUSES);
            break;
        }
        if (!cJSON_IsObject(c)) {
            rc = fs_fail(err, FS_EDATA, "%s: %s: expected an object", path, p);
            break;
        }
        rc = load_cause(c, path, p, gpus * hours, gpus / per * hours, sources, &m->causes[i], err);
        if (rc == 0) {
            *(m->causes[i].scope == FAULT_GPU ? &m->gpu_rate_h : &m->node_rate_h) += m->causes[i].rate_h;
            m->n = i + 1;
        }
    }
    cJSON_Delete(root);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

void fault_model_free(struct fault_model *m)
{
    free(m);
}

double fault_node_rate_h(const struct fault_model *m, int gpus, double scale)
{
    return scale * (gpus * m->gpu_rate_h + m->node_rate_h);
}

const struct fault_cause *fault_pick(const struct fault_model *m, int gpus, double u)
{
    double total = fault_node_rate_h(m, gpus, 1), x = u * total;
    for (int i = 0; i < m->n; i++) {
        x -= m->causes[i].rate_h * (m->causes[i].scope == FAULT_GPU ? gpus : 1);
        if (x < 0)
            return &m->causes[i];
    }
    return &m->causes[m->n - 1];
}
