/* metrics.c - exact time integrals and the timeseries.csv stream. */
#include "metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/signals.h"
#include "../sim/observe.h"

static void write_header(const struct metrics *m)
{
    const struct gpu_catalog *cat = m->sc->cat;
    fprintf(m->ts, "time_s,interval_s");
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t])
            fprintf(m->ts, ",allocated_%s", cat->types[t].name);
    fprintf(m->ts, ",allocated_total,utilization,queue_len");
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t])
            fprintf(m->ts, ",power_w_%s", cat->types[t].name);
    fprintf(m->ts, ",psu_load_max");
    for (int k = 0; k < m->sc->nservices; k++) {
        const char *n = m->sc->services[k].name;
        fprintf(m->ts, ",svc_demand_%s,svc_capacity_%s,svc_slots_%s,svc_active_s_%s,svc_met_s_%s,svc_within_%s",
                n, n, n, n, n, n);
    }
    fputc('\n', m->ts);
}

/* Each service's row ending at end (sim/observe.h): taken whether or
 * not there is a timeseries, written when there is. */
static void service_columns(const struct metrics *m, struct sim *s, fs_time end, double width_s)
{
    for (int k = 0; k < m->sc->nservices; k++) {
        struct svc_row r;
        svc_row_take(s, k, end, &r);
        if (m->ts)
            fprintf(m->ts, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.3f", r.demand_tokens / width_s, r.capacity_s / width_s,
                    r.slots_s / width_s, r.demand_s, r.met_s, r.within_tokens);
    }
}

/* One row: the means over [bucket_start, end). */
static void write_row(const struct metrics *m, struct sim *s, fs_time end)
{
    if (!m->ts) {
        service_columns(m, s, end, 0);
        return;
    }
    const struct gpu_catalog *cat = m->sc->cat;
    double width = (double)(end - m->bucket_start) * GPU_MILLI;
    metrics_wide total_us = 0;
    int64_t cap = 0;
    char from[FS_SECONDS_LEN], len[FS_SECONDS_LEN];
    fs_seconds_str(from, m->bucket_start);
    fs_seconds_str(len, end - m->bucket_start);
    fprintf(m->ts, "%s,%s", from, len);
    for (int t = 0; t < cat->n; t++) {
        if (!m->capacity[t])
            continue;
        fprintf(m->ts, ",%.4f", (double)m->bucket_alloc_us[t] / width);
        total_us += m->bucket_alloc_us[t];
        cap += m->capacity[t];
    }
    fprintf(m->ts, ",%.4f,%.6f,%.4f", (double)total_us / width,
            (double)total_us / width / (double)cap, (double)m->bucket_queue_us * GPU_MILLI / width);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t])
            fprintf(m->ts, ",%.2f", m->en.bucket_gpu_j_type[t] / (width / GPU_MILLI / (double)FS_USEC));
    fprintf(m->ts, ",%.4f", m->en.bucket_psu_max);
    service_columns(m, s, end, fs_to_seconds(end - m->bucket_start));
    fputc('\n', m->ts);
}

/* Add the current values over [m->last, to) to every integral. */
static void accumulate(struct metrics *m, fs_time to)
{
    int64_t dt = to - m->last;
    if (dt == 0)
        return; /* events at one instant (a round moves thousands): nothing to add */
    for (int t = 0; t < m->sc->cat->n; t++) {
        m->alloc_us[t] += m->alloc[t] * dt;
        m->bucket_alloc_us[t] += m->alloc[t] * dt;
    }
    m->queue_us += m->queue * dt;
    energy_advance(&m->en, dt);
    m->bucket_queue_us += m->queue * dt;
    m->last = to;
}

/* Settle the integrals to now, closing every interval that ends by then.
 * A run that outlasts its last arrival by more than m->max_rows
 * intervals, a row that cannot be written or a signal ends the run
 * (sim_fail, or the flag sim_run polls). */
