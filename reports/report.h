/* report.h - report.md and a self-contained report.html for a run, with
 * charts drawn by gnuplot from scripts and data the run writes beside them:
 *
 *   util.gp   + util.csv    GPUs allocated per type over time
 *   queue.gp  + queue.csv   queue length over time
 *   power.gp  + power.csv   GPU power per type and the highest PSU load
 *   wait.gp   + wait.csv    the distribution (CDF) of the jobs' waits
 *
 * util, queue and power copy their columns verbatim from timeseries.csv:
 * the exact means over each interval, not a resampling.  The images are
 * PNG (gnuplot's pngcairo terminal); report.md links them and report.html
 * embeds them as base64 data: URIs, so it needs no other file.
 *
 * gnuplot is looked up on PATH, or is $FLEETSIM_GNUPLOT when that is set
 * (a path; one that does not exist means "no gnuplot").  It runs with
 * fork/exec in the output folder, never through a shell.  Without it, or
 * when it fails for a chart, the run still succeeds: the scripts and data
 * are written and the report lists the missing charts and the command that
 * renders them (`cd DIR && gnuplot *.gp`).
 *
 * Every file is one of an output set (reports/output.h), which the caller
 * commits together with its other outputs or not at all.
 */
#ifndef FS_REPORTS_REPORT_H
#define FS_REPORTS_REPORT_H

#include <stdbool.h>

#include "output.h"
#include "summary.h"

enum { REPORT_CHARTS = 4 };

enum report_file {
    REPORT_MD, REPORT_HTML,
    REPORT_DATA0,                               /* util, queue, power, wait .csv */
    REPORT_GP0 = REPORT_DATA0 + REPORT_CHARTS,  /* ... .gp */
    REPORT_PNG0 = REPORT_GP0 + REPORT_CHARTS,   /* ... .png */
    REPORT_NFILES = REPORT_PNG0 + REPORT_CHARTS
};

struct report {
    char *dir;                        /* where the files are written */
    char *shown;                      /* the output folder, as messages name it */
    struct outfile out[REPORT_NFILES];
    bool drawn[REPORT_CHARTS];        /* the chart's image was rendered */
    bool have_gnuplot;
};

/* Open every report file in set.  RET: 0 or FS_ECANTCREAT with err filled. */
int report_open(struct report *r, struct outset *set, struct fs_err *err);

/* Write the data, the scripts, the images (when gnuplot runs) and the two
 * reports, all still uncommitted.  ts_path is the closed
 * timeseries.csv of the run (under whatever name it has now).
 * RET: 0 or FS_ECANTCREAT with err filled. */
int report_write(struct report *r, const struct sim *s, const struct metrics *m,
                 const struct run_stats *st, const char *ts_path, struct fs_err *err);

/* Remove every uncommitted file and free r's names.  Accepts a zeroed
 * report. */
void report_discard(struct report *r);

/* "util", "queue", "power", "wait" */
extern const char *const report_chart_names[REPORT_CHARTS];

/* --- internal to report.c and charts.c ----------------------------------- */

extern const char *const chart_titles[REPORT_CHARTS];

/* util/queue/power .csv from the timeseries text ts.  RET: 0, or -1 when
 * ts has no header with the expected columns. */
int charts_data(FILE *ts, FILE *util, FILE *queue, FILE *power, int *ntypes);

/* wait.csv: the CDF of the waits. */
void charts_wait(FILE *f, const struct sim *s);

/* The four scripts, in report_chart_names order. */
void charts_scripts(FILE *gp[REPORT_CHARTS], int ntypes);

/* The gnuplot to run, or NULL when there is none (static buffer). */
const char *charts_gnuplot(void);

/* The head of a chart script NAME.gp: reads NAME.csv (or $NAME_data),
 * writes NAME.png (or $NAME_out) with pngcairo at 900x420. */
void charts_gp_head(FILE *f, const char *name, const char *title);

/* Run gnuplot in dir on script (a path in dir) with -e expr, into the
 * file out.  RET: 0 when it exited 0 and out is not empty. */
int charts_exec(const char *gnuplot, const char *dir, const char *expr, const char *script,
                const char *out);

/* Render the chart NAME: run gnuplot in dir on the script gp with
 * NAME_data and NAME_out set to data and png (all in dir).
 * RET: 0 when the image was written. */
int charts_render(const char *gnuplot, const char *dir, const char *name, const char *gp,
                  const char *data, const char *png);

/* charts_render's arguments for one chart. */
struct chart_render {
    const char *name, *gp, *data, *png;
};

#define CHARTS_MAX 8

/* charts_render of c[0..n) (n <= CHARTS_MAX) side by side, one gnuplot
 * each, all started before any is waited for; drawn[k]: chart k's image
 * was written. */
void charts_render_all(const char *gnuplot, const char *dir, const struct chart_render *c, int n, bool *drawn);

#endif
