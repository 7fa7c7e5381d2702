/* charts.c - the chart data and gnuplot scripts of report.h, and running
 * gnuplot on them. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/task.h"

const char *const report_chart_names[REPORT_CHARTS] = {"util", "queue", "power", "wait"};
const char *const chart_titles[REPORT_CHARTS] = {
    "GPUs allocated per type over time", "Queue length over time",
    "GPU power per type and highest PSU load over time", "Distribution of job waits (CDF)"};

/* Split a CSV line (no quoting: timeseries.csv has none) in place. */
static int split(char *line, char **cols, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < max;) {
        cols[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

enum { MAXCOLS = 4 * GPU_MAX_TYPES + 16 };

/* Copy timeseries columns into util.csv, queue.csv and power.csv: the same
 * text, so the same exact interval means.  *ntypes gets the GPU types. */
int charts_data(FILE *ts, FILE *util, FILE *queue, FILE *power, int *ntypes)
{
    char *line = NULL, *cols[MAXCOLS];
    size_t cap = 0;
    int alloc0 = -1, nalloc = 0, qcol = -1, pow0 = -1, npow = 0, psu = -1, ncols = 0;
    if (getline(&line, &cap, ts) < 0) {
        free(line);
        return -1;
    }
    ncols = split(line, cols, MAXCOLS);
    for (int c = 0; c < ncols; c++) {
        if (!strncmp(cols[c], "allocated_", 10) && strcmp(cols[c], "allocated_total")) {
            if (alloc0 < 0)
                alloc0 = c;
            nalloc++;
        } else if (!strncmp(cols[c], "power_w_", 8)) {
            if (pow0 < 0)
                pow0 = c;
            npow++;
        } else if (!strcmp(cols[c], "queue_len")) {
            qcol = c;
        } else if (!strcmp(cols[c], "psu_load_max")) {
            psu = c;
        }
    }
    if (alloc0 < 0 || qcol < 0 || pow0 < 0 || psu < 0 || nalloc != npow) {
        free(line);
        return -1;
    }
    fputs("time_s", util);
    fputs("time_s,queue_len\n", queue);
    fputs("time_s", power);
    for (int k = 0; k < nalloc; k++) {
        fprintf(util, ",%s", cols[alloc0 + k] + 10);
        fprintf(power, ",%s", cols[pow0 + k] + 8);
    }
    fputs("\n", util);
    fputs(",psu_load_max\n", power);
    while (getline(&line, &cap, ts) >= 0) {
        if (split(line, cols, MAXCOLS) != ncols)
            continue;
        fputs(cols[0], util);
        fprintf(queue, "%s,%s\n", cols[0], cols[qcol]);
        fputs(cols[0], power);
        for (int k = 0; k < nalloc; k++) {
            fprintf(util, ",%s", cols[alloc0 + k]);
            fprintf(power, ",%s", cols[pow0 + k]);
        }
        fputs("\n", util);
        fprintf(power, ",%s\n", cols[psu]);
    }
    free(line);
    *ntypes = nalloc;
    return 0;
}

/* wait.csv: the empirical CDF of every submitted job's wait (summary_waits:
 * one not started counts its wait so far), one row per distinct wait: the
 * fraction of the jobs that waited that long or less.  The step plot is
 * the one a row per job draws, without a million points for gnuplot when
 * most jobs wait the same (none at all). */
void charts_wait(FILE *f, const struct sim *s)
{
    double *w = xmalloc((s->njobs + 1) * sizeof *w);
    size_t n = summary_waits(s, w);
    fs_sort(w, n);
    fputs("wait_s,fraction\n", f);
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && w[i + 1] == w[i])
            continue;  /* the last of equal waits has the fraction */
        /* The waits are whole microseconds: fs_from_seconds gives them back
         * exactly, and they are written as integers. */
        char wait[FS_SECONDS_LEN];
        fs_seconds_str(wait, fs_from_seconds(w[i]));
        fprintf(f, "%s,%.6f\n", wait, (double)(i + 1) / (double)n);
    }
    free(w);
}

void charts_gp_head(FILE *f, const char *name, const char *title)
{
    fprintf(f, "# %s.gp - %s (fleetsim).\n"
               "# Render with: gnuplot %s.gp   (writes %s.png from %s.csv)\n"
               "reset\n"
               "if (!exists(\"%s_data\")) %s_data = '%s.csv'\n"
               "if (!exists(\"%s_out\")) %s_out = '%s.png'\n"
               "datafile = %s_data\n"
               "set terminal pngcairo size 900,420 font 'sans,10' noenhanced\n"
               "set output %s_out\n"
               "set datafile separator ','\n"
               "set title '%s'\n"
               "set grid\n"
               "set key outside right top\n",
            name, title, name, name, name, name, name, name, name, name, name, name, name, title);
}

