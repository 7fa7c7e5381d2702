/* result.h - what one finished run hands to every consumer (the output
 * writers, compare, plan, sweep, regress, the tests): the scenario, the
 * engine's final state, the metrics collector and the figures computed from
 * them once (run_stats).  run/run.h fills it (run_scenario); reports/ only
 * reads it.
 *
 * The run result owns the engine and the collectors; it owns the scenario
 * only when the run loaded it (own_sc).  run_result_free (run/run.h)
 * releases it all.
 */
#ifndef FS_REPORTS_RESULT_H
#define FS_REPORTS_RESULT_H

#include <stdbool.h>

#include "check.h"
#include "costing.h"
#include "summary.h"
#include "timeline.h"

struct run_result {
    const struct scenario *sc;
    struct sim *s;                /* the engine after its last event */
    struct metrics *m;            /* exact integrals, power and energy */
    struct timeline *tl;          /* when the spec asked for timeline.json */
    struct check ck;              /* when the spec asked for --check */
    struct run_stats st;          /* computed once, at the end */
    struct fleet_cost cost;       /* under the scenario's billing, once */
    bool interrupted;             /* a SIGINT or SIGTERM stopped the run */
    bool own_sc;
};

#endif
