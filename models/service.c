/* service.c - LLM inference services: demand curves, replica sizing and
 * throughput, the autoscaler, SLO accounting and M/M/c latency.  Every
 * rule and constant is stated, with its source, in service.h; the specs
 * are read in service_load.c. */
#include "service.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "memory.h"

#define SVC_DIURNAL_SCAN 4096    /* steps service_demand_next looks ahead */
/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - (a % b != 0 && a < 0);
}

/* a + b, or FS_TIME_MAX when that would overflow. */
static fs_time add_sat(fs_time a, fs_time b)
{
    fs_time r;
    return __builtin_add_overflow(a, b, &r) ? FS_TIME_MAX : r;
}

static double diurnal_step(const struct service_demand *d, int64_t k)
{
    double mid = (double)k * (double)d->step + 0.5 * (double)d->step;
    double phase = fmod(mid - (double)d->peak, (double)d->period) / (double)d->period;
    return d->mean_tokens_s * (1 + d->amplitude * cos(2 * M_PI * phase));
}

static double trace_at(const struct service_demand *d, fs_time t)
{
    fs_time period = (fs_time)d->n * d->bin;
    if (t < d->start)
        return 0;
    fs_time off = t - d->start;
    if (off >= period && !d->repeat)
        return 0;
    return d->rate[(off % period) / d->bin];
}

double service_demand(const struct service_spec *sp, fs_time t)
{
    const struct service_demand *d = &sp->demand;
    return d->kind == SERVICE_TRACE ? trace_at(d, t) : diurnal_step(d, floor_div(t, d->step));
}

static fs_time trace_next(const struct service_demand *d, fs_time t)
{
    fs_time period = (fs_time)d->n * d->bin;
    if (t < d->start) { /* demand 0 until the first non-zero bin */
        size_t j = d->rate[0] != 0 ? 0 : d->run_end[0];
        return j < d->n ? d->start + (fs_time)j * d->bin : FS_TIME_MAX;
    }
    fs_time off = t - d->start;
    if (off >= period && !d->repeat)
        return FS_TIME_MAX;
    fs_time base = d->start + off / period * period;
    size_t i = (size_t)(off % period / d->bin), j = d->run_end[i];
    if (j < d->n)
        return base + (fs_time)j * d->bin;
    /* Constant to the end of this period. */
    if (!d->repeat)
        return d->rate[i] != 0 ? base + period : FS_TIME_MAX;
    if (d->run_end[0] == d->n)
        return FS_TIME_MAX; /* every bin the same */
    fs_time wrap = add_sat(base, period);
    return d->rate[0] != d->rate[i] ? wrap : add_sat(wrap, (fs_time)d->run_end[0] * d->bin);
}

static fs_time diurnal_next(const struct service_demand *d, fs_time t)
{
    if (d->amplitude == 0 || d->mean_tokens_s == 0)
        return FS_TIME_MAX;
    int64_t k = floor_div(t, d->step);
    double v = diurnal_step(d, k);
    int j = 1;
    while (j < SVC_DIURNAL_SCAN && diurnal_step(d, k + j) == v)
        j++;
    fs_time r;
    if (__builtin_mul_overflow(k + j, d->step, &r))
        return FS_TIME_MAX;
    return r;
}

fs_time service_demand_next(const struct service_spec *sp, fs_time t)
{
    const struct service_demand *d = &sp->demand;
    return d->kind == SERVICE_TRACE ? trace_next(d, t) : diurnal_next(d, t);
}

/* ---- capacity ----------------------------------------------------------- */

bool service_allows(const struct service_spec *sp, int type)
{
    if (type < 0 || type >= GPU_MAX_TYPES)
        return false;
    return sp->allowed == 0 || (sp->allowed >> type & 1);
}

int service_replica_gpus(const struct service_spec *sp, const struct gpu_type *t)
{
    for (int g = 1; g <= SERVICE_MAX_GPUS; g *= 2)
        if (mem_llm_gb(sp->params, MEM_INFER, SERVICE_BYTES_PER_PARAM, g) <= t->memory_gb)
            return g;
    return 0;
}

