/* test_power.c - the power model (models/power.h) and the node electrical
 * model (models/node.h), against the shipped gpus.json, nodes.json and
 * power.json: fitted curves within stated tolerances of the measured and
 * held-out points, the shapes the simulator relies on, a DGX H100 at full
 * load, PSU curves, and the loaders' answers to bad files. */
#include "../base/json.h"
#include "../models/node.h"
#include "../models/power.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUS_JSON "models/data/gpus.json"
#define NODES_JSON "models/data/nodes.json"
#define POWER_JSON "models/data/power.json"

/* Tolerances this file asserts (stated in the report and power.json). */
#define INFER_TOL 0.10     /* relative, every fitted and held-out H100 point */
#define CAP_TOL_HIGH 0.07  /* absolute speed, held-out Zeus points at r >= 0.75 */
#define CAP_TOL_LOW 0.21   /* absolute speed, held-out Zeus points at r < 0.75 */

static struct gpu_catalog *cat;
static struct node_catalog *nodes;
static struct power_model *pm;
static cJSON *pjson;

static int setup(void)
{
    struct fs_err e = {0};
    if (gpu_catalog_load(tu_path(GPUS_JSON), &cat, &e) ||
        node_catalog_load(tu_path(NODES_JSON), cat, &nodes, &e) ||
        power_model_load(tu_path(POWER_JSON), cat, &pm, &e) ||
        json_load_file(tu_path(POWER_JSON), &pjson, &e)) {
        fprintf(stderr, "test_power: %s\n", e.msg);
        return 1;
    }
    return 0;
}

static int teardown(void)
{
    power_model_free(pm);
    node_catalog_free(nodes);
    gpu_catalog_free(cat);
    cJSON_Delete(pjson);
    return 0;
}

static const struct gpu_type *gpu(const char *name)
{
    int i = gpu_catalog_find(cat, name);
    CU_ASSERT_FATAL(i >= 0);
    return &cat->types[i];
}

static const cJSON *at(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

/* ---- inference power vs batch ------------------------------------------ */

/* Max relative error of the fitted curve over the sets of power.json's
 * $.infer.<list>; prints one line per set. */
static double infer_max_err(const char *list)
{
    double worst = 0;
    const cJSON *set;
    cJSON_ArrayForEach(set, at(at(pjson, "infer"), list)) {
        double gpus = at(set, "num_gpus")->valuedouble, max = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, at(set, "points")) {
            double b = cJSON_GetArrayItem(pt, 0)->valuedouble;
            double w = cJSON_GetArrayItem(pt, 1)->valuedouble / gpus;
            max = fmax(max, fabs(power_logistic_eval(&pm->infer, log2(b)) - w) / w);
        }
        printf("\n    %s %s: max error %.2f %%", list, at(set, "model")->valuestring, 100 * max);
        worst = fmax(worst, max);
    }
    return worst;
}

static void test_infer_fit(void)
{
    printf("\n    fit: lo %.1f W, hi %.1f W, k %.4f, x0 %.3f; %zu points, max %.2f %%, rms %.2f %%",
           pm->infer.lo, pm->infer.hi, pm->infer.k, pm->infer.x0, pm->infer_fit.n,
           100 * pm->infer_fit.max_rel_err, 100 * pm->infer_fit.rms_rel_err);
    CU_ASSERT_EQUAL(pm->infer_gpu, gpu_catalog_find(cat, "h100-sxm"));
    CU_ASSERT(pm->infer_fit.n >= 8);
    CU_ASSERT(pm->infer_fit.max_rel_err < INFER_TOL);
    CU_ASSERT(pm->infer_fit.rms_rel_err <= pm->infer_fit.max_rel_err);
    CU_ASSERT(infer_max_err("fit") < INFER_TOL);
    CU_ASSERT(pm->infer.k > 0 && pm->infer.hi > pm->infer.lo);
}