static void gp_head(FILE *f, int k)
{
    charts_gp_head(f, report_chart_names[k], chart_titles[k]);
}

void charts_scripts(FILE *gp[REPORT_CHARTS], int ntypes)
{
    gp_head(gp[0], 0);
    /* Stacked areas, the largest sum first so each type's band shows. */
    fprintf(gp[0], "set xlabel 'time (h)'\nset ylabel 'GPUs allocated, stacked by type (interval mean)'\n"
                   "set yrange [0:*]\nset style fill solid 0.7 noborder\n"
                   "plot for [i=%d:2:-1] datafile using ($1/3600):(sum [c=2:i] column(c)) "
                   "with filledcurves x1 title columnhead(i)\n",
            ntypes + 1);
    gp_head(gp[1], 1);
    fputs("set xlabel 'time (h)'\nset ylabel 'jobs queued (interval mean)'\n"
          "plot datafile using ($1/3600):2 with steps lw 2 title columnhead(2)\n", gp[1]);
    gp_head(gp[2], 2);
    fprintf(gp[2], "set xlabel 'time (h)'\nset ylabel 'GPU power (W, interval mean)'\n"
                   "set y2label 'highest PSU load (%%)'\nset y2tics\nset ytics nomirror\n"
                   "plot for [i=2:%d] datafile using ($1/3600):i with steps lw 2 title columnhead(i), \\\n"
                   "     datafile using ($1/3600):($%d*100) axes x1y2 with steps lw 1 dt 2 "
                   "title 'psu_load_max (%%)'\n",
            ntypes + 1, ntypes + 2);
    gp_head(gp[3], 3);
    fputs("set xlabel 'wait (h)'\nset ylabel 'fraction of submitted jobs'\nset yrange [0:1]\n"
          "plot datafile using ($1/3600):2 with steps lw 2 title 'wait CDF'\n", gp[3]);
}

const char *charts_gnuplot(void)
{
    static char buf[4096];
    const char *env = getenv("FLEETSIM_GNUPLOT");
    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    return fs_which("gnuplot", buf, sizeof buf);
}

static const char *base(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Start gnuplot in dir on script with -e expr.  RET: its pid, or -1. */
static pid_t spawn(const char *gnuplot, const char *dir, const char *expr, const char *script)
{
    fflush(NULL);
    /* gnuplot's warnings (flat data, say) are not ours to print. */
    char *argv[] = {(char *)"gnuplot", (char *)"-e", (char *)expr, (char *)base(script), NULL};
    return fs_spawn_quiet(gnuplot, argv, dir);
}

/* Wait for the gnuplot spawn started.  RET: 0 when it exited 0 and out is
 * not empty. */
static int reap(pid_t pid, const char *out)
{
    if (pid < 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    struct stat sb;
    return stat(out, &sb) == 0 && sb.st_size > 0 ? 0 : -1;
}

int charts_exec(const char *gnuplot, const char *dir, const char *expr, const char *script,
                const char *out)
{
    return reap(spawn(gnuplot, dir, expr, script), out);
}

/* gnuplot's -e for chart NAME: NAME_data and NAME_out. */
static void chart_expr(char *expr, size_t size, const struct chart_render *c)
{
    /* The names are ours (fixed, in the set's private folder): no quotes. */
    snprintf(expr, size, "%s_data='%s'; %s_out='%s'", c->name, base(c->data), c->name, base(c->png));
}

int charts_render(const char *gnuplot, const char *dir, const char *name, const char *gp,
                  const char *data, const char *png)
{
    char expr[512];
    struct chart_render c = {name, gp, data, png};
    chart_expr(expr, sizeof expr, &c);
    return charts_exec(gnuplot, dir, expr, gp, png);
}

void charts_render_all(const char *gnuplot, const char *dir, const struct chart_render *c, int n, bool *drawn)
{
    pid_t pid[CHARTS_MAX];
    for (int k = 0; k < n; k++) {
        char expr[512];
        chart_expr(expr, sizeof expr, &c[k]);
        pid[k] = spawn(gnuplot, dir, expr, c[k].gp);
    }
    for (int k = 0; k < n; k++)
        drawn[k] = reap(pid[k], c[k].png) == 0;
}