struct llm_operating service_replica(const struct llm_model *lm, const struct service_spec *sp,
                                     const struct gpu_type *t, int gpus)
{
    return llm_operate(lm, t, sp->params, gpus, sp->prompt_tokens, sp->output_tokens, sp->tpot_target_s);
}

/* ---- autoscaler --------------------------------------------------------- */

int service_desired_replicas(const struct service_spec *sp, double demand_tokens_s,
                             double replica_tokens_s)
{
    const struct service_autoscaler *as = &sp->as;
    if (!(demand_tokens_s > 0))
        return as->min_replicas;
    if (!(replica_tokens_s > 0))
        return as->max_replicas;
    double x = demand_tokens_s / (replica_tokens_s * as->target_util);
    if (x >= as->max_replicas)
        return as->max_replicas;
    int want = (int)ceil(x - 1e-9);
    return want < as->min_replicas ? as->min_replicas : want;
}

static int decide(struct service_state *st, fs_time now, int to)
{
    if (to > st->wanted)
        st->scale_ups++;
    else if (to < st->wanted)
        st->scale_downs++;
    st->pending = 0;
    st->last_change = now;
    return st->wanted = to;
}

int service_autoscale(const struct service_spec *sp, struct service_state *st, fs_time now,
                      double demand_tokens_s, double replica_tokens_s, int replicas_now)
{
    const struct service_autoscaler *as = &sp->as;
    st->wanted = replicas_now;
    if (replicas_now < as->min_replicas)
        return decide(st, now, as->min_replicas);
    if (replicas_now > as->max_replicas)
        return decide(st, now, as->max_replicas);
    int desired = service_desired_replicas(sp, demand_tokens_s, replica_tokens_s);
    int dir = desired > replicas_now ? 1 : desired < replicas_now ? -1 : 0;
    if (dir == 0) {
        st->pending = 0;
        return replicas_now;
    }
    if (dir != st->pending) {
        st->pending = dir;
        st->pending_since = now;
        st->pending_to = desired;
    } else if (dir > 0 ? desired < st->pending_to : desired > st->pending_to) {
        st->pending_to = desired;
    }
    fs_time delay = dir > 0 ? as->up_delay : as->down_delay;
    if (now - st->pending_since >= delay)
        return decide(st, now, st->pending_to);
    return replicas_now;
}

/* ---- SLO accounting and latency ----------------------------------------- */

void service_account(struct service_state *st, double dt_s, double demand_tokens_s,
                     double served_capacity_tokens_s)
{
    if (!(dt_s > 0))
        return;
    double demand = demand_tokens_s > 0 ? demand_tokens_s : 0;
    double cap = served_capacity_tokens_s > 0 ? served_capacity_tokens_s : 0;
    st->seconds += dt_s;
    st->demand_tokens += demand * dt_s;
    st->served_tokens += (demand < cap ? demand : cap) * dt_s;
    if (demand > cap)
        st->short_s += dt_s;
}

double service_attainment(const struct service_state *st)
{
    return st->demand_tokens > 0 ? st->served_tokens / st->demand_tokens : 1.0;
}

/* The Erlang C probability of waiting, for a stable queue (lambda < c mu). */
static double erlang_c(double lambda, double mu, int servers)
{
    double a = lambda / mu, b = 1;
    for (int k = 1; k <= servers && b > 0; k++)
        b = a * b / (k + a * b); /* once B underflows to 0 it stays 0 */
    return servers * b / (servers - a * (1 - b));
}

/* NAN, INFINITY, or 0 when the queue is stable and the inputs good. */
static double unstable(double lambda, double mu, int servers)
{
    if (!(lambda >= 0))
        return NAN;
    if (servers < 1 || !(mu > 0) || lambda >= servers * mu)
        return INFINITY;
    return 0;
}

