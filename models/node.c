/* node.c - node templates, PSU curves and PUE (models/data/nodes.json), and
 * the electrical model of one node (see node.h). */
#include "node.h"

#include <gsl/gsl_interp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"

#define NODE_MAX_GPUS 64
#define NODE_MAX_PSUS 16

/* What one load needs to name the file and resolve source IDs. */
struct ctx {
    const char *file;
    const cJSON *sources;
    struct fs_err *err;
};

static const char *const top_keys[] = {"about", "sources", "pue", "psu_curves", "nodes", NULL};
static const char *const curve_keys[] = {"name", "points", NULL};
static const char *const point_keys[] = {"load", "eff", "source", NULL};
static const char *const value_keys[] = {"value", "source", "notes", NULL};
static const char *const node_keys[] = {"name", "gpu", "gpus", "max_w", "base_idle_w",
                                        "base_busy_w", "psu_count", "psu_usable", "psu_rating_w",
                                        "psu_curve", NULL};

/* Every entry of "sources" is a string; an ID starts "ASSUMPTION" exactly
 * when its text starts "assumption:", so assumptions cannot hide. */
static int check_sources(const struct ctx *cx)
{
    for (const cJSON *s = cx->sources->child; s; s = s->next) {
        if (!cJSON_IsString(s) || !s->valuestring[0])
            return fs_fail(cx->err, FS_EDATA, "%s: $.sources.%s: expected a non-empty string",
                           cx->file, s->string);
        bool id = strncmp(s->string, "ASSUMPTION", 10) == 0;
        bool text = strncmp(s->valuestring, "assumption:", 11) == 0;
        if (id != text)
            return fs_fail(cx->err, FS_EDATA,
                           "%s: $.sources.%s: an ID starts \"ASSUMPTION\" exactly when its "
                           "text starts \"assumption:\"", cx->file, s->string);
    }
    return 0;
}

/* obj.key (at path) names an entry of $.sources. */
static int check_source_ref(const struct ctx *cx, const cJSON *obj, const char *key,
                            const char *path)
{
    const char *id = NULL;
    int rc = json_string(obj, key, true, &id, cx->file, path, cx->err);
    if (rc || cJSON_GetObjectItemCaseSensitive(cx->sources, id))
        return rc;
    const char *ids[128];
    size_t n = 0;
    for (const cJSON *s = cx->sources->child; s && n < FS_ARRAY_LEN(ids); s = s->next)
        ids[n++] = s->string;
    const char *hint = fs_suggest(id, ids, n);
    return fs_fail(cx->err, FS_EDATA, "%s: %s.%s: unknown source \"%s\" (not in $.sources)%s%s%s",
                   cx->file, path, key, id, hint ? "; did you mean \"" : "", hint ? hint : "",
                   hint ? "\"?" : "");
}

/* parent.key = {"value": ..., "source": "ID"[, "notes": "..."]}.  OUT *obj:
 * that object, whose "value" the caller reads with a json_* getter at the
 * path *vpath. */
static int sourced(const struct ctx *cx, const cJSON *parent, const char *ppath, const char *key,
                   const cJSON **obj, char *vpath, size_t vsize)
{
    const char *notes;
    snprintf(vpath, vsize, "%s.%s", ppath, key);
    int rc = json_child(parent, key, true, cJSON_Object, obj, cx->file, ppath, cx->err);
    if (!rc)
        rc = json_check_keys(*obj, value_keys, cx->file, vpath, cx->err);
    if (!rc)
        rc = check_source_ref(cx, *obj, "source", vpath);
    if (!rc)
        rc = json_string(*obj, "notes", false, &notes, cx->file, vpath, cx->err);
    return rc;
}

static int sourced_number(const struct ctx *cx, const cJSON *parent, const char *ppath,
                          const char *key, double lo, double hi, double *out)
{
    char vpath[160];
    const cJSON *obj;
    int rc = sourced(cx, parent, ppath, key, &obj, vpath, sizeof vpath);
    return rc ? rc : json_number(obj, "value", true, lo, hi, out, cx->file, vpath, cx->err);
}

