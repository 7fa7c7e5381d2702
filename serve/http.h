/* http.h - fleetsim serve's HTTP front: the scheduler-extender endpoints
 * over libmicrohttpd, one request at a time on one thread (kube-scheduler
 * calls an extender sequentially, and the extender is not thread-safe).
 *
 *   POST .../filter       extender filter (extender.h)
 *   POST .../prioritize   extender prioritize
 *   GET  /healthz         "ok"
 *   GET  /metrics         Prometheus text (metrics.h)
 *
 * Safe by default: a body over max_body bytes is answered 400 without
 * being parsed, a connection idle for timeout_s seconds is closed, at most
 * max_conns connections are open at once, and every socket sets
 * TCP_NODELAY (Nagle's delay plus a delayed ACK would cost ~40 ms a call
 * on a keep-alive connection).
 */
#ifndef FS_SERVE_HTTP_H
#define FS_SERVE_HTTP_H

#include <stdio.h>

#include "extender.h"

struct serve_options {
    const char *host;      /* address to listen on ("127.0.0.1") */
    const char *port;      /* "0": any free port */
    size_t max_body;       /* bytes */
    unsigned timeout_s;    /* idle connection timeout */
    unsigned max_conns;
    FILE *log;             /* NULL, or one CSV line per extender call */
    /* Called once listening, with the address and the port bound. */
    void (*ready)(const char *host, int port, void *ctx);
    void *ready_ctx;
};

/* The header of the call log: call,verb,pod,outcome,status,node,micros. */
#define SERVE_LOG_HEADER "call,verb,pod,outcome,status,node,micros"

/* Serve x until SIGINT or SIGTERM (fs_signals_install must be in place),
 * then stop accepting, finish the request under way and return.
 * RET: 0; FS_EUNAVAILABLE when the address cannot be resolved or bound
 * (in use, not ours); FS_EINTERNAL when libmicrohttpd cannot start. */
int serve_run(struct extender *x, const struct serve_options *o, struct fs_err *err);

#endif
