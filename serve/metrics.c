/* metrics.c - Prometheus text for fleetsim serve (see metrics.h). */
#include "metrics.h"

static const double bounds[METRICS_NBUCKETS] = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005,
    0.01,    0.025,  0.05,    0.1,    0.25,  0.5,   1.0,
};
static const char *const path_names[PATH_COUNT] = {"/filter", "/prioritize", "/healthz", "/metrics",
                                                   "other"};
static const int codes[CODE_COUNT] = {200, 400, 404, 405, 413};
static const char *const verb_names[EXT_NVERBS] = {"filter", "prioritize"};
static const char *const outcome_names[EXT_NOUTCOMES] = {"placed", "kept", "no_room",
                                                         "bad_request"};

void metrics_request(struct serve_metrics *m, enum serve_path path, int status)
{
    for (int c = 0; c < CODE_COUNT; c++)
        if (codes[c] == status)
            m->requests[path][c]++;
}

void metrics_call(struct serve_metrics *m, enum extender_verb verb, double seconds)
{
    int b = 0;
    while (b < METRICS_NBUCKETS && seconds > bounds[b])
        b++;
    m->bucket[verb][b]++;
    m->sum[verb] += seconds;
    m->count[verb]++;
}

void metrics_write(const struct serve_metrics *m, const struct extender *x, FILE *f)
{
    const struct extender_stats *st = extender_stats(x);
    fprintf(f, "# HELP fleetsim_serve_requests_total HTTP requests answered, by path and status code.\n"
               "# TYPE fleetsim_serve_requests_total counter\n");
    for (int p = 0; p < PATH_COUNT; p++)
        for (int c = 0; c < CODE_COUNT; c++)
            if (m->requests[p][c] || (p <= PATH_PRIORITIZE && c == CODE_200))
                fprintf(f, "fleetsim_serve_requests_total{path=\"%s\",code=\"%d\"} %llu\n",
                        path_names[p], codes[c], m->requests[p][c]);
    fprintf(f, "# HELP fleetsim_serve_errors_total HTTP requests answered with an error status.\n"
               "# TYPE fleetsim_serve_errors_total counter\n");
    for (int p = 0; p < PATH_COUNT; p++) {
        unsigned long long n = 0;
        for (int c = CODE_400; c < CODE_COUNT; c++)
            n += m->requests[p][c];
        fprintf(f, "fleetsim_serve_errors_total{path=\"%s\"} %llu\n", path_names[p], n);
    }
    fprintf(f, "# HELP fleetsim_serve_call_seconds Extender calls: from the whole body read to the reply built.\n"
               "# TYPE fleetsim_serve_call_seconds histogram\n");
    for (int v = 0; v < EXT_NVERBS; v++) {
        unsigned long long cum = 0;
        for (int b = 0; b <= METRICS_NBUCKETS; b++) {
            cum += m->bucket[v][b];
            if (b < METRICS_NBUCKETS)
                fprintf(f, "fleetsim_serve_call_seconds_bucket{verb=\"%s\",le=\"%g\"} %llu\n",
                        verb_names[v], bounds[b], cum);
            else
                fprintf(f, "fleetsim_serve_call_seconds_bucket{verb=\"%s\",le=\"+Inf\"} %llu\n",
                        verb_names[v], cum);
        }
        fprintf(f, "fleetsim_serve_call_seconds_sum{verb=\"%s\"} %.9f\n", verb_names[v], m->sum[v]);
        fprintf(f, "fleetsim_serve_call_seconds_count{verb=\"%s\"} %llu\n", verb_names[v], m->count[v]);
    }
    fprintf(f, "# HELP fleetsim_serve_decisions_total Extender calls by policy and outcome.\n"
               "# TYPE fleetsim_serve_decisions_total counter\n");
    for (int o = 0; o < EXT_NOUTCOMES; o++)
        fprintf(f, "fleetsim_serve_decisions_total{policy=\"%s\",outcome=\"%s\"} %llu\n",
                extender_policy(x), outcome_names[o], (unsigned long long)st->outcomes[o]);
    fprintf(f, "# HELP fleetsim_serve_nodes Nodes the extender knows.\n"
               "# TYPE fleetsim_serve_nodes gauge\n"
               "fleetsim_serve_nodes %lld\n"
               "# HELP fleetsim_serve_pods Pods with a decision.\n"
               "# TYPE fleetsim_serve_pods gauge\n"
               "fleetsim_serve_pods %lld\n"
               "# HELP fleetsim_serve_rebuilds_total Times newly learnt nodes rebuilt the cluster view.\n"
               "# TYPE fleetsim_serve_rebuilds_total counter\n"
               "fleetsim_serve_rebuilds_total %llu\n",
            (long long)st->nodes, (long long)st->pods, (unsigned long long)st->rebuilds);
}
