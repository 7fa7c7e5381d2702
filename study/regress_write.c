/* regress_write.c - the gate's judgement as a table, as JSON and as JUnit
 * XML (regress_impl.h).  All three come from one struct rg_judgement, so
 * they never disagree; none holds a time or a host name, so the same run
 * writes the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/output.h"
#include "regress_impl.h"

static const char *status_text(const struct rg_case *c)
{
    switch (c->status) {
    case RG_SKIPPED: return "SKIPPED";
    case RG_NOT_IN_BASELINE: return "NOT IN BASELINE (new? write the baseline with --update)";
    case RG_NOT_IN_SUITE: return "NOT IN SUITE (in the baseline only: deleted? --update)";
    case RG_RAN: break;
    }
    return "ran";
}

/* A change or interval end as a percentage of the baseline, or (baseline
 * 0) as a number. */
static void fmt_rel(char *buf, size_t n, double x, double base)
{
    if (!isfinite(x))
        snprintf(buf, n, "-");
    else if (base != 0)
        snprintf(buf, n, "%+.2f%%", 100 * x / fabs(base));
    else
        snprintf(buf, n, "%+.4g", x);
}

static void seeds_text(char *buf, size_t n, const uint64_t *s, int ns)
{
    bool run = true;
    for (int i = 1; i < ns; i++)
        run &= s[i] == s[i - 1] + 1;
    if (ns > 1 && run)
        snprintf(buf, n, "%llu..%llu", (unsigned long long)s[0], (unsigned long long)s[ns - 1]);
    else {
        size_t at = 0;
        buf[0] = '\0';
        for (int i = 0; i < ns && at + 24 < n; i++)
            at += (size_t)snprintf(buf + at, n - at, "%s%llu", i ? "," : "", (unsigned long long)s[i]);
    }
}

void rg_write_table(FILE *f, const struct rg_judgement *j, bool quiet)
{
    char seeds[256], bseeds[256];
    seeds_text(seeds, sizeof seeds, j->seeds, j->nseeds);
    seeds_text(bseeds, sizeof bseeds, j->base_seeds, j->base_nseeds);
    fprintf(f, "seeds %s against the baseline's %s; change: mean now - mean baseline; interval: Welch's t, "
               "%.0f%% for the %d metrics together (Bonferroni: %.4g%% each)\n", seeds, bseeds,
            100 * REGRESS_CONFIDENCE, j->tests, 100 * j->level);
    fprintf(f, "%-34s %-22s %13s %13s %9s %21s %9s  %s\n", "scenario", "metric", "baseline", "now", "change",
            "interval", "tolerance", "verdict");
    for (size_t i = 0; i < j->ncases; i++) {
        const struct rg_case *c = &j->cases[i];
        if (c->renamed_from)
            fprintf(f, "%-34s RENAMED from %s (judged against it; --update rewrites the key)\n", c->key,
                    c->renamed_from);
        if (c->status != RG_RAN) {
            fprintf(f, "%-34s %s%s%s\n", c->key, status_text(c), c->why ? ": " : "", c->why ? c->why : "");
            continue;
        }
        for (int r = 0; r < c->nrows; r++) {
            const struct rg_row *w = &c->rows[r];
            if (quiet && w->verdict == RG_UNCHANGED)
                continue;
            char ch[32], lo[32], hi[32], iv[72], tol[32];
            fmt_rel(ch, sizeof ch, w->change, w->base);
            fmt_rel(lo, sizeof lo, w->lo, w->base);
            fmt_rel(hi, sizeof hi, w->hi, w->base);
            fmt_rel(tol, sizeof tol, w->tolerance, w->base);
            snprintf(iv, sizeof iv, isfinite(w->lo) ? "[%s, %s]" : "-", lo, hi);
            fprintf(f, "%-34s %-22s %13.6g %13.6g %9s %21s %9s  %s\n", c->key, metric_table[w->k].name,
                    w->base, w->now, ch, iv, isfinite(w->change) ? tol + 1 : "-", rg_verdict_name(w->verdict));
        }
    }
    fprintf(f, "regress: %zu scenarios, %d metrics worse, %d better, %d unchanged, %d inconclusive",
            j->ncases - (size_t)j->gone, j->worse, j->better, j->same, j->inconclusive);
    if (j->skipped)
        fprintf(f, ", %d skipped%s", j->skipped, j->allow_skip ? " (allowed)" : " (fails; --allow-skip)");
    if (j->missing)
        fprintf(f, ", %d not in the baseline", j->missing);
    if (j->gone)
        fprintf(f, ", %d in the baseline only%s", j->gone, j->allow_skip ? " (allowed)" : "");
    if (j->renamed)
        fprintf(f, ", %d renamed", j->renamed);
    fprintf(f, ": %s\n", j->rc ? "FAIL" : "pass");
}