static int sourced_int(const struct ctx *cx, const cJSON *parent, const char *ppath,
                       const char *key, int lo, int hi, int *out)
{
    char vpath[160];
    const cJSON *obj;
    int64_t v = 0;
    int rc = sourced(cx, parent, ppath, key, &obj, vpath, sizeof vpath);
    if (!rc)
        rc = json_int(obj, "value", true, lo, hi, &v, cx->file, vpath, cx->err);
    if (!rc)
        *out = (int)v;
    return rc;
}

/* A name of 1..31 characters of [a-z0-9-], copied to out[32]. */
static int read_name(const struct ctx *cx, const cJSON *obj, const char *path, char *out)
{
    const char *s = NULL;
    int rc = json_string(obj, "name", true, &s, cx->file, path, cx->err);
    if (rc)
        return rc;
    size_t n = strlen(s);
    if (n >= 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
        return fs_fail(cx->err, FS_EDATA, "%s: %s.name: \"%s\" must be 1 to 31 characters of "
                       "[a-z0-9-]", cx->file, path, s);
    memcpy(out, s, n + 1);
    return 0;
}

static int read_curve(const struct ctx *cx, const cJSON *jc, const char *path, struct psu_curve *c)
{
    const cJSON *pts = NULL;
    int rc = json_check_keys(jc, curve_keys, cx->file, path, cx->err);
    if (!rc)
        rc = read_name(cx, jc, path, c->name);
    if (!rc)
        rc = json_child(jc, "points", true, cJSON_Array, &pts, cx->file, path, cx->err);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(pts);
    if (n < 3 || n > PSU_CURVE_MAX_POINTS)
        return fs_fail(cx->err, FS_EDATA, "%s: %s.points: %d points; a curve needs 3 to %d",
                       cx->file, path, n, PSU_CURVE_MAX_POINTS);
    c->n = 0;
    for (const cJSON *p = pts->child; p; p = p->next, c->n++) {
        char ppath[128];
        snprintf(ppath, sizeof ppath, "%s.points[%d]", path, c->n);
        if (!cJSON_IsObject(p))
            return fs_fail(cx->err, FS_EDATA, "%s: %s: expected an object", cx->file, ppath);
        if ((rc = json_check_keys(p, point_keys, cx->file, ppath, cx->err)) ||
            (rc = json_number(p, "load", true, 1e-6, 2, &c->load[c->n], cx->file, ppath, cx->err)) ||
            (rc = json_number(p, "eff", true, 0.01, 1, &c->eff[c->n], cx->file, ppath, cx->err)) ||
            (rc = check_source_ref(cx, p, "source", ppath)))
            return rc;
        if (c->n > 0 && !(c->load[c->n] > c->load[c->n - 1]))
            return fs_fail(cx->err, FS_EDATA, "%s: %s.load: loads must increase", cx->file, ppath);
    }
    return 0;
}

static int find_curve(const struct ctx *cx, const struct node_catalog *nc, const cJSON *jn,
                      const char *path, int *out)
{
    char vpath[160];
    const cJSON *obj;
    const char *name = NULL, *names[PSU_MAX_CURVES];
    int rc = sourced(cx, jn, path, "psu_curve", &obj, vpath, sizeof vpath);
    if (!rc)
        rc = json_string(obj, "value", true, &name, cx->file, vpath, cx->err);
    if (rc)
        return rc;
    for (int i = 0; i < nc->ncurves; i++) {
        names[i] = nc->curves[i].name;
        if (strcmp(name, names[i]) == 0)
            return *out = i, 0;
    }
    const char *hint = fs_suggest(name, names, (size_t)nc->ncurves);
    return fs_fail(cx->err, FS_EDATA, "%s: %s.value: unknown PSU curve \"%s\"%s%s%s", cx->file,
                   vpath, name, hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int read_node(const struct ctx *cx, const struct gpu_catalog *cat, const cJSON *jn,
                     const char *path, struct node_catalog *nc, struct node_template *t)
{
    const char *gpu = NULL;
    int rc = json_check_keys(jn, node_keys, cx->file, path, cx->err);
    if (!rc)
        rc = read_name(cx, jn, path, t->name);
    for (int i = 0; !rc && nc->templates + i < t; i++)
        if (strcmp(nc->templates[i].name, t->name) == 0)
            rc = fs_fail(cx->err, FS_EDATA, "%s: %s.name: \"%s\" is already $.nodes[%d]",
                         cx->file, path, t->name, i);
    if (!rc)
        rc = json_string(jn, "gpu", true, &gpu, cx->file, path, cx->err);
    if (!rc && (t->gpu_type = gpu_catalog_find(cat, gpu)) < 0) {
        const char *hint = fs_suggest(gpu, cat->names, (size_t)cat->n);
        rc = fs_fail(cx->err, FS_EDATA, "%s: %s.gpu: unknown GPU type \"%s\"%s%s%s", cx->file,
                     path, gpu, hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
    }
    if (rc || (rc = sourced_int(cx, jn, path, "gpus", 1, NODE_MAX_GPUS, &t->gpus)) ||
        (rc = sourced_number(cx, jn, path, "max_w", 1, 1e6, &t->max_w)) ||
        (rc = sourced_number(cx, jn, path, "base_idle_w", 0, 1e6, &t->base_idle_w)) ||
        (rc = sourced_number(cx, jn, path, "base_busy_w", 0, 1e6, &t->base_busy_w)) ||
        (rc = sourced_int(cx, jn, path, "psu_count", 1, NODE_MAX_PSUS, &t->psu_count)) ||
        (rc = sourced_int(cx, jn, path, "psu_usable", 1, t->psu_count, &t->psu_usable)) ||
        (rc = sourced_number(cx, jn, path, "psu_rating_w", 1, 1e6, &t->psu_rating_w)) ||
        (rc = find_curve(cx, nc, jn, path, &t->curve)))
        return rc;
    double gpus_w = t->gpus * cat->types[t->gpu_type].tdp_w;
    if (t->base_idle_w > t->base_busy_w)
        return fs_fail(cx->err, FS_EDATA, "%s: %s.base_idle_w.value: %g W exceeds the non-GPU "
                       "power at full GPU activity, base_busy_w = %g W", cx->file, path,
                       t->base_idle_w, t->base_busy_w);
    if (gpus_w + t->base_busy_w > t->max_w)
        return fs_fail(cx->err, FS_EDATA, "%s: %s.max_w.value: %g W is below the full-load draw, "
                       "%d x %g W TDP + base_busy_w %g W", cx->file, path, t->max_w, t->gpus,
                       cat->types[t->gpu_type].tdp_w, t->base_busy_w);
    return 0;
}

static int read_catalog(const struct ctx *cx, const cJSON *root, const struct gpu_catalog *cat,
                        struct node_catalog *nc)
{
    const cJSON *curves = NULL, *nodes = NULL;
    const char *about;
    int rc = json_check_keys(root, top_keys, cx->file, "$", cx->err);
    if (!rc)
        rc = json_string(root, "about", false, &about, cx->file, "$", cx->err);
    if (rc || (rc = check_sources(cx)) ||
        (rc = sourced_number(cx, root, "$", "pue", 1, 5, &nc->pue)) ||
        (rc = json_child(root, "psu_curves", true, cJSON_Array, &curves, cx->file, "$", cx->err)) ||
        (rc = json_child(root, "nodes", true, cJSON_Array, &nodes, cx->file, "$", cx->err)))
        return rc;
    int nn = cJSON_GetArraySize(curves), nt = cJSON_GetArraySize(nodes);
    if (nn < 1 || nn > PSU_MAX_CURVES || nt < 1 || nt > NODE_MAX_TEMPLATES)
        return fs_fail(cx->err, FS_EDATA, "%s: $: need 1 to %d psu_curves and 1 to %d nodes, "
                       "got %d and %d", cx->file, PSU_MAX_CURVES, NODE_MAX_TEMPLATES, nn, nt);
    char path[64];
    for (const cJSON *c = curves->child; c; c = c->next, nc->ncurves++) {
        snprintf(path, sizeof path, "$.psu_curves[%d]", nc->ncurves);
        if (!cJSON_IsObject(c))
            return fs_fail(cx->err, FS_EDATA, "%s: %s: expected an object", cx->file, path);
        if ((rc = read_curve(cx, c, path, &nc->curves[nc->ncurves])))
            return rc;
        for (int i = 0; i < nc->ncurves; i++)
            if (strcmp(nc->curves[i].name, nc->curves[nc->ncurves].name) == 0)
                return fs_fail(cx->err, FS_EDATA, "%s: %s.name: \"%s\" given twice", cx->file,
                               path, nc->curves[i].name);
    }
    for (const cJSON *n = nodes->child; n; n = n->next, nc->ntemplates++) {
        snprintf(path, sizeof path, "$.nodes[%d]", nc->ntemplates);
        if (!cJSON_IsObject(n))
            return fs_fail(cx->err, FS_EDATA, "%s: %s: expected an object", cx->file, path);
        if ((rc = read_node(cx, cat, n, path, nc, &nc->templates[nc->ntemplates])))
            return rc;
    }
    return 0;
}

/* The Steffen spline through c's points. */
static gsl_interp *spline_of(const struct psu_curve *c)
{
    gsl_interp *ip = gsl_interp_alloc(gsl_interp_steffen, (size_t)c->n);
    if (!ip) {
        fprintf(stderr, "fleetsim: out of memory\n");
        abort();
    }
    gsl_interp_init(ip, c->load, c->eff, (size_t)c->n);
    return ip;
}

int node_catalog_load(const char *path, const struct gpu_catalog *cat,
                      struct node_catalog **out, struct fs_err *err)
{
    cJSON *root = NULL;
    struct node_catalog *nc = NULL;
    *out = NULL;
    int rc = json_load_file(path, &root, err);
    if (rc)
        return rc;
    struct ctx cx = {.file = path, .err = err};
    if ((rc = json_child(root, "sources", true, cJSON_Object, &cx.sources, path, "$", err)))
        goto done;
    nc = xcalloc(1, sizeof *nc);
    if ((rc = read_catalog(&cx, root, cat, nc)))
        goto done;
    for (int i = 0; i < nc->ncurves; i++)
        nc->curves[i].spline = spline_of(&nc->curves[i]);
    *out = nc;
    nc = NULL;
done:
    node_catalog_free(nc);
    cJSON_Delete(root);
    return rc;
}

void node_catalog_free(struct node_catalog *nc)
{
    for (int i = 0; nc && i < nc->ncurves; i++)
        if (nc->curves[i].spline)
            gsl_interp_free(nc->curves[i].spline);
    free(nc);
}

const struct node_template *node_template_find(const struct node_catalog *nc, const char *name)
{
    for (int i = 0; nc && name && i < nc->ntemplates; i++)
        if (strcmp(nc->templates[i].name, name) == 0)
            return &nc->templates[i];
    return NULL;
}

const struct node_template *node_template_for_gpu(const struct node_catalog *nc, int gpu_type)
{
    for (int i = 0; nc && i < nc->ntemplates; i++)
        if (nc->templates[i].gpu_type == gpu_type)
            return &nc->templates[i];
    return NULL;
}

double psu_efficiency(const struct psu_curve *c, double load)
{
    if (isnan(load) || load <= c->load[0])
        return c->eff[0];
    if (load >= c->load[c->n - 1])
        return c->eff[c->n - 1];
    if (c->spline) /* the loader's, built once: this runs at every job start and end */
        return gsl_interp_eval(c->spline, c->load, c->eff, load, NULL);
    gsl_interp *ip = spline_of(c);
    double e = gsl_interp_eval(ip, c->load, c->eff, load, NULL);
    gsl_interp_free(ip);
    return e;
}

struct node_power node_power_eval(const struct node_catalog *nc, const struct node_template *nt,
                                  double gpu_w, double activity, int psus_ok)
{
    struct node_power p = {0};
    activity = activity < 0 ? 0 : activity > 1 ? 1 : activity;
    if (psus_ok > nt->psu_count)
        psus_ok = nt->psu_count;
    p.dc_w = gpu_w + nt->base_idle_w + (nt->base_busy_w - nt->base_idle_w) * activity;
    if (psus_ok < 1) {
        /* No PSU left: the node cannot run; report it as overloaded. */
        p.psu_load = HUGE_VAL;
        p.overload = true;
        return p;
    }
    p.usable_w = (psus_ok < nt->psu_usable ? psus_ok : nt->psu_usable) * nt->psu_rating_w;
    p.psu_load = p.dc_w / p.usable_w;
    p.overload = p.psu_load > 1;
    double share = p.dc_w / (psus_ok * nt->psu_rating_w);
    p.wall_w = p.dc_w / psu_efficiency(&nc->curves[nt->curve], share);
    return p;
}
