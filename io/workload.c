/* workload.c - the job list: team interning, stable sort, and the native
 * job CSV reader and writer.  The generator is in gen.c. */
#include "workload.h"

#include "readers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char workload_native_header[] =
    "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type";
/* Optional column groups that may follow, in any order, each group whole:
 * a model spec, and GPU sharing with host resources. */
const char workload_spec_header[] = ",model_params_b,tokens,method";
const char workload_share_header[] = ",gpu_milli,cpu_milli,mem_mib";
const char workload_limit_header[] = ",time_limit_s,kill_at_limit,measured";

enum { COL_ID, COL_SUBMIT, COL_KIND, COL_TEAM, COL_GPUS, COL_MEM, COL_ALLOWED,
       COL_WORK, COL_REF, NCOLS_BASE, COL_PARAMS = NCOLS_BASE, COL_TOKENS, COL_METHOD,
       COL_MILLI, COL_CPU, COL_HOSTMEM, COL_LIMIT, COL_KILL, COL_MEASURED, NCOLS };
static const char *const col_names[NCOLS] = {
    "id", "submit_s", "kind", "team", "gpus", "gpu_mem_gb", "allowed_types",
    "work_gpu_s", "ref_type", "model_params_b", "tokens", "method",
    "gpu_milli", "cpu_milli", "mem_mib", "time_limit_s", "kill_at_limit", "measured",
};

#define GPUS_LIMIT 100000

void workload_init(struct workload *w)
{
    memset(w, 0, sizeof *w);
}

void workload_free(struct workload *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        job_drop_gang(&w->jobs[i]);
    for (size_t i = 0; i < w->nteams; i++)
        free(w->teams[i]);
    for (size_t i = 0; i < w->nmodels; i++)
        free(w->models[i]);
    free(w->jobs);
    free(w->teams);
    free(w->models);
    free(w->specs);
    free(w->team_slots);
    workload_init(w);
}

/* ---- team interning ----------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* Rebuild the name hash with cap (a power of two) slots. */
static void team_rehash(struct workload *w, size_t cap)
{
    free(w->team_slots);
    w->team_slots = xcalloc(cap, sizeof *w->team_slots);
    w->team_slots_cap = cap;
    for (size_t i = 0; i < w->nteams; i++) {
        size_t h = (size_t)hash_str(w->teams[i]) & (cap - 1);
        while (w->team_slots[h])
            h = (h + 1) & (cap - 1);
        w->team_slots[h] = (uint32_t)(i + 1);
    }
}

int workload_team(struct workload *w, const char *name)
{
    /* Keep the load at most 1/2, so probes stay short. */
    if (2 * (w->nteams + 1) > w->team_slots_cap)
        team_rehash(w, w->team_slots_cap ? 2 * w->team_slots_cap : 64);
    size_t mask = w->team_slots_cap - 1;
    size_t h = (size_t)hash_str(name) & mask;
    for (; w->team_slots[h]; h = (h + 1) & mask)
        if (strcmp(w->teams[w->team_slots[h] - 1], name) == 0)
            return (int)(w->team_slots[h] - 1);
    if (w->nteams >= WORKLOAD_MAX_TEAMS)
        return -1;
    xgrow(&w->teams, &w->teams_cap, w->nteams + 1, sizeof *w->teams);
    w->teams[w->nteams] = xstrdup(name);
    w->team_slots[h] = (uint32_t)(w->nteams + 1);
    return (int)w->nteams++;
}

/* Few models (one per generator class), so a linear search. */
int workload_model(struct workload *w, const char *name)
{
    for (size_t i = 0; i < w->nmodels; i++)
        if (strcmp(w->models[i], name) == 0)
            return (int)i + 1;
    if (w->nmodels >= WORKLOAD_MAX_TEAMS)
        return -1;
    xgrow(&w->models, &w->models_cap, w->nmodels + 1, sizeof *w->models);
    w->models[w->nmodels] = xstrdup(name);
    return (int)++w->nmodels;
}

