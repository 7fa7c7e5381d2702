/* check.h - `fleetsim run --check`: an observer that asserts the engine's
 * invariants after every state change, and at the end that GPU time was
 * conserved.  It never stops the run; the caller reads the count and the
 * first violation afterwards.
 *
 * After every note:
 *   - the clock never goes backwards;
 *   - no node is over-allocated: 0 <= fully free GPUs <= GPUs, and every
 *     GPU's free share is within [0, 1000];
 *   - the cluster's allocated total equals the sum over its nodes;
 *   - every job is in exactly one state and the engine's queued, running
 *     and completed counters equal the counts of jobs in those states.
 * At the end (SIM_END), with the metrics collector's integrals:
 *   - allocated GPU time is conserved: the integral equals the sum over
 *     jobs of GPUs x time run (all segments), exactly, in milli-GPU-us;
 *   - energy is ordered as power flows: GPU <= node DC <= wall.
 */
#ifndef FS_REPORTS_CHECK_H
#define FS_REPORTS_CHECK_H

#include "metrics.h"

struct check {
    const struct metrics *m;   /* for the end-of-run conservation checks */
    fs_time last;
    uint64_t notes, violations;
    char first[256];           /* the first violation, "" when none */
};

/* Register after the metrics observer (it reads their integrals). */
struct sim_observer check_observer(struct check *c);

#endif