static cJSON *num_or_null(double x)
{
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static cJSON *seeds_json(const uint64_t *s, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)s[i]));
    return a;
}

static cJSON *row_json(const struct rg_row *w)
{
    const struct metric_def *m = &metric_table[w->k];
    cJSON *o = cJSON_CreateObject(), *iv = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "metric", m->name);
    cJSON_AddStringToObject(o, "unit", m->unit);
    cJSON_AddNumberToObject(o, "better", w->tol.better);
    cJSON_AddItemToObject(o, "baseline", num_or_null(w->base));
    cJSON_AddItemToObject(o, "now", num_or_null(w->now));
    cJSON_AddItemToObject(o, "change", num_or_null(w->change));
    cJSON_AddItemToArray(iv, num_or_null(w->lo));
    cJSON_AddItemToArray(iv, num_or_null(w->hi));
    cJSON_AddItemToObject(o, "interval", iv);
    cJSON_AddItemToObject(o, "tolerance", num_or_null(isfinite(w->change) ? w->tolerance : NAN));
    cJSON_AddStringToObject(o, "verdict", rg_verdict_name(w->verdict));
    return o;
}

void rg_write_json(FILE *f, const struct rg_judgement *j)
{
    static const char *const status[] = {"ran", "skipped", "not in baseline", "not in suite"};
    cJSON *root = cJSON_CreateObject(), *cases = cJSON_CreateArray(), *n = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "fleetsim_regress", REGRESS_FORMAT);
    cJSON_AddStringToObject(root, "suite", j->suite);
    cJSON_AddStringToObject(root, "baseline", j->baseline);
    cJSON_AddItemToObject(root, "seeds", seeds_json(j->seeds, j->nseeds));
    cJSON_AddItemToObject(root, "baseline_seeds", seeds_json(j->base_seeds, j->base_nseeds));
    cJSON_AddStringToObject(root, "test", "Welch t interval on the change of the mean");
    cJSON_AddNumberToObject(root, "confidence", REGRESS_CONFIDENCE);
    cJSON_AddNumberToObject(root, "tests", j->tests);
    cJSON_AddNumberToObject(root, "interval_level", j->level);
    cJSON_AddStringToObject(root, "verdict", j->rc ? "fail" : "pass");
    cJSON_AddNumberToObject(root, "exit", j->rc);
    cJSON_AddNumberToObject(n, "worse", j->worse);
    cJSON_AddNumberToObject(n, "better", j->better);
    cJSON_AddNumberToObject(n, "unchanged", j->same);
    cJSON_AddNumberToObject(n, "inconclusive", j->inconclusive);
    cJSON_AddNumberToObject(n, "skipped", j->skipped);
    cJSON_AddNumberToObject(n, "not_in_baseline", j->missing);
    cJSON_AddNumberToObject(n, "not_in_suite", j->gone);
    cJSON_AddNumberToObject(n, "renamed", j->renamed);
    cJSON_AddItemToObject(root, "counts", n);
    for (size_t i = 0; i < j->ncases; i++) {
        const struct rg_case *c = &j->cases[i];
        cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray();
        cJSON_AddStringToObject(o, "key", c->key);
        cJSON_AddStringToObject(o, "name", c->name);
        cJSON_AddStringToObject(o, "status", status[c->status]);
        if (c->why)
            cJSON_AddStringToObject(o, "reason", c->why);
        if (c->renamed_from)
            cJSON_AddStringToObject(o, "renamed_from", c->renamed_from);
        for (int r = 0; r < c->nrows; r++)
            cJSON_AddItemToArray(rows, row_json(&c->rows[r]));
        cJSON_AddItemToObject(o, "metrics", rows);
        cJSON_AddItemToArray(cases, o);
    }
    cJSON_AddItemToObject(root, "scenarios", cases);
    char *text = cJSON_Print(root);
    fprintf(f, "%s\n", text);
    free(text);
    cJSON_Delete(root);
}

/* s with XML's five special characters escaped. */
static void xml_put(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= ' ' || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
    }
}