static void test_infer_holdout(void)
{
    CU_ASSERT(cJSON_GetArraySize(at(at(pjson, "infer"), "holdout")) >= 1);
    CU_ASSERT(infer_max_err("holdout") < INFER_TOL);
}

static void test_infer_shape(void)
{
    const struct gpu_type *h100 = gpu("h100-sxm");
    double prev = -1;
    for (double b = 1; b <= 65536; b *= 1.25) {
        double load = power_load_infer(pm, cat, b), w = power_gpu_w(h100, load);
        CU_ASSERT(load >= prev);
        CU_ASSERT(load >= 0 && load <= 1);
        CU_ASSERT(w >= h100->idle_w && w <= h100->tdp_w);
        prev = load;
    }
    /* Below a batch of 1 the load is that of batch 1. */
    CU_ASSERT_DOUBLE_EQUAL(power_load_infer(pm, cat, 0), power_load_infer(pm, cat, 1), 1e-12);
    /* At batch 128 the H100 measured ~669 W: the load share says so too. */
    CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(h100, power_load_infer(pm, cat, 128)), 669, 669 * 0.03);
}

static void test_gpu_w_ends(void)
{
    for (int i = 0; i < cat->n; i++) {
        const struct gpu_type *t = &cat->types[i];
        CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(t, 0), t->idle_w, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(t, 1), t->tdp_w, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(t, -0.5), t->idle_w, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(t, 7), t->tdp_w, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(power_gpu_w(t, 0.5), (t->idle_w + t->tdp_w) / 2, 1e-9);
    }
    CU_ASSERT(pm->train_load > 0 && pm->train_load <= 1);
}

/* ---- the fitter ---------------------------------------------------------- */

