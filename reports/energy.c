/* energy.c - exact energy integrals and per-node PSU statistics. */
#include "energy.h"

#include <math.h>
#include <stdlib.h>

/* Credit node n's PSU load since its last change, up to now. */
static void settle_psu(struct psu_stat *p, fs_time now)
{
    int64_t dt = now - p->since;
    int bin = (int)(p->load * 100);
    p->hist_us[bin < 0 ? 0 : bin >= PSU_BINS ? PSU_BINS - 1 : bin] += dt;
    if (p->load > 0.8)
        p->above80_us += dt;
    if (p->load > 1.0)
        p->above100_us += dt;
    p->since = now;
}

/* Recompute node n's power from the engine's account of its busy GPUs
 * (sim_node_power) and fold it into the fleet totals. */
void energy_node(struct energy *e, int32_t n, fs_time now)
{
    const struct sim *s = e->s;
    const struct node *nd = &s->cl->nodes[n];
    double gpu_w;
    struct node_power np = sim_node_power(s, n, 0, 0, &gpu_w);

    e->gpu_w += gpu_w - e->node_gpu_w[n];
    e->gpu_w_type[nd->type] += gpu_w - e->node_gpu_w[n];
    e->node_gpu_w[n] = gpu_w;
    e->dc_w += np.dc_w - e->np[n].dc_w;
    e->wall_w += np.wall_w - e->np[n].wall_w;
    e->np[n] = np;

    struct psu_stat *p = &e->psu[n];
    settle_psu(p, now);
    if (np.psu_load > 1.0 && p->load <= 1.0)
        p->overloads++;
    p->load = np.psu_load;
    if (np.psu_load > p->peak)
        p->peak = np.psu_load;
    if (np.psu_load > e->bucket_psu_max)
        e->bucket_psu_max = np.psu_load;
}

void energy_init(struct energy *e, const struct sim *s)
{
    *e = (struct energy){.s = s, .nnodes = s->cl->nnodes};
    e->np = xcalloc((size_t)e->nnodes, sizeof *e->np);
    e->node_gpu_w = xcalloc((size_t)e->nnodes, sizeof *e->node_gpu_w);
    e->psu = xcalloc((size_t)e->nnodes, sizeof *e->psu);
    for (int32_t n = 0; n < e->nnodes; n++)
        energy_node(e, n, 0);
}

void energy_fini(struct energy *e)
{
    free(e->np);
    free(e->node_gpu_w);
    free(e->psu);
}

void energy_advance(struct energy *e, int64_t dt)
{
    double sec = (double)dt / (double)FS_USEC;
    e->gpu_j += e->gpu_w * sec;
    e->dc_j += e->dc_w * sec;
    e->wall_j += e->wall_w * sec;
    for (int t = 0; t < e->s->sc->cat->n; t++)
        e->bucket_gpu_j_type[t] += e->gpu_w_type[t] * sec;
}

void energy_job(struct energy *e, const struct job *j, fs_time now)
{
    for (int32_t k = 0; k < j->nnodes; k++)
        energy_node(e, j->nnodes > 1 ? j->gang[k] : j->node, now);
}

void energy_new_bucket(struct energy *e)
{
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        e->bucket_gpu_j_type[t] = 0;
    e->bucket_psu_max = 0;
    for (int32_t n = 0; n < e->nnodes; n++)
        if (e->psu[n].load > e->bucket_psu_max)
            e->bucket_psu_max = e->psu[n].load;
}

void energy_finish(struct energy *e, fs_time end)
{
    struct psu_fleet *f = &e->fleet;
    *f = (struct psu_fleet){0};
    for (int32_t n = 0; n < e->nnodes; n++) {
        const struct psu_stat *p = &e->psu[n];
        settle_psu(&e->psu[n], end);
        f->peak = fmax(f->peak, p->peak);
        f->p99 = fmax(f->p99, energy_psu_p99(e, n));
        f->above80_s += fs_to_seconds(p->above80_us);
        f->above100_s += fs_to_seconds(p->above100_us);
        f->overloads += p->overloads;
    }
}

double energy_psu_p99(const struct energy *e, int32_t n)
{
    const struct psu_stat *p = &e->psu[n];
    int64_t total = 0, run = 0;
    for (int b = 0; b < PSU_BINS; b++)
        total += p->hist_us[b];
    for (int b = 0; b < PSU_BINS; b++) {
        run += p->hist_us[b];
        if (total > 0 && (double)run >= 0.99 * (double)total)
            return (b + 1) / 100.0;
    }
    return p->peak;
}
