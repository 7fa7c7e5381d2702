/* regress.h - the scheduler regression gate behind `fleetsim regress`: run
 * a suite of scenarios, compare each metric with a baseline under its
 * tolerance and direction, print what got better, worse or stayed, or
 * (update) write the baseline from this run.
 *
 * SUITE is a folder (its *.json files, by name) or a text file listing
 * scenario paths, one a line, relative to the list ('#' starts a comment).
 */
#ifndef FS_STUDY_REGRESS_H
#define FS_STUDY_REGRESS_H

#include <stdbool.h>

#include "../run/run.h"

struct regress_opts {
    const char *suite;
    const char *baseline;       /* the baseline file to judge by, or to write */
    bool update;                /* write the baseline instead of judging */
    bool quiet;                 /* only what changed, no progress */
    struct scenario_options so;
};

/* Run the suite and judge it (or write the baseline).  The table goes to
 * stdout, progress and skipped scenarios to stderr.
 * RET: 0 nothing worse, 1 a metric got worse or a scenario is not in the
 * baseline, or a negative FS_E* code with err filled. */
int regress_run(const struct regress_opts *o, struct fs_err *err);

#endif