static void test_fit_synthetic(void)
{
    const struct power_logistic want = {120, 680, 1.3, 4.5};
    double x[25], y[25], noisy[25];
    for (int i = 0; i < 25; i++) {
        x[i] = 0.5 * i;
        y[i] = power_logistic_eval(&want, x[i]);
        noisy[i] = y[i] * (1 + 0.01 * ((i * 7) % 5 - 2) / 2.0); /* +-1 %, deterministic */
    }
    struct power_logistic got;
    struct power_fit_stats st;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL_FATAL(power_fit_logistic(x, y, 25, &got, &st, &e), 0);
    CU_ASSERT_DOUBLE_EQUAL(got.lo, want.lo, 1e-4 * want.lo);
    CU_ASSERT_DOUBLE_EQUAL(got.hi, want.hi, 1e-4 * want.hi);
    CU_ASSERT_DOUBLE_EQUAL(got.k, want.k, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(got.x0, want.x0, 1e-4);
    CU_ASSERT(st.n == 25 && st.max_rel_err < 1e-6 && st.converged);

    CU_ASSERT_EQUAL_FATAL(power_fit_logistic(x, noisy, 25, &got, &st, &e), 0);
    CU_ASSERT_DOUBLE_EQUAL(got.lo, want.lo, 0.05 * want.lo);
    CU_ASSERT_DOUBLE_EQUAL(got.hi, want.hi, 0.02 * want.hi);
    CU_ASSERT_DOUBLE_EQUAL(got.k, want.k, 0.1 * want.k);
    CU_ASSERT_DOUBLE_EQUAL(got.x0, want.x0, 0.1);
    CU_ASSERT(st.max_rel_err < 0.015 && st.rms_rel_err < 0.01 && st.converged);

    /* A falling curve comes back with k > 0 and evaluates the same. */
    for (int i = 0; i < 25; i++)
        y[i] = power_logistic_eval(&(struct power_logistic){600, 200, -0.9, 6}, x[i]);
    CU_ASSERT_EQUAL_FATAL(power_fit_logistic(x, y, 25, &got, &st, &e), 0);
    CU_ASSERT(got.k > 0);
    CU_ASSERT(st.max_rel_err < 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(power_logistic_eval(&got, 3), y[6], 1e-3);

    /* Flat points fit exactly at the start; points on a line have no finite
     * optimum: the fit says it did not converge but returns what it has. */
    for (int i = 0; i < 25; i++)
        y[i] = 300, noisy[i] = 100 + 10 * x[i];
    CU_ASSERT_EQUAL_FATAL(power_fit_logistic(x, y, 25, &got, &st, &e), 0);
    CU_ASSERT(st.converged && st.max_rel_err < 1e-9);
    CU_ASSERT_EQUAL_FATAL(power_fit_logistic(x, noisy, 25, &got, &st, &e), 0);
    CU_ASSERT(!st.converged && st.max_rel_err < 0.01);
    CU_ASSERT(isfinite(got.lo) && isfinite(got.hi) && isfinite(got.k) && isfinite(got.x0));
}

static void test_fit_bad_input(void)
{
    double x[5] = {0, 1, 2, 3, 4}, y[5] = {1, 2, 3, 4, 5};
    struct power_logistic got;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL(power_fit_logistic(x, y, 3, &got, NULL, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "need 4"));
    y[2] = 0;
    CU_ASSERT_EQUAL(power_fit_logistic(x, y, 5, &got, NULL, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "point 3"));
    y[2] = 3, x[4] = NAN;
    CU_ASSERT_EQUAL(power_fit_logistic(x, y, 5, &got, NULL, &e), FS_EDATA);
}

/* ---- power caps ---------------------------------------------------------- */

static void test_cap_shape(void)
{
    printf("\n    cap: a %.4f, b %.4f; %zu points, max %.1f %%, rms %.1f %% (relative)",
           pm->cap_a, pm->cap_b, pm->cap_fit.n, 100 * pm->cap_fit.max_rel_err,
           100 * pm->cap_fit.rms_rel_err);
    CU_ASSERT(pm->cap_fit.n >= 20);
    CU_ASSERT_EQUAL(power_cap_speed(pm, 700, 700), 1);
    CU_ASSERT_EQUAL(power_cap_speed(pm, 800, 700), 1);
    CU_ASSERT_EQUAL(power_cap_speed(pm, 100, 0), 1);
    double prev = 2;
    for (double cap = 700; cap >= 0; cap -= 7) {
        double s = power_cap_speed(pm, cap, 700);
        CU_ASSERT(s <= prev && s > 0 && s <= 1);
        prev = s;
    }
    /* Just under the draw costs almost nothing. */
    CU_ASSERT(power_cap_speed(pm, 693, 700) > 0.999);
}

static void test_cap_holdout(void)
{
    double worst_hi = 0, worst_lo = 0;
    int n = 0;
    const cJSON *set;
    cJSON_ArrayForEach(set, at(at(pjson, "cap"), "holdout")) {
        /* Derived here as power.json's "about" says, independently of power.c. */
        const cJSON *rows = at(set, "rows"), *r;
        double tmin = INFINITY, top = 0, draw = 0;
        cJSON_ArrayForEach(r, rows) {
            double lim = cJSON_GetArrayItem(r, 0)->valuedouble;
            tmin = fmin(tmin, cJSON_GetArrayItem(r, 1)->valuedouble);
            if (lim > top)
                top = lim, draw = cJSON_GetArrayItem(r, 2)->valuedouble;
        }
        cJSON_ArrayForEach(r, rows) {
            double lim = cJSON_GetArrayItem(r, 0)->valuedouble;
            double speed = tmin / cJSON_GetArrayItem(r, 1)->valuedouble;
            double err = fabs(power_cap_speed(pm, lim, draw) - speed);
            if (lim >= draw)
                continue;
            n++;
            if (lim / draw >= 0.75)
                worst_hi = fmax(worst_hi, err);
            else
                worst_lo = fmax(worst_lo, err);
        }
    }
    printf("\n    cap holdout: %d points, max |error| %.3f at r >= 0.75, %.3f below", n,
           worst_hi, worst_lo);
    CU_ASSERT(n >= 10);
    CU_ASSERT(worst_hi <= CAP_TOL_HIGH);
    CU_ASSERT(worst_lo <= CAP_TOL_LOW);
}

/* ---- nodes and PSUs ---------------------------------------------------- */

static void test_shipped_nodes(void)
{
    static const char *const names[] = {"dgx-h100", "dgx-h200", "hgx-h200", "dgx-a100",
                                         "dgx-a100-40", "pcie8-a100-80", "pcie8-rtx4090"};
    for (size_t i = 0; i < FS_ARRAY_LEN(names); i++) {
        const struct node_template *t = node_template_find(nodes, names[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT(t->base_idle_w <= t->base_busy_w && t->base_busy_w > 0);
        CU_ASSERT(t->gpus * cat->types[t->gpu_type].tdp_w + t->base_busy_w <= t->max_w);
        CU_ASSERT(t->psu_usable <= t->psu_count);
    }
    CU_ASSERT_PTR_NULL(node_template_find(nodes, "dgx-h1000"));
    CU_ASSERT_PTR_NULL(node_template_find(nodes, NULL));
    CU_ASSERT_STRING_EQUAL(node_template_for_gpu(nodes, gpu_catalog_find(cat, "h200-sxm"))->name,
                           "dgx-h200");
    CU_ASSERT_STRING_EQUAL(node_template_for_gpu(nodes, gpu_catalog_find(cat, "rtx4090"))->name,
                           "pcie8-rtx4090");
    CU_ASSERT_PTR_NULL(node_template_for_gpu(nodes, -1));
    const struct node_template *dgx = node_template_find(nodes, "dgx-h100");
    CU_ASSERT_EQUAL(dgx->gpus, 8);
    CU_ASSERT_DOUBLE_EQUAL(dgx->max_w, 10200, 1e-9);
    CU_ASSERT(dgx->psu_count == 6 && dgx->psu_usable == 4);
    CU_ASSERT_DOUBLE_EQUAL(dgx->psu_rating_w, 3300, 1e-9);
    const struct node_template *a100 = node_template_find(nodes, "dgx-a100");
    CU_ASSERT(a100->psu_count == 6 && a100->psu_usable == 3);
    CU_ASSERT_DOUBLE_EQUAL(a100->max_w, 6500, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(nodes->pue, 1.56, 1e-12);
}

static void test_dgx_full_load(void)
{
    const struct node_template *dgx = node_template_find(nodes, "dgx-h100");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dgx);
    struct node_power p = node_power_eval(nodes, dgx, 8 * 700, 1, 6);
    double full = 8 * 700 + dgx->base_busy_w;
    CU_ASSERT_DOUBLE_EQUAL(p.dc_w, full, 1e-9);
    CU_ASSERT(full < dgx->max_w);
    CU_ASSERT_DOUBLE_EQUAL(p.usable_w, 4 * 3300, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p.psu_load, full / 13200, 1e-12);
    CU_ASSERT(p.psu_load < 1 && !p.overload);
    CU_ASSERT(p.wall_w > p.dc_w);
    /* Losing two PSUs of a 4+2 set still leaves 4 x 3.3 kW; four lost
     * leave 6.6 kW, short of every GPU at TDP plus the host. */
    CU_ASSERT(!node_power_eval(nodes, dgx, 8 * 700, 1, 4).overload);
    p = node_power_eval(nodes, dgx, 8 * 700, 1, 2);
    CU_ASSERT_DOUBLE_EQUAL(p.usable_w, 2 * 3300, 1e-9);
    CU_ASSERT(p.psu_load > 1 && p.overload);
    /* Idle: GPUs at idle and no activity. */
    p = node_power_eval(nodes, dgx, 8 * 70, 0, 6);
    CU_ASSERT_DOUBLE_EQUAL(p.dc_w, 560 + dgx->base_idle_w, 1e-9);
    p = node_power_eval(nodes, dgx, 8 * 700, 1, 0);
    CU_ASSERT(p.overload);
}

/* Node DC power against the node-level measurements nodes.json was
 * calibrated on (its DERIVED_DGX_H100_BASE and SERVERGEAR_4x4090).  The
 * tolerance, +-10 %, is the issue's; the data's own spread is wider: the
 * same SMC table shows 8-GPU nodes at 4.7 to 6.7 kW across benchmarks.
 * - DGX H100 training Llama-2-70B LoRA, MLPerf Training v4.0 (SMC energy
 *   table, 2024): 6741 W DC, every GPU at the measured training load share;
 * - Supermicro SYS-741GE with 4 x RTX 4090 under gpu_burn with CPU stress
 *   (server-gear.com, 2024): 2160 W, every GPU at TDP (activity 1). */
static void test_node_measured(void)
{
    const struct node_template *dgx = node_template_find(nodes, "dgx-h100");
    const struct node_template *rtx = node_template_find(nodes, "pcie8-rtx4090");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dgx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rtx);
    double w = power_gpu_w(gpu("h100-sxm"), pm->train_load);
    double dc = node_power_eval(nodes, dgx, 8 * w, pm->train_load, 6).dc_w;
    printf("\n    DGX H100 training: model %.0f W DC, measured 6741 W (%+.1f %%)", dc,
           100 * (dc / 6741 - 1));
    CU_ASSERT(fabs(dc / 6741 - 1) <= 0.10);
    dc = node_power_eval(nodes, rtx, 4 * gpu("rtx4090")->tdp_w, 1, 4).dc_w;
    printf("\n    4 x RTX 4090 gpu_burn: model %.0f W DC, measured 2160 W (%+.1f %%)", dc,
           100 * (dc / 2160 - 1));
    CU_ASSERT(fabs(dc / 2160 - 1) <= 0.10);
}

static void test_psu_curves(void)
{
    CU_ASSERT(nodes->ncurves >= 3);
    for (int c = 0; c < nodes->ncurves; c++) {
        const struct psu_curve *pc = &nodes->curves[c];
        for (int i = 0; i < pc->n; i++)
            CU_ASSERT_DOUBLE_EQUAL(psu_efficiency(pc, pc->load[i]), pc->eff[i], 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(psu_efficiency(pc, 0), pc->eff[0], 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(psu_efficiency(pc, 3), pc->eff[pc->n - 1], 1e-12);
        /* Monotone between neighbouring points, never past them. */
        for (int i = 0; i + 1 < pc->n; i++) {
            double lo = fmin(pc->eff[i], pc->eff[i + 1]), hi = fmax(pc->eff[i], pc->eff[i + 1]);
            double dir = pc->eff[i + 1] >= pc->eff[i] ? 1 : -1, prev = pc->eff[i];
            for (int k = 1; k <= 50; k++) {
                double l = pc->load[i] + (pc->load[i + 1] - pc->load[i]) * k / 50.0;
                double e = psu_efficiency(pc, l);
                CU_ASSERT(e >= lo - 1e-12 && e <= hi + 1e-12);
                CU_ASSERT(dir * (e - prev) >= -1e-12);
                prev = e;
            }
        }
    }
    const struct psu_curve *ti = &nodes->curves[0];
    CU_ASSERT_STRING_EQUAL(ti->name, "80plus-titanium");
    CU_ASSERT_DOUBLE_EQUAL(psu_efficiency(ti, 0.5), 0.96, 1e-12);
}

static void test_wall_is_dc_over_eff(void)
{
    for (int i = 0; i < nodes->ntemplates; i++) {
        const struct node_template *t = &nodes->templates[i];
        const struct gpu_type *g = &cat->types[t->gpu_type];
        for (int ok = 1; ok <= t->psu_count; ok++) {
            for (double a = 0; a <= 1; a += 0.25) {
                struct node_power p = node_power_eval(nodes, t, t->gpus * power_gpu_w(g, a), a, ok);
                double eff = psu_efficiency(&nodes->curves[t->curve],
                                            p.dc_w / (ok * t->psu_rating_w));
                CU_ASSERT_DOUBLE_EQUAL(p.wall_w, p.dc_w / eff, 1e-9 * p.wall_w);
                CU_ASSERT(p.wall_w > p.dc_w);
            }
        }
        /* Every template at full load draws its GPUs' TDP and the host's
         * busy power, within its nameplate maximum. */
        struct node_power full = node_power_eval(nodes, t, t->gpus * g->tdp_w, 1, t->psu_count);
        CU_ASSERT_DOUBLE_EQUAL(full.dc_w, t->gpus * g->tdp_w + t->base_busy_w, 1e-9);
        CU_ASSERT(full.dc_w <= t->max_w);
        CU_ASSERT(!full.overload);
    }
}

/* A node file around one template, the rest as given. */
static const char *node_file(const char *node_fields, const char *extra_top)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"sources\": {\"S\": \"a source\", \"ASSUMPTION_X\": \"assumption: made up\"},\n"
             " \"pue\": {\"value\": 1.5, \"source\": \"S\"},%s\n"
             " \"psu_curves\": [{\"name\": \"gold\", \"points\": [\n"
             "   {\"load\": 0.2, \"eff\": 0.88, \"source\": \"S\"},\n"
             "   {\"load\": 0.5, \"eff\": 0.92, \"source\": \"S\"},\n"
             "   {\"load\": 1.0, \"eff\": 0.88, \"source\": \"S\"}]}],\n"
             " \"nodes\": [{\"name\": \"quad\", \"gpu\": \"h100-sxm\",\n"
             "   \"gpus\": {\"value\": 4, \"source\": \"S\"},\n"
             "   \"max_w\": {\"value\": 3400, \"source\": \"S\"},\n"
             "   \"base_idle_w\": {\"value\": 200, \"source\": \"ASSUMPTION_X\"},\n"
             "   \"base_busy_w\": {\"value\": 600, \"source\": \"S\"},\n"
             "   \"psu_count\": {\"value\": 2, \"source\": \"S\"},\n"
             "   \"psu_usable\": {\"value\": 1, \"source\": \"S\"},\n"
             "   \"psu_rating_w\": {\"value\": 2000, \"source\": \"S\"},\n"
             "   \"psu_curve\": {\"value\": \"gold\", \"source\": \"S\"}%s}]}\n",
             extra_top, node_fields);
    return tu_tmpfile(".json", buf);
}

/* Worked by hand: 4 x H100 at 400 W, activity 0.5, base 200..600 W
 * (max 3400 = 4 x 700 + 600): DC = 1600 + 200 + 400 x 0.5 = 2000 W.  Two
 * 2000 W PSUs in 1+1 carry 2000 W: PSU load exactly 1.0, not an overload.
 * Both healthy share it at 2000 / 4000 = 50 % of rating: Gold 0.92, so the
 * wall sees 2000 / 0.92 = 2173.913 W, and the facility x 1.5 = 3260.870 W.
 * One PSU left carries it all at 100 %: 0.88, wall 2272.727 W. */
static void test_hand_example(void)
{
    struct node_catalog *nc = NULL;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL_FATAL(node_catalog_load(node_file("", ""), cat, &nc, &e), 0);
    const struct node_template *t = node_template_find(nc, "quad");
    CU_ASSERT_DOUBLE_EQUAL(t->base_busy_w, 600, 1e-9);
    struct node_power p = node_power_eval(nc, t, 4 * 400, 0.5, 2);
    CU_ASSERT_DOUBLE_EQUAL(p.dc_w, 2000, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p.usable_w, 2000, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p.psu_load, 1.0, 1e-12);
    CU_ASSERT(!p.overload);
    CU_ASSERT_DOUBLE_EQUAL(p.wall_w, 2173.913043, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(p.wall_w * nc->pue, 3260.869565, 1e-5);
    p = node_power_eval(nc, t, 4 * 400, 0.5, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.wall_w, 2272.727273, 1e-5);
    p = node_power_eval(nc, t, 4 * 410, 0.5, 1);
    CU_ASSERT(p.overload);
    node_catalog_free(nc);
}

/* ---- loader errors -------------------------------------------------------- */

static void expect_node_error(const char *node_fields, const char *extra_top, const char *want)
{
    static struct node_catalog untouched;
    struct node_catalog *nc = &untouched;
    struct fs_err e = {0};
    const char *path = node_file(node_fields, extra_top);
    CU_ASSERT_EQUAL(node_catalog_load(path, cat, &nc, &e), FS_EDATA);
    CU_ASSERT_PTR_NULL(nc);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, path));
    if (!strstr(e.msg, want))
        printf("\n    want \"%s\" in: %s", want, e.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, want));
}

static void test_node_errors(void)
{
    struct node_catalog *nc;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL(node_catalog_load("/nonexistent/nodes.json", cat, &nc, &e), FS_ENOINPUT);
    expect_node_error(", \"psu_rating\": 3", "", "$.nodes[0]: unknown key \"psu_rating\"; did you mean \"psu_rating_w\"?");
    expect_node_error("", " \"extra\": 1,", "$: unknown key \"extra\"");
    expect_node_error(", \"gpu\": \"h100-sx\"", "", "duplicate key \"gpu\"");
    expect_node_error(", \"x\": {\"value\": 1}", "", "$.nodes[0]: unknown key \"x\"");
    /* One edit each to a valid file. */
    struct { const char *from, *to, *want; } cases[] = {
        {"\"max_w\": {\"value\": 3400", "\"max_w\": {\"value\": 2800", "$.nodes[0].max_w.value: 2800 W is below the full-load draw"},
        {"\"value\": 200, \"source\": \"ASSUMPTION_X\"", "\"value\": 700, \"source\": \"ASSUMPTION_X\"", "$.nodes[0].base_idle_w.value: 700 W exceeds"},
        {"\"gpu\": \"h100-sxm\"", "\"gpu\": \"h100-sxn\"", "$.nodes[0].gpu: unknown GPU type \"h100-sxn\"; did you mean \"h100-sxm\"?"},
        {"\"value\": \"gold\"", "\"value\": \"golden\"", "$.nodes[0].psu_curve.value: unknown PSU curve \"golden\""},
        {"\"psu_usable\": {\"value\": 1", "\"psu_usable\": {\"value\": 3", "$.nodes[0].psu_usable.value: 3 is out of range [1, 2]"},
        {"\"gpus\": {\"value\": 4, \"source\": \"S\"}", "\"gpus\": {\"value\": 4, \"source\": \"T\"}", "$.nodes[0].gpus.source: unknown source \"T\""},
        {"\"a source\"", "\"assumption: a source\"", "$.sources.S: an ID starts \"ASSUMPTION\""},
        {"{\"load\": 0.5", "{\"load\": 0.1", "$.psu_curves[0].points[1].load: loads must increase"},
        {"\"eff\": 0.92", "\"eff\": 1.92", "$.psu_curves[0].points[1].eff: 1.92 is out of range"},
        {"\"pue\": {\"value\": 1.5", "\"pue\": {\"value\": 0.5", "$.pue.value: 0.5 is out of range"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(cases); i++) {
        char buf[4096];
        const char *good = node_file("", "");
        FILE *f = fopen(good, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *hit = strstr(buf, cases[i].from), out[4096];
        CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
        snprintf(out, sizeof out, "%.*s%s%s", (int)(hit - buf), buf, cases[i].to,
                 hit + strlen(cases[i].from));
        const char *path = tu_tmpfile(".json", out);
        nc = NULL;
        CU_ASSERT_EQUAL(node_catalog_load(path, cat, &nc, &e), FS_EDATA);
        if (!strstr(e.msg, cases[i].want))
            printf("\n    want \"%s\" in: %s", cases[i].want, e.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, cases[i].want));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, path));
        node_catalog_free(nc);
    }
}

