/* regress_impl.h - what the files of the regress gate share (regress.h is
 * the module's interface): the suite's scenarios and their runs
 * (regress.c), the baseline (regress_base.c), the judgement
 * (regress_judge.c) and its table, JSON and JUnit forms (regress_write.c).
 */
#ifndef FS_STUDY_REGRESS_IMPL_H
#define FS_STUDY_REGRESS_IMPL_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "regress.h"

/* One scenario of the suite and its runs. */
struct rg_scen {
    char *path;                 /* as opened */
    char *key;                  /* the baseline key (regress.h) */
    char name[128];             /* the scenario's "name" (after a run) */
    bool skipped;               /* its trace is absent */
    char why[512];              /* why it was skipped */
    double (*v)[METRIC_MAX];    /* per seed, every metric's value */
};

/* A metric's gate: tolerance max(rel x |baseline|, abs) and direction
 * (+1 higher is better, -1 lower); not gated when rel and abs are 0. */
struct rg_tol {
    double rel, abs;
    int better;
};

static inline bool rg_gated(const struct rg_tol *t) { return (t->rel > 0 || t->abs > 0) && t->better != 0; }

/* A checked baseline. */
struct rg_base {
    cJSON *root;
    const cJSON *scenarios;     /* key -> {"name", "tolerances"?, "metrics"} */
    uint64_t *seeds;
    int nseeds;
    struct rg_tol tol[METRIC_MAX]; /* the metric table with the file's overrides */
};

/* Load and check file: every field, so a gutted, truncated or hand-broken
 * baseline is an error naming the place, never a metric that silently
 * passes.  RET: 0, FS_ENOINPUT or FS_EDATA with err filled. */
int rg_base_load(const char *file, struct rg_base *b, struct fs_err *err);
void rg_base_free(struct rg_base *b);

/* The gate of metric k for baseline scenario entry e (NULL: the
 * file-wide one).  The entry's overrides were checked by rg_base_load. */
struct rg_tol rg_base_tol(const struct rg_base *b, const cJSON *e, int k);

/* Write the baseline: every scenario that ran on seeds[0..nseeds), each
 * metric gated under the tolerances of old (NULL: the metric table's),
 * whose overrides it keeps.  RET: 0 or FS_ECANTCREAT. */
int rg_base_write(const char *file, const struct rg_scen *sc, size_t n, const uint64_t *seeds,
                  int nseeds, const struct rg_base *old, struct fs_err *err);

enum rg_verdict { RG_UNCHANGED, RG_BETTER, RG_WORSE, RG_INCONCLUSIVE, RG_DEFINED_NOW };

/* One metric of one scenario judged. */
struct rg_row {
    int k;                      /* the metric table's row */
    bool base_null, now_null;   /* undefined (a cost without a price) */
    double base, now;           /* means over the seeds */
    double change, lo, hi;      /* now - base and its interval */
    struct rg_tol tol;
    double tolerance;           /* max(rel x |base|, abs) */
    enum rg_verdict verdict;
};

enum rg_status { RG_RAN, RG_SKIPPED, RG_NOT_IN_BASELINE, RG_NOT_IN_SUITE };

/* One scenario judged (or one baseline entry with no scenario). */
struct rg_case {
    const char *key, *name;
    enum rg_status status;
    const char *why;            /* RG_SKIPPED: the reason */
    const char *renamed_from;   /* the baseline key it was judged against, when renamed */
    struct rg_row *rows;
    int nrows;
};

struct rg_judgement {
    const char *suite, *baseline;
    struct rg_case *cases;
    size_t ncases;
    const uint64_t *seeds, *base_seeds;
    int nseeds, base_nseeds;
    bool allow_skip;
    int tests;                  /* metrics judged over the suite */
    double level;               /* each interval's confidence: Bonferroni over tests */
    int worse, better, same, inconclusive, skipped, missing, gone, renamed;
    int rc;                     /* 0 pass, 1 fail */
};

/* Judge the runs sc[0..n) against b.  The judgement borrows from sc and b.
 * RET: the gate's verdict, 0 or 1 (also in j->rc). */
int rg_judge(const struct rg_base *b, const struct rg_scen *sc, size_t n, int nseeds,
             const uint64_t *seeds, bool allow_skip, struct rg_judgement *j);
void rg_judgement_free(struct rg_judgement *j);

/* The change's interval (Welch's t, two-sided, at confidence level) for
 * samples x[0..nx) against b[0..nb).  OUT: the means, the change's
 * interval [lo, hi]. */
void rg_interval(const double *b, int nb, const double *x, int nx, double level, double *mb, double *mx,
                 double *lo, double *hi);

const char *rg_verdict_name(enum rg_verdict v);

/* The judgement as the table (quiet: only rows that are not unchanged),
 * as JSON, and as JUnit XML into file.  RET (junit): 0 or FS_ECANTCREAT. */
void rg_write_table(FILE *f, const struct rg_judgement *j, bool quiet);
void rg_write_json(FILE *f, const struct rg_judgement *j);
int rg_write_junit(const char *file, const struct rg_judgement *j, struct fs_err *err);

#endif
