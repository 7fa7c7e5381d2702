/* run_dir.h - one run with every output written into a folder: what
 * `fleetsim run` does. */
#ifndef FS_RUN_RUN_DIR_H
#define FS_RUN_RUN_DIR_H

#include <stdbool.h>

#include "run.h"

/* Simulate sc and write summary.json, jobs.csv, timeseries.csv,
 * timeline.json, report.md and report.html into dir through a set of
 * output files (reports/output.h): everything is written into the set's
 * private folder, then swapped in for dir; on any error, or a signal
 * caught before the swap, dir keeps what it held.  progress: a bar on
 * stderr; unless quiet, the summary on stderr; check: the invariant
 * checker (a violation is FS_EINTERNAL).  RET: 0 or an FS_E* code. */
int run_dir(const struct scenario *sc, const char *dir, bool progress, bool quiet, bool check, struct fs_err *err);

#endif