/* What a failing metric says: the numbers a reviewer needs. */
static void row_message(char *buf, size_t n, const struct rg_row *w, double level)
{
    const struct metric_def *m = &metric_table[w->k];
    if (!isfinite(w->change)) {
        snprintf(buf, n, "%s %s: baseline %.6g %s, now undefined", m->name, rg_verdict_name(w->verdict), w->base,
                 m->unit);
        return;
    }
    char ch[32];
    fmt_rel(ch, sizeof ch, w->change, w->base);
    snprintf(buf, n, "%s %s: baseline %.6g %s, now %.6g %s, change %+.6g (%s), %.4g%% interval [%+.6g, %+.6g], "
                     "tolerance %.6g (%s is better)",
             m->name, rg_verdict_name(w->verdict), w->base, m->unit, w->now, m->unit, w->change, ch,
             100 * level, w->lo, w->hi, w->tolerance, w->tol.better > 0 ? "higher" : "lower");
}

static void junit_case(FILE *f, const struct rg_judgement *j, const struct rg_case *c)
{
    fputs("    <testcase classname=\"", f);
    xml_put(f, c->key);
    fputs("\" name=\"", f);
    if (c->status != RG_RAN) {
        fputs("scenario\">\n", f);
        bool fails = c->status == RG_NOT_IN_BASELINE || !j->allow_skip;
        fputs(fails ? "      <failure type=\"missing\" message=\"" : "      <skipped message=\"", f);
        xml_put(f, status_text(c));
        if (c->why) {
            fputs(": ", f);
            xml_put(f, c->why);
        }
        fputs("\"/>\n    </testcase>\n", f);
        return;
    }
    fputs("scenario\"/>\n", f);
    for (int r = 0; r < c->nrows; r++) {
        const struct rg_row *w = &c->rows[r];
        fputs("    <testcase classname=\"", f);
        xml_put(f, c->key);
        fprintf(f, "\" name=\"%s\"", metric_table[w->k].name);
        char msg[512];
        row_message(msg, sizeof msg, w, j->level);
        if (w->verdict != RG_WORSE) {
            fputs(">\n      <system-out>", f);
            xml_put(f, msg);
            fputs("</system-out>\n    </testcase>\n", f);
            continue;
        }
        fputs(">\n      <failure type=\"regression\" message=\"", f);
        xml_put(f, msg);
        fputs("\">", f);
        xml_put(f, msg);
        fputs("</failure>\n    </testcase>\n", f);
    }
}

static void case_counts(const struct rg_judgement *j, const struct rg_case *c, int *tests, int *failures,
                        int *skipped)
{
    *tests = 1 + c->nrows;
    *failures = *skipped = 0;
    if (c->status != RG_RAN)
        *(c->status == RG_NOT_IN_BASELINE || !j->allow_skip ? failures : skipped) = 1;
    for (int r = 0; r < c->nrows; r++)
        *failures += c->rows[r].verdict == RG_WORSE;
}

static void junit(FILE *f, const struct rg_judgement *j)
{
    int tests = 0, failures = 0, skipped = 0;
    for (size_t i = 0; i < j->ncases; i++) {
        int t, fl, s;
        case_counts(j, &j->cases[i], &t, &fl, &s);
        tests += t;
        failures += fl;
        skipped += s;
    }
    char seeds[256], bseeds[256];
    seeds_text(seeds, sizeof seeds, j->seeds, j->nseeds);
    seeds_text(bseeds, sizeof bseeds, j->base_seeds, j->base_nseeds);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"fleetsim regress\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
            tests, failures, skipped);
    for (size_t i = 0; i < j->ncases; i++) {
        const struct rg_case *c = &j->cases[i];
        int t, fl, s;
        case_counts(j, c, &t, &fl, &s);
        fprintf(f, "  <testsuite id=\"%zu\" name=\"", i);
        xml_put(f, c->key);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", t, fl, s);
        fputs("    <properties>\n      <property name=\"scenario\" value=\"", f);
        xml_put(f, c->name);
        fprintf(f, "\"/>\n      <property name=\"seeds\" value=\"%s\"/>\n"
                   "      <property name=\"baseline_seeds\" value=\"%s\"/>\n", seeds, bseeds);
        fputs("      <property name=\"baseline\" value=\"", f);
        xml_put(f, j->baseline);
        fputs("\"/>\n", f);
        if (c->renamed_from) {
            fputs("      <property name=\"renamed_from\" value=\"", f);
            xml_put(f, c->renamed_from);
            fputs("\"/>\n", f);
        }
        fputs("    </properties>\n", f);
        junit_case(f, j, c);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

int rg_write_junit(const char *file, const struct rg_judgement *j, struct fs_err *err)
{
    struct outfile of = {0};
    int rc = out_open_path(&of, file, err);
    if (rc == 0) {
        junit(of.f, j);
        if (ferror(of.f))
            rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write", file);
    }
    if (rc == 0 && (rc = out_close(&of, err)) == 0)
        rc = out_commit(&of, err);
    out_discard(&of);
    return rc;
}
