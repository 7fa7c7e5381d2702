/* compare_seeds.h - `fleetsim compare --seeds`: the same comparison at
 * several seeds, summed up.  Each seed's comparison is a whole compare
 * folder (compare.h) of its own, DIR/seed-S; this writes DIR/seeds.json:
 * for every run and every row of the metric table (metric.h), the value
 * at each seed, its mean, min and max, and the difference from the
 * baseline (the first run) at the same seed - a paired difference, so the
 * seed's own noise (the same jobs for every run) cancels - with its mean,
 * min and max.
 */
#ifndef FS_REPORTS_COMPARE_SEEDS_H
#define FS_REPORTS_COMPARE_SEEDS_H

#include <stdint.h>
#include <stdio.h>

#include "compare.h"

enum { COMPARE_SEEDS_MAX = 64 };

struct compare_seeds {
    int nruns, nseeds;
    char names[COMPARE_SEEDS_MAX][96];       /* the runs, as the first seed named them */
    uint64_t seeds[COMPARE_SEEDS_MAX];
    /* v[s][i][k]: seed s, run i, metric row k */
    double (*v)[COMPARE_SEEDS_MAX][METRIC_MAX];
};

/* Record seed s's entries e[0..n) (names from the first seed). */
void compare_seeds_add(struct compare_seeds *cs, int s, uint64_t seed, const struct compare_entry *e, int n);

/* DIR/seeds.json, whole or not at all.  RET: 0 or FS_ECANTCREAT. */
int compare_seeds_write(const struct compare_seeds *cs, const char *dir, struct fs_err *err);

/* Per run: the monthly cost, the p95 wait and the utilization over the
 * seeds (mean [min, max]) and the paired cost difference. */
void compare_seeds_print(FILE *f, const struct compare_seeds *cs);

#endif
