/* sweep_write.c - sweep's outputs (sweep.h): results.csv, results.json and
 * a chart per headline metric, written from the records in point order,
 * so they are byte-identical for any -j and any number of MPI ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/csv.h"
#include "../base/version.h"
#include "../reports/output.h"
#include "../reports/report.h"
#include "sweep.h"

/* Charts of the metrics a planner looks at first, against the point. */
static const struct chart {
    const char *name, *title, *ylabel;
    enum metric_id metric;
    double scale;
} charts[] = {
    {"wait_p95", "p95 wait per point", "p95 wait (h)", METRIC_WAIT_P95, 1.0 / 3600},
    {"cost_month", "Cost per 730-h month per point", "USD per month", METRIC_COST_MONTH, 1},
    {"utilization", "Utilization per point", "utilization", METRIC_UTILIZATION, 1},
};
enum { NCHARTS = SWEEP_CHARTS, CHART_LABELS_MAX = 40 };
_Static_assert(FS_ARRAY_LEN(charts) == SWEEP_CHARTS, "one chart a headline metric");

/* A parameter value as text: a string as is, anything else as JSON. */
static char *value_text(const cJSON *v)
{
    return cJSON_IsString(v) ? xstrdup(v->valuestring) : cJSON_PrintUnformatted(v);
}

static void csv_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputc(',', f);
}

static void write_csv(FILE *f, const struct sweep *sw)
{
    fputs("point", f);
    for (int k = 0; k < sw->nparams; k++) {
        fputc(',', f);
        csv_put(f, sw->params[k].path);
    }
    fputs(",seed", f);
    for (int m = 0; m < metric_count; m++)
        fprintf(f, ",%s", metric_table[m].name);
    fputc('\n', f);
    int vi[SWEEP_MAX_PARAMS], si;
    for (size_t i = 0; i < sw->npoints; i++) {
        sweep_indexes(sw, i, vi, &si);
        fprintf(f, "%zu", i);
        for (int k = 0; k < sw->nparams; k++) {
            char *t = value_text(cJSON_GetArrayItem(sw->params[k].values, vi[k]));
            fputc(',', f);
            csv_put(f, t);
            free(t);
        }
        fprintf(f, ",%llu", (unsigned long long)sw->rows[i].seed);
        for (int m = 0; m < metric_count; m++)
            csv_number(f, sw->rows[i].v[m]);
        fputc('\n', f);
    }
}

