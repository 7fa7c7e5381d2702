/* compare_dir.c - a comparison, or one a seed, written into a folder
 * (compare_run.h): what `fleetsim compare` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/compare_seeds.h"
#include "../reports/output.h"
#include "../reports/pdf.h"
#include "compare_run.h"

/* out/compare-NAME in buf (the name kept inside out/).  RET: buf. */
static const char *default_dir(const struct scenario *sc0, char *buf, size_t size)
{
    snprintf(buf, size, "out/compare-%s", sc0->name);
    for (char *p = buf + 4; *p; p++)
        if (*p == '/')
            *p = '_';
    return buf;
}

/* The comparison at each seed into DIR/seed-S (e: room for the entries),
 * then DIR/seeds.json; *dir defaults from the first seed's baseline.
 * RET: 0 or an FS_E* code with err filled. */
static int compare_seeds(struct compare_runs *cr, const uint64_t *seeds, int nseeds, const char **dir,
                         char *fallback, size_t fsize, const char *chromium, struct compare_entry *e,
                         struct fs_err *err)
{
    struct compare_seeds cs = {.v = xcalloc((size_t)nseeds, sizeof *cs.v)};
    int rc = 0;
    for (int s = 0; rc == 0 && s < nseeds; s++) {
        char sub[4096];
        cr->so.has_seed = true;
        cr->so.seed = seeds[s];
        struct scenario *sc0 = NULL;
        memset(e, 0, COMPARE_MAX * sizeof *e);
        if ((rc = compare_runs(cr, e, &sc0, err)) == 0 && !*dir)
            *dir = default_dir(sc0, fallback, fsize);
        snprintf(sub, sizeof sub, "%s/seed-%llu", *dir ? *dir : "", (unsigned long long)seeds[s]);
        if (rc == 0 && (rc = out_mkdir(*dir, err)) == 0 && (rc = compare_write(sub, e, cr->n, sc0, err)) == 0) {
            compare_seeds_add(&cs, s, seeds[s], e, cr->n);
            if (!cr->quiet)
                fprintf(stderr, "  wrote %s/{compare.json,report.md,report.html}\n", sub);
            if (chromium && (rc = pdf_write(chromium, sub, err)) == 0 && !cr->quiet)
                fprintf(stderr, "  wrote %s/report.pdf\n", sub);
        }
        for (int i = 0; i < cr->n; i++)
            compare_entry_free(&e[i]);
        scenario_free(sc0);
    }
    if (rc == 0 && (rc = compare_seeds_write(&cs, *dir, err)) == 0 && !cr->quiet) {
        compare_seeds_print(stderr, &cs);
        fprintf(stderr, "  wrote %s/seeds.json\n", *dir);
    }
    free(cs.v);
    return rc;
}

int compare_dir(struct compare_runs *cr, const uint64_t *seeds, int nseeds, const char **dir, char *fallback,
                size_t fsize, const char *chromium, struct fs_err *err)
{
    static struct compare_entry e[COMPARE_MAX]; /* large; one comparison per process */
    if (nseeds)
        return compare_seeds(cr, seeds, nseeds, dir, fallback, fsize, chromium, e, err);
    struct scenario *sc0 = NULL;
    memset(e, 0, sizeof e);
    int rc = compare_runs(cr, e, &sc0, err);
    if (rc == 0 && !*dir)
        *dir = default_dir(sc0, fallback, fsize);
    if (rc == 0) {
        rc = compare_write(*dir, e, cr->n, sc0, err);
        if (rc == 0 && !cr->quiet)
            fprintf(stderr, "  wrote %s/{compare.json,report.md,report.html}\n", *dir);
        if (rc == 0 && chromium && (rc = pdf_write(chromium, *dir, err)) == 0 && !cr->quiet)
            fprintf(stderr, "  wrote %s/report.pdf\n", *dir);
    }
    for (int i = 0; i < cr->n; i++)
        compare_entry_free(&e[i]);
    scenario_free(sc0);
    return rc;
}
