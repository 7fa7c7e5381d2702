/* run.h - the library layer every command and test runs scenarios through
 * (as lua.c sits on lua.h): load a scenario, simulate it with the observers
 * the spec asks for, and return the result every consumer reads
 * (reports/result.h).  Below study/ and tools/, above reports/; nothing
 * else assembles the engine and its observers.
 *
 * The caller owns a filled struct run_result and releases it with
 * run_result_free.
 */
#ifndef FS_RUN_RUN_H
#define FS_RUN_RUN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "../base/base.h"
#include "../reports/metric.h"
#include "../reports/result.h"

/* What to run, and with which observers.  The scenario comes from exactly
 * one of: sc (already loaded, borrowed), tree (parsed JSON, borrowed; path
 * names it in messages and anchors its relative paths), or path (a file).
 * so applies to tree and path. */
struct run_spec {
    const struct scenario *sc;
    const cJSON *tree;
    const char *path;
    struct scenario_options so;
    FILE *timeseries;             /* timeseries.csv rows, or NULL */
    /* Timeseries intervals a run may close at most, written or not; 0:
     * SCENARIO_MAX_TS_ROWS.  Lower only in tests, which reach the bound
     * without ten million intervals of work; no option sets it. */
    int64_t timeseries_limit;
    FILE *timeline;               /* timeline.json (Chrome trace), or NULL */
    int64_t timeline_limit;       /* events it writes at most; 0: TIMELINE_DEFAULT_LIMIT */
    bool check;                   /* assert the engine's invariants (check.h) */
    /* Called about every 64k events; NULL: none. */
    void (*progress)(void *ctx, fs_time now, fs_time horizon);
    /* Called once the simulation has run to its end, before the figures
     * are computed (which only read s): a caller may start writing what
     * needs only s, beside them.  NULL: none. */
    void (*ended)(void *ctx, const struct sim *s);
    void *ended_ctx;
};

/* Load (unless spec->sc), simulate to the end and compute the figures.
 * RET: 0; the loader's FS_E* code with err filled (r is then empty);
 * FS_EINTERRUPTED when a signal stopped the run (r->interrupted set, no
 * stats); or the code of an observer that ended it early (s->stop: a
 * bound passed, an output that cannot be written), with its message. */
int run_scenario(const struct run_spec *spec, struct run_result *r, struct fs_err *err);

/* Release everything r owns; a zeroed result is fine. */
void run_result_free(struct run_result *r);

#endif
