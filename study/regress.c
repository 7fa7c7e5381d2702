/* regress.c - the scheduler regression gate (regress.h): list the suite,
 * key its scenarios, run every scenario on every seed through the
 * executor (run/exec.h), then write the baseline or judge against it
 * (regress_judge.c) and report (regress_write.c).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../run/exec.h"
#include "regress_impl.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The suite's scenario paths.  OUT *root: the folder keys are relative to
 * (the suite folder, or the list's).  RET: 0 or an error code. */
static int suite_list(const char *suite, char ***out, size_t *n, char **root, struct fs_err *err)
{
    struct stat sb;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    *root = NULL;
    if (stat(suite, &sb) != 0)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: no such file or folder", suite);
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(suite);
        if (!d)
            return fs_fail(err, FS_ENOINPUT, "%s: cannot open the folder", suite);
        for (struct dirent *e; (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
                continue;
            xgrow(out, &cap, *n + 1, sizeof **out);
            (*out)[*n] = xmalloc(strlen(suite) + len + 2);
            sprintf((*out)[(*n)++], "%s/%s", suite, e->d_name);
        }
        closedir(d);
        qsort(*out, *n, sizeof **out, cmp_str);
        *root = realpath(suite, NULL);
    } else {
        FILE *f;
        int rc = fs_open_input(suite, &f, err);
        if (rc)
            return rc;
        char line[1024], base[PATH_MAX];
        snprintf(base, sizeof base, "%s", suite);
        char *slash = strrchr(base, '/');
        if (slash)
            slash[1] = '\0';
        else
            base[0] = '\0';
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "#\r\n")] = '\0';
            char *p = line + strspn(line, " \t");
            if (!*p)
                continue;
            xgrow(out, &cap, *n + 1, sizeof **out);
            (*out)[*n] = xmalloc(strlen(base) + strlen(p) + 1);
            sprintf((*out)[(*n)++], "%s%s", p[0] == '/' ? "" : base, p);
        }
        fclose(f);
        *root = realpath(base[0] ? base : ".", NULL);
    }
    if (!*root)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot resolve the suite's folder", suite);
    if (*n == 0)
        return fs_fail(err, FS_EDATA, "%s: the suite holds no scenarios", suite);
    return 0;
}

/* path's key: its real path relative to root (both absolute), "../" where
 * it lies outside; a path that cannot be resolved keys as written. */
static char *key_of(const char *root, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return xstrdup(path);
    size_t i = 0, cut = 0; /* cut: just past the last '/' both share */
    for (; root[i] && root[i] == real[i]; i++)
        if (root[i] == '/')
            cut = i + 1;
    const char *rem = root + cut, *rest = real + cut; /* root's steps not shared; real's own */
    if (root[i] == '\0' && (real[i] == '/' || real[i] == '\0')) {
        rem = root + i;
        rest = real + i + (real[i] == '/');
    }
    int up = *rem != '\0';
    for (const char *p = rem; *p; p++)
        up += *p == '/' && p[1] != '\0';
    char *key = xmalloc(3 * (size_t)up + strlen(rest) + 1), *k = key;
    for (int u = 0; u < up; u++, k += 3)
        memcpy(k, "../", 3);
    strcpy(k, rest);
    free(real);
    return key;
}

/* One scenario on one seed, as the executor carries it. */
struct rg_rec {
    int32_t skipped;
    char name[128];
    char why[512];
    double v[METRIC_MAX];
};

struct rg_ctx {
    struct rg_scen *sc;
    size_t n;
    const uint64_t *seeds;
    int nseeds;
    struct scenario_options so;
};

static int run_task(void *vctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    const struct rg_ctx *x = vctx;
    const char *path = x->sc[i / (size_t)x->nseeds].path;
    struct scenario_options so = x->so;
    so.has_seed = true;
    so.seed = x->seeds[i % (size_t)x->nseeds];
    static struct rg_rec rec;
    memset(&rec, 0, sizeof rec);
    struct run_result r;
    int rc = run_scenario(&(struct run_spec){.path = path, .so = so}, &r, err);
    /* The scenario is there but its trace is not (../shared/traces is
     * absent): skipped, saying why. */
    if (rc == FS_ENOINPUT && access(path, R_OK) == 0) {
        rec.skipped = 1;
        snprintf(rec.why, sizeof rec.why, "%.500s", err->msg);
        rc = 0;
    } else if (rc == 0) {
        snprintf(rec.name, sizeof rec.name, "%s", r.sc->name ? r.sc->name : "");
        metric_values(&r, rec.v);
        run_result_free(&r);
    }
    if (rc == 0)
        exec_put(out, &rec, sizeof rec);
    return rc;
}

static void progress(void *vctx, size_t i, const struct exec_out *res, size_t done)
{
    const struct rg_ctx *x = vctx;
    const struct rg_rec *rec = (const void *)res->data;
    if (!rec->skipped)
        fprintf(stderr, "  [%zu/%zu] %s, seed %llu\n", done, x->n * (size_t)x->nseeds,
                x->sc[i / (size_t)x->nseeds].key, (unsigned long long)x->seeds[i % (size_t)x->nseeds]);
}

/* Run every scenario on every seed: here, in -j workers, or over MPI
 * ranks (only rank 0 gets the results).  RET: 0 or the first failing
 * run's code. */
