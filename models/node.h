/* node.h - server templates (GPUs, base power, PSU set), PSU efficiency
 * curves and PUE, loaded from models/data/nodes.json where every number has
 * a source or is marked as an assumption.
 *
 * Electrical model of one node:
 *   base_w   = base_idle_w + (base_busy_w - base_idle_w) x activity, where
 *              activity in [0,1] is the GPUs' dynamic power as a share of
 *              their maximum; base_w is the non-GPU power (CPUs, memory,
 *              NVSwitches, NICs, drives, fans), from measured node-level
 *              figures where they exist (nodes.json says which), never a
 *              residual of the nameplate maximum: a DGX H100's 10.2 kW
 *              maximum minus 8 x 700 W would put 4.6 kW in the host, and
 *              overstate its measured training draw (6.74 kW DC) by 30 %;
 *   dc_w     = sum of GPU power + base_w;
 *   usable_w = min(psus_ok, psu.usable) x psu.rating_w  (the redundancy
 *              mode: 4+2 means 6 installed, 4 carry the rated load);
 *   psu_load = dc_w / usable_w (> 1: overload);
 *   wall_w   = dc_w / efficiency(dc_w / (psus_ok x rating_w)), the load
 *              shared by every healthy PSU, efficiency interpolated with a
 *              monotone (Steffen) spline through the curve's points;
 *   facility_w = wall_w x PUE.
 *
 * nodes.json: {"about", "sources", "pue", "psu_curves": [{"name", "points":
 * [{"load", "eff", "source"}]}], "nodes": [{"name", "gpu", "gpus", "max_w",
 * "base_idle_w", "base_busy_w", "psu_count", "psu_usable", "psu_rating_w",
 * "psu_curve"}]}, every number but a curve point's an object {"value",
 * "source"[, "notes"]} whose source names an entry of "sources" (an ID
 * starting "ASSUMPTION" exactly when its text starts "assumption:").
 * max_w is the nameplate maximum input; the loader checks base_idle_w <=
 * base_busy_w and gpus x TDP + base_busy_w <= max_w.  Unknown keys and
 * unknown names (GPU, curve, source) are errors naming the file and the
 * JSON path, with a suggestion.
 *
 * The caller owns the catalog and frees it with node_catalog_free.
 */
#ifndef FS_MODELS_NODE_H
#define FS_MODELS_NODE_H

#include <gsl/gsl_interp.h>

#include <stdbool.h>

#include "gpu.h"

#define NODE_MAX_TEMPLATES 32
#define PSU_MAX_CURVES 8
#define PSU_CURVE_MAX_POINTS 16

struct psu_curve {
    char name[32];            /* "80plus-titanium" */
    int n;
    double load[PSU_CURVE_MAX_POINTS]; /* fraction of rating, increasing */
    double eff[PSU_CURVE_MAX_POINTS];  /* efficiency 0..1 */
    gsl_interp *spline;       /* built once by the loader (owned by the
                                 catalog); NULL: built per call */
};

struct node_template {
    char name[32];            /* "dgx-h100" */
    int gpu_type;             /* catalog index */
    int gpus;
    double base_idle_w, base_busy_w; /* non-GPU power at GPU activity 0 and 1 */
    double max_w;                    /* nameplate maximum input, W */
    int psu_count, psu_usable;       /* 6 and 4 for 4+2 */
    double psu_rating_w;
    int curve;                       /* index into curves */
};

struct node_catalog {
    int ntemplates, ncurves;
    struct node_template templates[NODE_MAX_TEMPLATES];
    struct psu_curve curves[PSU_MAX_CURVES];
    double pue;                      /* default facility PUE */
};

/* Load path, resolving GPU names through cat.
 * RET: 0, FS_ENOINPUT or FS_EDATA with a file + JSON-path message. */
int node_catalog_load(const char *path, const struct gpu_catalog *cat,
                      struct node_catalog **out, struct fs_err *err);
void node_catalog_free(struct node_catalog *nc);

/* The template called name, or NULL. */
const struct node_template *node_template_find(const struct node_catalog *nc, const char *name);
/* The default template for a GPU type: the first in the file with that type,
 * or NULL when there is none. */
const struct node_template *node_template_for_gpu(const struct node_catalog *nc, int gpu_type);

struct node_power {
    double dc_w, usable_w, psu_load, wall_w;
    bool overload;            /* psu_load > 1 */
};

/* The node's power with gpu_w watts drawn by its GPUs in all, GPU activity
 * in [0,1] (clamped), and psus_ok healthy PSUs (0 < psus_ok <= psu_count;
 * more count as psu_count; none gives usable_w 0, psu_load HUGE_VAL,
 * overload and wall_w 0). */
struct node_power node_power_eval(const struct node_catalog *nc, const struct node_template *nt,
                                  double gpu_w, double activity, int psus_ok);

/* PSU efficiency at a load fraction of one PSU's rating: the curve's
 * points joined by a Steffen spline (gsl_interp_steffen: monotone between
 * neighbouring points, no overshoot), constant beyond the first and last
 * point.  The curve needs 3 or more points with increasing loads. */
double psu_efficiency(const struct psu_curve *c, double load);

#endif
