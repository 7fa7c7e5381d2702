/* fill.h - fill mode: the protocol of the FGD paper's experiments (Weng et
 * al., USENIX ATC '23, Fig. 9a on the Alibaba openb trace), as the
 * authors' simulator runs it (Simulate() in pkg/simulator/core.go).
 *
 * 1. The pod list is the pool; the typical-pod set M (sched/frag.h) and the
 *    policy's state are built from it (sched_prepare).
 * 2. The pool, in pod id order, is shuffled with the seed.
 * 3. Random pods of the pool (with replacement) are cloned and appended
 *    until the arrived GPU demand would pass FILL_TARGET x the cluster's
 *    GPU capacity.  As in the authors' code, the stopping test adds the
 *    clone's *per-GPU* share (so an 8-GPU clone may overshoot by up to
 *    7 GPUs) while the total grows by its GPU count x share, and the clone
 *    that would pass is not appended.
 * 4. Pods arrive one by one and never leave.  Each is counted as arrived,
 *    then placed now by the policy (sched_try) or dropped for good.
 * 5. After each pod the run records arrived %, allocated % (GPU milli in
 *    use / capacity), fragmented % (sum of F_n(M) / capacity) and the
 *    fragmentation ratio (sum of F_n(M) / free GPU milli).
 *
 * The curves are binned as the authors' post-processing bins them: event
 * e falls in bin X = round-half-even(arrived %); allocated % per event is
 * first rounded to 2 decimals; bin X is the mean over its events, or, with
 * none, over the events of bins X-1..X+1, or with none there either, the
 * state after the last earlier event.  Every value is rounded to 2
 * decimals.
 *
 * Random draws (shuffle, clones) come from the RNG_ARRIVALS stream of the
 * seed; the policy's tie-breaks (the shuffled node order, or random draws)
 * from the sched's, seeded by the same seed through sched_prepare.
 * Same inputs and seed: the same curve, bit for bit.  fill_run keeps no
 * global state, so runs may go in parallel threads.
 */
#ifndef FS_SIM_FILL_H
#define FS_SIM_FILL_H

#include "../sched/sched.h"

#define FILL_TARGET 1.3     /* arrived demand / GPU capacity at the end */
#define FILL_MAX_PCT 130    /* the last bin: FILL_TARGET in percent */
#define FILL_MAX_PODS 10000000

struct fill_spec {
    const struct gpu_catalog *cat;
    const struct fleet_group *fleet;
    int nfleet;
    const struct job *pods;   /* the pod list; read only */
    size_t npods;
    const struct sched_policy *policy;
    uint64_t seed;
};

struct fill_bin {
    double allocated_pct;
    double fragmented_pct;
    double frag_ratio_pct;
};

struct fill_result {
    struct fill_bin bin[FILL_MAX_PCT + 1];  /* bin[X]: X % arrived */
    int64_t capacity_milli;   /* the cluster's GPUs x 1000 */
    int64_t arrived_milli;    /* GPU demand of every pod that arrived */
    size_t pods;              /* pods that arrived: the pool and the clones */
    size_t clones;
    size_t placed;            /* the others were dropped */
};

/* Run one fill.  RET: 0; FS_EDATA when the fleet has no GPU, the pod list
 * is empty or no pod asks for a GPU (demand could never grow), or the
 * clones would pass FILL_MAX_PODS pods. */
int fill_run(const struct fill_spec *spec, struct fill_result *out, struct fs_err *err);

/* Python's round(x, 2) on a value well inside double precision. */
double fill_round2(double x);

#endif
