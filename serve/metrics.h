/* metrics.h - what fleetsim serve counts, written in the Prometheus text
 * exposition format (version 0.0.4) for /metrics:
 *
 *   fleetsim_serve_requests_total{path,code}      HTTP requests answered
 *   fleetsim_serve_errors_total{path}             of those, answered 4xx/5xx
 *   fleetsim_serve_call_seconds{verb}             histogram: extender calls,
 *                                                 body read to reply built
 *   fleetsim_serve_decisions_total{policy,outcome} extender calls by outcome
 *   fleetsim_serve_nodes, fleetsim_serve_pods     gauges: nodes known, pods decided
 *   fleetsim_serve_rebuilds_total                 views rebuilt for new nodes
 *
 * Single-threaded, like the extender it sits next to.
 */
#ifndef FS_SERVE_METRICS_H
#define FS_SERVE_METRICS_H

#include <stdio.h>

#include "extender.h"

enum serve_path { PATH_FILTER, PATH_PRIORITIZE, PATH_HEALTHZ, PATH_METRICS, PATH_OTHER, PATH_COUNT };
enum serve_code { CODE_200, CODE_400, CODE_404, CODE_405, CODE_413, CODE_COUNT };

/* Upper bounds of the latency buckets, seconds (+Inf implied). */
#define METRICS_NBUCKETS 14

struct serve_metrics {
    unsigned long long requests[PATH_COUNT][CODE_COUNT];
    unsigned long long bucket[EXT_NVERBS][METRICS_NBUCKETS + 1]; /* last: +Inf */
    double sum[EXT_NVERBS];
    unsigned long long count[EXT_NVERBS];
};

/* Count one request answered with HTTP status (one of enum serve_code's). */
void metrics_request(struct serve_metrics *m, enum serve_path path, int status);
/* Count one extender call that took seconds. */
void metrics_call(struct serve_metrics *m, enum extender_verb verb, double seconds);
/* Write everything, with the extender's counts, to f. */
void metrics_write(const struct serve_metrics *m, const struct extender *x, FILE *f);

#endif