static int run_all(struct rg_ctx *x, const struct regress_opts *o, struct fs_err *err)
{
    size_t n = x->n * (size_t)x->nseeds, failed;
    struct exec_out *res = xcalloc(n, sizeof *res);
    struct exec_tasks t = {.n = n, .ctx = x, .run = run_task, .progress = o->quiet ? NULL : progress};
    int rc = o->nranks > 1 ? exec_mpi_run(&t, o->rank, res, &failed, err)
                           : exec_run(&t, o->jobs < 1 ? 1 : o->jobs, res, &failed, err);
    for (size_t s = 0; rc == 0 && o->rank == 0 && s < x->n; s++) {
        struct rg_scen *sc = &x->sc[s];
        sc->v = xcalloc((size_t)x->nseeds, sizeof *sc->v);
        for (int k = 0; k < x->nseeds; k++) {
            const struct rg_rec *rec = (const void *)res[s * (size_t)x->nseeds + (size_t)k].data;
            memcpy(sc->v[k], rec->v, sizeof rec->v);
            memcpy(sc->name, rec->name, sizeof sc->name);
            sc->skipped |= rec->skipped != 0;
            if (rec->skipped)
                memcpy(sc->why, rec->why, sizeof sc->why);
        }
        if (sc->skipped)
            fprintf(stderr, "  %s: SKIPPED: %s\n", sc->key, sc->why);
    }
    exec_results_free(res, n);
    free(res);
    return rc;
}

/* The seeds this run uses.  OUT *seeds (caller frees), *n. */
static void pick_seeds(const struct regress_opts *o, const struct rg_base *b, uint64_t **seeds, int *n)
{
    if (b && !o->seeds && !o->has_first_seed) {
        *n = b->nseeds;
        *seeds = xcalloc((size_t)*n, sizeof **seeds);
        memcpy(*seeds, b->seeds, (size_t)*n * sizeof **seeds);
        return;
    }
    *n = o->seeds ? o->seeds : b ? b->nseeds : REGRESS_DEFAULT_SEEDS;
    uint64_t first = o->has_first_seed ? o->first_seed : b ? b->seeds[0] : 1;
    *seeds = xcalloc((size_t)*n, sizeof **seeds);
    for (int i = 0; i < *n; i++)
        (*seeds)[i] = first + (uint64_t)i;
}

/* --update: write the baseline, keeping the old one's tolerance
 * overrides.  RET: 0, 1 (scenarios skipped without allow_skip: not
 * written) or an error code. */
static int update(const struct regress_opts *o, const struct rg_ctx *x, struct fs_err *err)
{
    struct rg_base old;
    struct fs_err why = {0};
    bool have_old = rg_base_load(o->baseline, &old, &why) == 0;
    if (!have_old && why.code != FS_ENOINPUT)
        fprintf(stderr, "fleetsim: regress: writing %s afresh, without its tolerance overrides: %s\n",
                o->baseline, why.msg);
    int skipped = 0, rc = 0;
    for (size_t i = 0; i < x->n; i++)
        skipped += x->sc[i].skipped;
    if (skipped && !o->allow_skip) {
        fprintf(stderr, "fleetsim: regress: %s not written: %d scenarios skipped (--allow-skip writes it "
                        "without them)\n", o->baseline, skipped);
        rc = 1;
    } else {
        rc = rg_base_write(o->baseline, x->sc, x->n, x->seeds, x->nseeds, have_old ? &old : NULL, err);
        if (rc == 0 && !o->quiet)
            fprintf(stderr, "  wrote %s (%zu scenarios, %d seeds each)\n", o->baseline, x->n - (size_t)skipped,
                    x->nseeds);
    }
    if (have_old)
        rg_base_free(&old);
    return rc;
}

int regress_run(const struct regress_opts *o, struct fs_err *err)
{
    struct rg_base b = {0};
    char **paths = NULL, *root = NULL;
    size_t n = 0;
    uint64_t *seeds = NULL;
    int nseeds = 0;
    /* A baseline that cannot be read fails now, not after the suite ran. */
    int rc = o->update ? 0 : rg_base_load(o->baseline, &b, err);
    if (rc == 0)
        rc = suite_list(o->suite, &paths, &n, &root, err);
    /* Every rank takes part in the runs, or none does. */
    if (!exec_mpi_agree(rc == 0) && rc == 0)
        rc = fs_fail(err, FS_EINTERNAL, "%s: another MPI rank could not read the suite or the baseline", o->suite);
    struct rg_scen *sc = xcalloc(n + 1, sizeof *sc);
    if (rc == 0) {
        pick_seeds(o, o->update ? NULL : &b, &seeds, &nseeds);
        for (size_t i = 0; i < n; i++)
            sc[i] = (struct rg_scen){.path = paths[i], .key = key_of(root, paths[i])};
        struct rg_ctx x = {.sc = sc, .n = n, .seeds = seeds, .nseeds = nseeds, .so = o->so};
        rc = run_all(&x, o, err);
        if (rc == 0 && o->rank > 0) {
            /* a worker rank: rank 0 judges */
        } else if (rc == 0 && o->update) {
            rc = update(o, &x, err);
        } else if (rc == 0) {
            struct rg_judgement j;
            rg_judge(&b, sc, n, nseeds, seeds, o->allow_skip, &j);
            j.suite = o->suite;
            j.baseline = o->baseline;
            if (o->json)
                rg_write_json(stdout, &j);
            else
                rg_write_table(stdout, &j, o->quiet);
            rc = o->junit ? rg_write_junit(o->junit, &j, err) : 0;
            if (rc == 0)
                rc = j.rc;
            rg_judgement_free(&j);
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(sc[i].key);
        free(sc[i].v);
        free(paths[i]);
    }
    free(sc);
    free(paths);
    free(root);
    free(seeds);
    rg_base_free(&b);
    return rc;
}