static void settle(struct metrics *m, struct sim *s, fs_time now)
{
    while (now >= m->bucket_start + m->width) {
        if (++m->rows > m->max_rows) {
            sim_fail(s, FS_EDATA, "%s: $.output.timeseries_interval_s: %g s makes more than %lld timeseries "
                     "rows before the run ends (it had reached %.6g s); give a longer interval or a horizon_s",
                     s->sc->path, fs_to_seconds(m->width), (long long)m->max_rows,
                     fs_to_seconds(m->bucket_start));
            return;
        }
        if (fs_poll(m->rows))
            return;
        fs_time edge = m->bucket_start + m->width;
        accumulate(m, edge);
        write_row(m, s, edge);
        if (m->ts && ferror(m->ts)) {
            sim_fail(s, FS_ECANTCREAT, "timeseries.csv: write error: %s", strerror(errno));
            return;
        }
        m->bucket_start = edge;
        for (int t = 0; t < m->sc->cat->n; t++)
            m->bucket_alloc_us[t] = 0;
        m->bucket_queue_us = 0;
        energy_new_bucket(&m->en);
    }
    accumulate(m, now);
}

/* Charge j's current run segment, up to now, to its team and type. */
static void settle_segment(struct metrics *m, const struct job *j, fs_time now)
{
    if (j->type >= 0 && j->seg >= 0 && now > j->seg)
        m->team_us[(size_t)j->team * (size_t)m->ntypes + (size_t)j->type] += job_gpus(j) * (double)(now - j->seg);
}

static void notify(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    struct metrics *m = ctx;
    settle(m, s, s->now);
    switch (note) {
    case SIM_SUBMIT:
        if (++m->queue > m->queue_max)
            m->queue_max = m->queue;
        break;
    case SIM_START:
        m->queue--;
        if (j->gpus)
            m->alloc[j->type] += metrics_job_milli(j);
        energy_job(&m->en, j, s->now);
        break;
    case SIM_FINISH:
    case SIM_EVICT:
        settle_segment(m, j, s->now);
        if (j->gpus)
            m->alloc[j->type] -= metrics_job_milli(j);
        energy_job(&m->en, j, s->now);
        if (note == SIM_EVICT && ++m->queue > m->queue_max)
            m->queue_max = m->queue;
        break;
    case SIM_WITHDRAW:
        m->queue--;
        break;
    case SIM_NODE:
        energy_node(&m->en, s->node_changed, s->now);
        break;
    case SIM_END:
        for (size_t i = 0; i < s->njobs; i++) {
            const struct job *d = &s->jobs[i];
            if (d->state == JOB_RUNNING)
                settle_segment(m, d, s->now);
            else if (d->state == JOB_DONE && d->end <= s->end)
                m->done_gpu_h += d->work * d->milli / GPU_MILLI / 3600;
        }
        energy_finish(&m->en, s->now);
        if (s->now > m->bucket_start)
            write_row(m, s, s->now);
        break;
    }
}

struct metrics *metrics_new(const struct sim *s, FILE *ts)
{
    const struct scenario *sc = s->sc;
    struct metrics *m = xcalloc(1, sizeof *m);
    m->sc = sc;
    m->ts = ts;
    m->width = sc->ts_interval;
    m->max_rows = SCENARIO_MAX_TS_ROWS;
    m->ntypes = sc->cat->n;
    m->team_us = xcalloc((sc->wl.nteams + 1) * (size_t)m->ntypes, sizeof *m->team_us);
    for (int g = 0; g < sc->nfleet; g++)
        m->capacity[sc->fleet[g].type] += (int64_t)sc->fleet[g].nodes * sc->fleet[g].gpus_per_node;
    energy_init(&m->en, s);
    if (ts)
        write_header(m);
    return m;
}

void metrics_free(struct metrics *m)
{
    if (m) {
        energy_fini(&m->en);
        free(m->team_us);
    }
    free(m);
}

struct sim_observer metrics_observer(struct metrics *m)
{
    return (struct sim_observer){.ctx = m, .notify = notify};
}

double metrics_utilization(const struct metrics *m, int t, fs_time end)
{
    if (end <= 0 || !m->capacity[t])
        return 0;
    return (double)m->alloc_us[t] / ((double)m->capacity[t] * GPU_MILLI * (double)end);
}