static void test_power_errors(void)
{
    struct power_model *m = NULL;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL(power_model_load("/nonexistent/power.json", cat, &m, &e), FS_ENOINPUT);
    CU_ASSERT_PTR_NULL(m);
    /* Edit the shipped file: an unknown key, a bad row, a GPU not in the catalog. */
    char *text = cJSON_Print(pjson);
    struct { const char *from, *to, *want; } cases[] = {
        {"\"train_load\":", "\"train_loads\": 1, \"train_load\":", "$: unknown key \"train_loads\"; did you mean \"train_load\"?"},
        {"\"h100-sxm\"", "\"h100-sxn\"", "$.infer.gpu: unknown GPU type \"h100-sxn\""},
        {"\"num_gpus\":", "\"num_gpu\": 1, \"num_gpus\":", "$.infer.fit[0]: unknown key \"num_gpu\""},
        {"\"MLENERGY_TRACE\",", "\"MLENERGY\",", "$.infer.fit[0].source: unknown source \"MLENERGY\""},
        {"\"rows\":\t[[", "\"rows\":\t[[-1, 1, 1], [", "$.cap.fit[0].rows[0][0]: expected a number > 0"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(cases); i++) {
        char *hit = strstr(text, cases[i].from);
        CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
        size_t n = strlen(text) + strlen(cases[i].to) + 1;
        char *out = xmalloc(n);
        snprintf(out, n, "%.*s%s%s", (int)(hit - text), text, cases[i].to,
                 hit + strlen(cases[i].from));
        const char *path = tu_tmpfile(".json", out);
        free(out);
        CU_ASSERT_EQUAL(power_model_load(path, cat, &m, &e), FS_EDATA);
        CU_ASSERT_PTR_NULL(m);
        if (!strstr(e.msg, cases[i].want))
            printf("\n    want \"%s\" in: %s", cases[i].want, e.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, cases[i].want));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, path));
    }
    free(text);
}

