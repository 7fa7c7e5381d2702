/* regress.h - the scheduler regression gate behind `fleetsim regress`: run
 * a suite of scenarios on N seeds each, compare every gated metric with a
 * baseline under a statistical test plus its tolerance and direction, and
 * report what got better, worse or stayed: a table (stdout), JSON
 * (stdout, instead of the table), JUnit XML (a file).  Or (update) write
 * the baseline from this run.
 *
 * SUITE is a folder (its *.json files, by name) or a text file listing
 * scenario paths, one a line, relative to the list ('#' starts a comment).
 * A scenario's key in the baseline is its path relative to the suite's
 * folder (the folder itself, or the list's), after resolving symbolic
 * links, ".", ".." and repeated slashes, so any spelling of the suite's
 * path gives the same keys.
 *
 * The test (docs/regress.md): for each metric, the change is the mean over
 * this run's seeds minus the mean over the baseline's; its 95 % interval
 * is Welch's t interval (REGRESS_CONFIDENCE).  A metric is WORSE only when
 * the whole interval lies beyond the tolerance in the metric's bad
 * direction: the change is beyond the seed noise and larger than the
 * tolerance.  With one seed, or seeds that do not move the metric, the
 * interval is the change itself and the rule is the plain tolerance.
 */
#ifndef FS_STUDY_REGRESS_H
#define FS_STUDY_REGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "../run/run.h"

#define REGRESS_CONFIDENCE 0.95
enum { REGRESS_FORMAT = 2, REGRESS_DEFAULT_SEEDS = 10, REGRESS_MAX_SEEDS = 1000 };

struct regress_opts {
    const char *suite;
    const char *baseline;       /* the baseline file to judge by, or to write */
    bool update;                /* write the baseline instead of judging */
    bool quiet;                 /* only what changed, no progress */
    bool allow_skip;            /* a skipped scenario does not fail the gate */
    bool json;                  /* JSON on stdout instead of the table */
    const char *junit;          /* NULL, or the JUnit XML file to write */
    int seeds;                  /* seeds per scenario; 0: the baseline's (update: REGRESS_DEFAULT_SEEDS) */
    bool has_first_seed;        /* the seeds are first_seed, first_seed + 1, ...; */
    uint64_t first_seed;        /*   else the baseline's (update: 1, 2, ...) */
    int jobs;                   /* worker processes (run/exec.h); 0 or 1: in this process */
    int rank, nranks;           /* MPI (exec_mpi_begin): ranks other than 0 only compute */
    struct scenario_options so; /* so.seed is ignored: the seeds above */
};

/* Run the suite and judge it (or write the baseline).  The table (or
 * JSON) goes to stdout, progress and skipped scenarios to stderr.  Under
 * MPI (nranks > 1) every rank calls it; rank 0 hands out the runs and
 * judges, the others compute and return 0.
 * RET: 0 nothing worse; 1 a metric got worse, a scenario is not in the
 * baseline, a baseline scenario is not in the suite, or a scenario was
 * skipped without allow_skip; or a negative FS_E* code with err filled
 * (FS_EDATA: a malformed or gutted baseline). */
int regress_run(const struct regress_opts *o, struct fs_err *err);

#endif