uint32_t workload_add_spec(struct workload *w, const struct job_spec *sp)
{
    xgrow(&w->specs, &w->specs_cap, w->nspecs + 1, sizeof *w->specs);
    w->specs[w->nspecs] = *sp;
    return (uint32_t)++w->nspecs;
}

/* ---- jobs --------------------------------------------------------------- */

struct job *workload_add(struct workload *w, const struct job *j)
{
    xgrow(&w->jobs, &w->cap, w->n + 1, sizeof *w->jobs);
    struct job *c = &w->jobs[w->n++];
    *c = *j;
    c->gang = NULL; /* the caller's gang stays the caller's */
    job_reset_placement(c);
    c->state = JOB_FUTURE;
    if (c->milli <= 0)
        c->milli = 1000; /* whole GPUs unless a share is given */
    return c;
}

/* A sort key: primary, secondary, and the item's index. */
struct sort_key {
    int64_t k1, k2;
    size_t idx;
};

static int key_before(const struct sort_key *a, const struct sort_key *b)
{
    return a->k1 != b->k1 ? a->k1 < b->k1 : a->k2 < b->k2;
}

/* Bottom-up merge sort of n keys; stable because a merge takes from the left
 * run on ties.  tmp has room for n keys.  RET: the array holding the result. */
static struct sort_key *merge_sort(struct sort_key *a, struct sort_key *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = key_before(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        struct sort_key *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

static int job_before(const struct job *a, const struct job *b)
{
    return a->submit != b->submit ? a->submit < b->submit : a->id < b->id;
}

/* Put the jobs in the order of sorted (position i takes job sorted[i].idx),
 * following each cycle of that permutation with one spare job and marking
 * done positions with idx = i: no second job array. */
static void permute(struct job *jobs, struct sort_key *sorted, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (sorted[i].idx == i)
            continue;
        struct job spare = jobs[i];
        size_t j = i;
        while (sorted[j].idx != i) {
            size_t k = sorted[j].idx;
            jobs[j] = jobs[k];
            sorted[j].idx = j;
            j = k;
        }
        jobs[j] = spare;
        sorted[j].idx = j;
    }
}

void workload_sort(struct workload *w)
{
    size_t n = w->n, i;
    for (i = 1; i < n && !job_before(&w->jobs[i], &w->jobs[i - 1]); i++)
        ;
    if (i >= n)
        return; /* sorted already, as traces and generated workloads often are */
    struct sort_key *keys = xmalloc(n * sizeof *keys);
    struct sort_key *tmp = xmalloc(n * sizeof *tmp);
    for (i = 0; i < n; i++)
        keys[i] = (struct sort_key){w->jobs[i].submit, w->jobs[i].id, i};
    permute(w->jobs, merge_sort(keys, tmp, n), n);
    free(keys);
    free(tmp);
}

/* ---- writer ------------------------------------------------------------- */

/* ---- reader: fields ----------------------------------------------------- */

struct row {
    const char *path;
    long long line;
    int ncols;          /* columns in the file */
    int pos[NCOLS];     /* where each column is in a line, -1 when absent */
    const struct gpu_catalog *cat;
    struct fs_err *err;
};

static int row_fail(const struct row *r, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int row_fail(const struct row *r, int col, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fs_fail(r->err, FS_EDATA, "%s:%lld: column %s: %s", r->path, r->line,
                   col_names[col], msg);
}

/* Only what a plain decimal number may contain: no whitespace, no hex, and
 * no "nan" or "inf" (strtod would take all of those). */
static int number_chars(const char *s, const char *allowed)
{
    return *s && s[strspn(s, allowed)] == '\0';
}

static int parse_double(const struct row *r, int col, const char *s, double *out)
{
    char *end;
    if (number_chars(s, "0123456789.eE+-")) {
        *out = strtod(s, &end);
        if (*end == '\0' && isfinite(*out))
            return 0;
    }
    return row_fail(r, col, "expected a finite number, got \"%.40s\"", s);
}

static int parse_int(const struct row *r, int col, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    if (number_chars(s, "0123456789+-")) {
        long long v = strtoll(s, &end, 10);
        if (*end == '\0' && errno != ERANGE) {
            *out = v;
            return 0;
        }
    }
    return row_fail(r, col, "expected an integer, got \"%.40s\"", s);
}

static int parse_type(const struct row *r, int col, const char *name, int *out)
{
    if (!*name)
        return row_fail(r, col, "empty GPU type name");
    *out = gpu_catalog_find(r->cat, name);
    if (*out >= 0)
        return 0;
    const char *near = fs_suggest(name, r->cat->names, (size_t)r->cat->n);
    if (near)
        return row_fail(r, col, "unknown GPU type \"%.40s\"; did you mean \"%s\"?", name, near);
    return row_fail(r, col, "unknown GPU type \"%.40s\"", name);
}

static int parse_allowed(const struct row *r, char *s, uint64_t *out)
{
    *out = 0;
    if (!*s)
        return 0;
    for (char *tok = s, *bar; tok; tok = bar ? bar + 1 : NULL) {
        int t, rc;
        if ((bar = strchr(tok, '|')))
            *bar = '\0';
        if ((rc = parse_type(r, COL_ALLOWED, tok, &t)) < 0)
            return rc;
        *out |= 1ULL << t;
    }
    return 0;
}

static int parse_kind(const struct row *r, const char *s, int *out)
{
    if ((*out = job_kind_parse(s)) >= 0)
        return 0;
    char valid[128];
    size_t len = 0;
    for (int k = 0; k < JOB_KIND_COUNT; k++)
        len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", k ? ", " : "",
                                job_kind_name((enum job_kind)k));
    return row_fail(r, COL_KIND, "unknown kind \"%.40s\" (valid: %s)", s, valid);
}

static int parse_team(const struct row *r, const char *s, struct workload *w, int *out)
{
    size_t len = strlen(s);
    if (len == 0)
        return row_fail(r, COL_TEAM, "empty team name");
    if (len >= WORKLOAD_TEAM_MAX)
        return row_fail(r, COL_TEAM, "team name \"%.40s...\" is longer than %d characters",
                        s, WORKLOAD_TEAM_MAX - 1);
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return row_fail(r, COL_TEAM, "team name holds a control character");
    if ((*out = workload_team(w, s)) < 0)
        return row_fail(r, COL_TEAM, "more than %d teams", WORKLOAD_MAX_TEAMS);
    return 0;
}

/* The optional model-spec columns: all empty, or model_params_b > 0 with a
 * method, and tokens > 0 or empty (then work_gpu_s is required). */
static int parse_spec(const struct row *r, char **f, struct job_spec *sp)
{
    int rc;
    if (!*f[COL_PARAMS] && !*f[COL_TOKENS] && !*f[COL_METHOD])
        return 0;
    if ((rc = parse_double(r, COL_PARAMS, f[COL_PARAMS], &sp->params_b)) < 0)
        return rc;
    if (!(sp->params_b > 0 && sp->params_b <= 1e5))
        return row_fail(r, COL_PARAMS, "must be in (0, 100000] billion, got %s", f[COL_PARAMS]);
    if (*f[COL_TOKENS]) {
        if ((rc = parse_double(r, COL_TOKENS, f[COL_TOKENS], &sp->tokens)) < 0)
            return rc;
        if (!(sp->tokens > 0))
            return row_fail(r, COL_TOKENS, "must be > 0, got %s", f[COL_TOKENS]);
    }
    int m = job_method_parse(f[COL_METHOD]);
    if (m < 0)
        return row_fail(r, COL_METHOD, "unknown method \"%.40s\" (train, lora, qlora, infer)", f[COL_METHOD]);
    sp->method = (uint8_t)m;
    return 0;
}

/* The optional sharing columns: gpu_milli 1..1000 (empty: 1000), cpu_milli
 * and mem_mib >= 0 (empty: 0, no constraint). */
static int parse_share(const struct row *r, char **f, struct job *j)
{
    static const int cols[] = {COL_MILLI, COL_CPU, COL_HOSTMEM};
    int32_t milli = GPU_MILLI, *out[] = {&milli, &j->cpu_milli, &j->mem_mib};
    int64_t v;
    int rc;
    for (int k = 0; k < 3; k++) {
        if (!*f[cols[k]])
            continue;
        if ((rc = parse_int(r, cols[k], f[cols[k]], &v)) < 0)
            return rc;
        if (v < (k == 0 ? 1 : 0) || v > (k == 0 ? GPU_MILLI : INT32_MAX))
            return row_fail(r, cols[k], "out of range: %s", f[cols[k]]);
        *out[k] = (int32_t)v;
    }
    j->milli = (int16_t)milli; /* 1..1000 */
    return 0;
}

/* The optional replay columns: time_limit_s > 0 or empty (none),
 * kill_at_limit 0, 1 or empty (0; 1 needs a limit), measured 0, 1 or empty
 * (0). */
static int parse_limit(const struct row *r, char **f, struct job *j)
{
    double lim = 0;
    int64_t kill = 0, measured = 0;
    int rc;
    if (*f[COL_LIMIT] && (rc = parse_double(r, COL_LIMIT, f[COL_LIMIT], &lim)) < 0)
        return rc;
    if (*f[COL_LIMIT] && !(lim > 0 && fs_seconds_ok(lim)))
        return row_fail(r, COL_LIMIT, "must be > 0 seconds (or empty: none), got %s", f[COL_LIMIT]);
    if (*f[COL_KILL] && (rc = parse_int(r, COL_KILL, f[COL_KILL], &kill)) < 0)
        return rc;
    if (kill != 0 && kill != 1)
        return row_fail(r, COL_KILL, "must be 0 or 1, got %s", f[COL_KILL]);
    if (kill && !*f[COL_LIMIT])
        return row_fail(r, COL_KILL, "1 needs a time_limit_s");
    if (*f[COL_MEASURED] && (rc = parse_int(r, COL_MEASURED, f[COL_MEASURED], &measured)) < 0)
        return rc;
    if (measured != 0 && measured != 1)
        return row_fail(r, COL_MEASURED, "must be 0 or 1, got %s", f[COL_MEASURED]);
    j->measured = (uint8_t)measured;
    j->limit = *f[COL_LIMIT] ? fs_from_seconds(lim) : 0;
    j->kill_at_limit = (uint8_t)kill;
    return 0;
}

/* Parse one record's fields (by_pos[0..nf), in file order) into j. */
static int parse_row(const struct row *r, char **by_pos, int nf, struct workload *w, struct job *j)
{
    char *f[NCOLS], empty[] = "";
    int rc = 0, kind = 0, team = 0, ref = 0;
    if (nf != r->ncols)
        return fs_fail(r->err, FS_EDATA, "%s:%lld: expected %d columns as in the header, found %d",
                       r->path, r->line, r->ncols, nf);
    for (int c = 0; c < NCOLS; c++)
        f[c] = r->pos[c] >= 0 ? by_pos[r->pos[c]] : empty;
    double submit = 0;
    int64_t gpus = 0;
    struct job_spec sp = {0};
    memset(j, 0, sizeof *j);
    if ((rc = parse_int(r, COL_ID, f[COL_ID], &j->id)) < 0 ||
        (rc = parse_double(r, COL_SUBMIT, f[COL_SUBMIT], &submit)) < 0 ||
        (rc = parse_kind(r, f[COL_KIND], &kind)) < 0 ||
        (rc = parse_team(r, f[COL_TEAM], w, &team)) < 0 ||
        (rc = parse_int(r, COL_GPUS, f[COL_GPUS], &gpus)) < 0 ||
        (rc = parse_double(r, COL_MEM, f[COL_MEM], &j->gpu_mem_gb)) < 0 ||
        (rc = parse_allowed(r, f[COL_ALLOWED], &j->allowed)) < 0 ||
        (rc = parse_type(r, COL_REF, f[COL_REF], &ref)) < 0 ||
        (rc = parse_spec(r, f, &sp)) < 0 || (rc = parse_share(r, f, j)) < 0 ||
        (rc = parse_limit(r, f, j)) < 0 ||
        ((*f[COL_WORK] || sp.tokens <= 0) && (rc = parse_double(r, COL_WORK, f[COL_WORK], &j->work)) < 0))
        return rc;
    if (submit < 0)
        return row_fail(r, COL_SUBMIT, "must be >= 0, got %s", f[COL_SUBMIT]);
    if (!fs_seconds_ok(submit))
        return row_fail(r, COL_SUBMIT, "%s is too large (over ~285,000 years)", f[COL_SUBMIT]);
    if (gpus < (r->pos[COL_MILLI] >= 0 ? 0 : 1) || gpus > GPUS_LIMIT)
        return row_fail(r, COL_GPUS, "must be %d..%d, got %s", r->pos[COL_MILLI] >= 0 ? 0 : 1,
                        GPUS_LIMIT, f[COL_GPUS]);
    if (j->milli < GPU_MILLI && gpus != 1)
        return row_fail(r, COL_MILLI, "a share below 1000 needs exactly 1 GPU, got %s GPUs", f[COL_GPUS]);
    if (j->gpu_mem_gb < 0)
        return row_fail(r, COL_MEM, "must be >= 0, got %s", f[COL_MEM]);
    if (j->work <= 0 && *f[COL_WORK])
        return row_fail(r, COL_WORK, "must be > 0, got %s", f[COL_WORK]);
    j->submit = fs_from_seconds(submit);
    j->kind = (uint8_t)kind;
    j->team = (uint16_t)team;
    j->gpus = (int32_t)gpus;
    j->ref_type = (int16_t)ref;
    if (sp.params_b > 0)
        j->spec = workload_add_spec(w, &sp);
    return 0;
}

/* ---- reader: duplicate ids ---------------------------------------------- */

/* Duplicate ids are found once every row has parsed, by sorting (id, index)
 * keys - sequential memory access, where a hash set of a million ids spends
 * its time in cache misses - and not at all when the ids increase, as they
 * usually do.  Jobs n0.. were read from lines[0..]; jobs before n0 were in w
 * already.  RET: 0, or FS_EDATA for the duplicate seen earliest in the file. */
static int check_ids(const struct workload *w, size_t n0, const long long *lines,
                     const char *path, struct fs_err *err)
{
    size_t n = w->n, i;
    for (i = 1; i < n && w->jobs[i].id > w->jobs[i - 1].id; i++)
        ;
    if (i >= n)
        return 0;
    struct sort_key *keys = xmalloc(n * sizeof *keys);
    struct sort_key *tmp = xmalloc(n * sizeof *tmp);
    for (i = 0; i < n; i++)
        keys[i] = (struct sort_key){w->jobs[i].id, 0, i};
    struct sort_key *sorted = merge_sort(keys, tmp, n);
    /* In a run of equal ids the first has the least index (the sort is
     * stable); the duplicate to report is the one with the least index. */
    size_t dup = SIZE_MAX, first = 0, run = 0;
    for (i = 1; i < n; i++) {
        if (sorted[i].k1 != sorted[run].k1)
            run = i;
        else if (sorted[i].idx >= n0 && sorted[i].idx < dup) /* not w's own */
            dup = sorted[i].idx, first = sorted[run].idx;
    }
    free(keys);
    free(tmp);
    if (dup == SIZE_MAX)
        return 0;
    if (first < n0)
        return fs_fail(err, FS_EDATA, "%s:%lld: duplicate job id %" PRId64
                       " (already in the workload)", path, lines[dup - n0], w->jobs[dup].id);
    return fs_fail(err, FS_EDATA, "%s:%lld: duplicate job id %" PRId64 " (first on line %lld)",
                   path, lines[dup - n0], w->jobs[dup].id, lines[first - n0]);
}

/* ---- reader ------------------------------------------------------------- */

/* The columns after the base ones: whole optional groups, in any order.
 * Fills r->pos and r->ncols.  RET: 0, or -1 when the tail is not made of
 * groups. */
static int map_columns(struct row *r, const char *tail)
{
    static const char *const groups[] = {workload_spec_header, workload_share_header,
                                         workload_limit_header};
    static const int first[] = {COL_PARAMS, COL_MILLI, COL_LIMIT}, size[] = {3, 3, 3};
    enum { NGROUPS = 3 };
    for (int c = 0; c < NCOLS; c++)
        r->pos[c] = c < NCOLS_BASE ? c : -1;
    r->ncols = NCOLS_BASE;
    while (*tail) {
        size_t g = 0;
        while (g < NGROUPS && strncmp(tail, groups[g], strlen(groups[g])) != 0)
            g++;
        if (g == NGROUPS || r->pos[first[g]] >= 0)
            return -1;
        for (int k = 0; k < size[g]; k++)
            r->pos[first[g] + k] = r->ncols++;
        tail += strlen(groups[g]);
    }
    return 0;
}

/* Check the header and map its columns into r. */
static int read_header(struct rd_lines *in, const char *path, struct row *r, struct fs_err *err)
{
    char s[1024];
    int rc = rd_csv_header(in, s, sizeof s, err);
    if (rc == 0)
        return fs_fail(err, FS_EDATA, "%s: empty file; expected the header \"%s\"", path,
                       workload_native_header);
    if (rc < 0)
        return rc;
    size_t base = sizeof workload_native_header - 1;
    if (strncmp(s, workload_native_header, base) != 0 || map_columns(r, s + base) != 0)
        return fs_fail(err, FS_EDATA, "%s:1: bad header; expected \"%s\" (optionally followed by "
                       "any of \"%s\", \"%s\", \"%s\")", path, workload_native_header,
                       workload_spec_header, workload_share_header, workload_limit_header);
    return 0;
}

/* The data lines after the header.  OUT *lines: the line of each job added
 * (an array the caller frees). */
static int read_rows(struct rd_lines *in, const struct row *proto, struct workload *w,
                     long long **lines)
{
    size_t lines_cap = 0;
    struct row r = *proto;
    size_t n0 = w->n;
    char *f[NCOLS];
    int nf, rc;
    in->comment = '#';
    while ((rc = rd_csv_next(in, f, NCOLS, &nf, r.err)) != 0) {
        if (rc < 0)
            return rc;
        r.line = in->record;
        if ((rc = rd_count_row(in, r.err)) < 0)
            return rc;
        struct job j;
        if ((rc = parse_row(&r, f, nf, w, &j)) < 0)
            return rc;
        xgrow(lines, &lines_cap, w->n - n0 + 1, sizeof **lines);
        (*lines)[w->n - n0] = r.line;
        workload_add(w, &j);
    }
    if (w->n == n0)
        return fs_fail(r.err, FS_EDATA, "%s: no jobs", r.path);
    return 0;
}

/* Undo a failed read: drop the jobs, specs and team names it added. */
static void rollback(struct workload *w, size_t n0, size_t nspecs0, size_t nteams0)
{
    w->nspecs = nspecs0;
    for (size_t i = n0; i < w->n; i++)
        job_drop_gang(&w->jobs[i]);
    w->n = n0;
    for (size_t i = nteams0; i < w->nteams; i++)
        free(w->teams[i]);
    if (w->nteams != nteams0) {
        w->nteams = nteams0;
        team_rehash(w, w->team_slots_cap);
    }
}

int workload_read_native(const char *path, const struct gpu_catalog *cat,
                         struct workload *w, struct fs_err *err)
{
    struct rd_lines in;
    int rc = rd_open(&in, path, err);
    if (rc)
        return rc;
    struct row proto = {.path = path, .cat = cat, .err = err};
    size_t n0 = w->n, nspecs0 = w->nspecs, nteams0 = w->nteams;
    long long *lines = NULL;
    rc = read_header(&in, path, &proto, err);
    if (rc == 0)
        rc = read_rows(&in, &proto, w, &lines);
    if (rc == 0)
        rc = check_ids(w, n0, lines, path, err);
    if (rc < 0)
        rollback(w, n0, nspecs0, nteams0);
    else
        workload_sort(w);
    free(lines);
    rd_close(&in);
    return rc;
}