static CU_TestInfo power_tests[] = {
    {"H100 inference fit within 10 % of every fitted point", test_infer_fit},
    {"H100 inference fit within 10 % of every held-out point", test_infer_holdout},
    {"inference load monotone in batch, power between idle and TDP", test_infer_shape},
    {"power_gpu_w: idle at 0, TDP at 1, clamped", test_gpu_w_ends},
    {"the fitter recovers a known logistic", test_fit_synthetic},
    {"the fitter rejects too few and bad points", test_fit_bad_input},
    {"cap speed: 1 at the draw, monotone, in (0, 1]", test_cap_shape},
    {"cap speed within tolerance of held-out Zeus points", test_cap_holdout},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo node_tests[] = {
    {"shipped nodes.json templates", test_shipped_nodes},
    {"DGX H100 at full load: 6 PSUs fine, 2 overloaded", test_dgx_full_load},
    {"PSU curves: exact at points, monotone between", test_psu_curves},
    {"wall power is DC over efficiency; full load within the rated max", test_wall_is_dc_over_eff},
    {"a hand-computed node", test_hand_example},
    {"nodes.json errors name the file and JSON path", test_node_errors},
    {"node DC power against the measured nodes", test_node_measured},
    {"power.json errors name the file and JSON path", test_power_errors},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"power", setup, teardown, NULL, NULL, power_tests},
    {"node", setup, teardown, NULL, NULL, node_tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("test_power", suites);
}
