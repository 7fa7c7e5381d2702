/* power.h - GPU power over load, and what a power cap costs in throughput,
 * fitted with GSL to measured points kept in models/data/power.json (each
 * set with its source; the raw files are in ../shared/traces/power/).
 *
 * Load curve: a 4-parameter logistic in x = log2(batch),
 *   P(x) = lo + (hi - lo) / (1 + exp(-k (x - x0))),
 * fitted with gsl_multifit_nlinear to the H100 LLM-inference points
 * (ML.ENERGY, watts per GPU vs batch).  Normalized by that GPU's idle power
 * and TDP it gives a load share in [0,1] that transfers to other GPU types:
 *   power_gpu_w(t, load) = idle_w + (tdp_w - idle_w) x load.
 *
 * Cap curve: relative throughput at a power limit, as a function of
 * r = limit / the power the work would draw uncapped,
 *   speed(r) = 1 - cap_a (1 - r)^cap_b for r < 1, 1 for r >= 1,
 * fitted to the Zeus measurements (time per epoch and average power across
 * power limits on A40, RTX 6000 and V100).  With a, b > 0 it is monotone and
 * continuous at r = 1, and with b > 1 flat there to first order: a cap just
 * under the draw costs almost nothing and the loss grows ever faster as the
 * cap falls, the shape every Zeus sweep shows (clocks first trade voltage,
 * then fall steeply towards the minimum limit).  The measurements reach
 * down to r ~ 0.36; below, the curve is extrapolated, floored at 0.05.
 *
 * power.json: {"about", "sources", "infer": {"gpu", "fit": [SET],
 * "holdout": [SET]}, "train_load": {"value", "source"}, "cap": {"fit":
 * [ZSET], "holdout": [ZSET]}}, SET = {"source", "model", "task",
 * "num_gpus", "points": [[batch, watts over num_gpus]]}, ZSET = {"source",
 * "gpu", "dataset", "network", "batch_size", "optimizer", "rows":
 * [[limit W, s per epoch, average W]]}.  Holdout sets are checked, not
 * fitted (tests/test_power.c compares them with the curves).  Unknown keys,
 * unknown sources and non-positive numbers are errors naming the file and
 * the JSON path.
 *
 * The caller owns a model and frees it with power_model_free.
 */
#ifndef FS_MODELS_POWER_H
#define FS_MODELS_POWER_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"

struct power_logistic {
    double lo, hi, k, x0;
};

struct power_fit_stats {
    size_t n;                 /* points fitted */
    double max_rel_err;       /* max |fit - measured| / measured */
    double rms_rel_err;
    bool converged;           /* false: stopped at the iteration limit */
};

struct power_model {
    struct power_logistic infer;   /* watts per GPU vs log2(batch), reference GPU */
    int infer_gpu;                 /* catalog index of the GPU it was measured on */
    struct power_fit_stats infer_fit;
    double train_load;             /* load share of training work, 0..1 */
    double cap_a, cap_b;           /* cap curve: speed = 1 - a (1 - r)^b */
    struct power_fit_stats cap_fit;/* relative to the measured speeds */
};

/* Load path and fit both curves.  RET: 0, FS_ENOINPUT, or FS_EDATA (bad
 * file, too few points, a fit that does not converge). */
int power_model_load(const char *path, const struct gpu_catalog *cat,
                     struct power_model **out, struct fs_err *err);
void power_model_free(struct power_model *pm);

/* Fit a logistic to n points (x, watts): x = log2 batch for the load curve,
 * or any finite x; watts > 0.  Minimizes the squared relative error (weights
 * 1/watts^2) by GSL's trust-region method with an analytic Jacobian, from
 * the data's range and mid-x, and returns the curve written with k > 0.
 * Points on a straight line have no finite optimum (a logistic only tends
 * to a line as k -> 0): the fit then stops after 500 iterations with
 * stats->converged false and the last, finite, parameters.  stats may be
 * NULL.  RET: 0, or FS_EDATA (n < 4 or > 512, a bad point, a fit that
 * failed) with a message that does not name a file (the caller adds it). */
int power_fit_logistic(const double *x, const double *watts, size_t n,
                       struct power_logistic *out, struct power_fit_stats *stats,
                       struct fs_err *err);
double power_logistic_eval(const struct power_logistic *c, double x);

/* Load share in [0,1] of LLM inference at this batch size (below 1: 1).
 * cat is the catalog the model was loaded with. */
double power_load_infer(const struct power_model *pm, const struct gpu_catalog *cat, double batch);

/* Watts one GPU of type t draws at load share in [0,1]. */
double power_gpu_w(const struct gpu_type *t, double load);

/* Relative throughput (0,1] of work that would draw want_w uncapped, run
 * under a cap of cap_w; 1 when cap_w >= want_w (or want_w <= 0); monotone
 * in cap_w; never below 0.05. */
double power_cap_speed(const struct power_model *pm, double cap_w, double want_w);

#endif