static char *json_text(const struct sweep *sw)
{
    cJSON *arr = cJSON_CreateArray();
    int vi[SWEEP_MAX_PARAMS], si;
    for (size_t i = 0; i < sw->npoints; i++) {
        sweep_indexes(sw, i, vi, &si);
        cJSON *o = cJSON_CreateObject(), *ps = cJSON_CreateObject(), *ms = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddNumberToObject(o, "point", (double)i);
        cJSON_AddItemToObject(o, "parameters", ps);
        for (int k = 0; k < sw->nparams; k++)
            cJSON_AddItemToObject(ps, sw->params[k].path,
                                  cJSON_Duplicate(cJSON_GetArrayItem(sw->params[k].values, vi[k]), true));
        cJSON_AddNumberToObject(o, "seed", (double)sw->rows[i].seed);
        cJSON_AddItemToObject(o, "metrics", ms);
        cJSON_AddItemToObject(o, "meta", version_json());
        for (int m = 0; m < metric_count; m++) {
            double v = sw->rows[i].v[m];
            cJSON_AddItemToObject(ms, metric_table[m].name, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
        }
    }
    char *text = cJSON_Print(arr);
    cJSON_Delete(arr);
    return text;
}

/* NAME.csv (point, its values, the metric) and NAME.gp. */
static void write_chart(FILE *csv, FILE *gp, const struct sweep *sw, const struct chart *c)
{
    bool labels = sw->npoints <= CHART_LABELS_MAX;
    fprintf(csv, "point,parameters,%s\n", c->ylabel);
    int vi[SWEEP_MAX_PARAMS], si;
    for (size_t i = 0; i < sw->npoints; i++) {
        sweep_indexes(sw, i, vi, &si);
        char label[256] = "";
        size_t len = 0;
        for (int k = 0; k < sw->nparams && len < sizeof label; k++) {
            char *t = value_text(cJSON_GetArrayItem(sw->params[k].values, vi[k]));
            int w = snprintf(label + len, sizeof label - len, "%s%s", k ? " " : "", t);
            len += w > 0 ? (size_t)w : 0;
            free(t);
        }
        if (sw->nseeds && len < sizeof label)
            snprintf(label + len, sizeof label - len, "%sseed %llu", len ? " " : "",
                     (unsigned long long)sw->rows[i].seed);
        for (char *p = label; *p; p++) /* gnuplot reads it unquoted */
            if (*p == ',' || *p == '"' || *p == '\'' || (unsigned char)*p < ' ')
                *p = '_';
        fprintf(csv, "%zu,%s,%.17g\n", i, label[0] ? label : "-", c->scale * sw->rows[i].v[c->metric]);
    }
    /* The x label names the parameters whose values label the points. */
    char xlabel[256] = "point (results.csv lists its parameters)";
    if (labels && sw->nparams + (sw->nseeds > 0) > 0) {
        size_t len = (size_t)snprintf(xlabel, sizeof xlabel, "point:");
        for (int k = 0; k < sw->nparams && len < sizeof xlabel; k++) {
            int w = snprintf(xlabel + len, sizeof xlabel - len, " %s", sw->params[k].path);
            len += w > 0 ? (size_t)w : 0;
        }
        if (sw->nseeds && len < sizeof xlabel)
            snprintf(xlabel + len, sizeof xlabel - len, " seed");
        for (char *p = xlabel; *p; p++)
            if (*p == '\'' || *p == '\\' || (unsigned char)*p < ' ')
                *p = '_';
    }
    charts_gp_head(gp, c->name, c->title);
    fprintf(gp, "set xlabel '%s'\nset ylabel '%s'\nset yrange [0:*]\nset offsets 0.5, 0.5, 0, 0\n%s"
                "plot datafile using 1:3%s with linespoints lw 2 pt 7 title columnhead(3)\n",
            xlabel, c->ylabel, labels ? "set xtics rotate by -35 font ',8'\n" : "", labels ? ":xtic(2)" : "");
}

int sweep_write(const struct sweep *sw, struct outset *set, struct fs_err *err)
{
    enum { F_CSV, F_JSON, F_DATA, F_GP = F_DATA + NCHARTS, F_PNG = F_GP + NCHARTS, F_COUNT = F_PNG + NCHARTS };
    struct outfile out[F_COUNT] = {0};
    char name[64], *json = NULL;
    int rc = 0;
    for (int k = 0; rc == 0 && k < F_COUNT; k++) {
        if (k < F_DATA)
            snprintf(name, sizeof name, "%s", k == F_CSV ? "results.csv" : "results.json");
        else
            snprintf(name, sizeof name, "%s.%s", charts[(k - F_DATA) % NCHARTS].name,
                     (const char *[]){"csv", "gp", "png"}[(k - F_DATA) / NCHARTS]);
        rc = out_set_open(set, &out[k], name, err);
    }
    if (rc)
        goto done;
    write_csv(out[F_CSV].f, sw);
    json = json_text(sw);
    fputs(json, out[F_JSON].f);
    fputc('\n', out[F_JSON].f);
    for (int c = 0; c < NCHARTS; c++)
        write_chart(out[F_DATA + c].f, out[F_GP + c].f, sw, &charts[c]);
    for (int k = 0; k < F_PNG; k++)
        if ((rc = out_close(&out[k], err)))
            goto done;
    const char *gnuplot = charts_gnuplot();
    for (int c = 0; c < NCHARTS; c++)
        if (!gnuplot || charts_render(gnuplot, out_set_path(set), charts[c].name, out[F_GP + c].tmp, out[F_DATA + c].tmp,
                                      out[F_PNG + c].tmp) != 0)
            out_discard(&out[F_PNG + c]);
    rc = out_set_commit(set, err);
done:
    for (int k = 0; k < F_COUNT; k++)
        out_discard(&out[k]);
    free(json);
    return rc;
}