double service_queue_wait_s(double lambda_req_s, double mu_req_s_per_server, int servers)
{
    double bad = unstable(lambda_req_s, mu_req_s_per_server, servers);
    if (bad != 0)
        return bad;
    return erlang_c(lambda_req_s, mu_req_s_per_server, servers) /
           (servers * mu_req_s_per_server - lambda_req_s);
}

double service_queue_wait_quantile_s(double lambda_req_s, double mu_req_s_per_server, int servers,
                                     double p)
{
    double bad = unstable(lambda_req_s, mu_req_s_per_server, servers);
    if (bad != 0)
        return bad;
    double c = erlang_c(lambda_req_s, mu_req_s_per_server, servers);
    return c <= 1 - p ? 0 : log(c / (1 - p)) / (servers * mu_req_s_per_server - lambda_req_s);
}

double service_latency_s(double lambda_req_s, double mu_req_s_per_server, int servers)
{
    return 1 / mu_req_s_per_server + service_queue_wait_s(lambda_req_s, mu_req_s_per_server, servers);
}

/* lambda and mu of the pooled slots (service_response_s). */
static void pooled(const struct service_spec *sp, double demand, double capacity, int slots,
                   double *lambda, double *mu)
{
    *lambda = demand / sp->output_tokens;
    *mu = slots > 0 ? capacity / (slots * sp->output_tokens) : 0;
}

double service_response_s(const struct service_spec *sp, double demand_tokens_s,
                          double capacity_tokens_s, int slots)
{
    double lambda, mu;
    pooled(sp, demand_tokens_s, capacity_tokens_s, slots, &lambda, &mu);
    return slots < 1 || !(mu > 0) ? INFINITY : service_latency_s(lambda, mu, slots);
}

double service_wait_s(const struct service_spec *sp, double demand_tokens_s,
                      double capacity_tokens_s, int slots)
{
    double lambda, mu;
    pooled(sp, demand_tokens_s, capacity_tokens_s, slots, &lambda, &mu);
    return slots < 1 || !(mu > 0) ? INFINITY : service_queue_wait_s(lambda, mu, slots);
}

double service_ttft_s(const struct service_spec *sp, double demand_tokens_s,
                      double capacity_tokens_s, int slots, double ttft0_s)
{
    double lambda, mu;
    pooled(sp, demand_tokens_s, capacity_tokens_s, slots, &lambda, &mu);
    if (slots < 1 || !(mu > 0))
        return INFINITY;
    return service_queue_wait_quantile_s(lambda, mu, slots, sp->ttft_percentile / 100) + ttft0_s;
}

bool service_latency_met(const struct service_spec *sp, double demand_tokens_s,
                         double capacity_tokens_s, int slots, double ttft0_s)
{
    if (slots < 1 || !(demand_tokens_s < capacity_tokens_s))
        return false; /* nothing ready, or an unstable queue */
    if (sp->ttft_target_s > 0 &&
        !(service_ttft_s(sp, demand_tokens_s, capacity_tokens_s, slots, ttft0_s) <= sp->ttft_target_s))
        return false;
    if (sp->tpot_target_s > 0 && !(slots / capacity_tokens_s <= sp->tpot_target_s * (1 + 1e-9)))
        return false;
    return !(sp->slo_latency_s > 0) ||
           service_response_s(sp, demand_tokens_s, capacity_tokens_s, slots) <= sp->slo_latency_s;
}

void service_objective_str(char *buf, size_t size, const struct service_spec *sp)
{
    size_t n = 0;
    buf[0] = 0;
    if (sp->ttft_target_s > 0)
        n += (size_t)snprintf(buf + n, size - n, "p%g TTFT <= %g s", sp->ttft_percentile, sp->ttft_target_s);
    if (sp->tpot_target_s > 0 && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%sTPOT <= %g s", n ? ", " : "", sp->tpot_target_s);
    if (sp->slo_latency_s > 0 && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%smean latency <= %g s", n ? ", " : "", sp->slo_latency_s);
    if (n == 0)
        snprintf(buf, size, "stable queue");
}
