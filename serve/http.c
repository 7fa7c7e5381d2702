/* http.c - the extender over HTTP with libmicrohttpd (see http.h). */
#include "http.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../base/signals.h"
#include "metrics.h"

struct server {
    struct extender *x;
    const struct serve_options *o;
    struct serve_metrics m;
    unsigned long long calls;
};

/* One request's body as it comes in. */
struct body {
    char *buf;
    size_t len, cap;
    bool too_big;
    struct timespec t0;
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Does the URL path end in "/" verb (a urlPrefix may carry a path)? */
static bool ends_with(const char *url, const char *verb)
{
    size_t n = strlen(url), k = strlen(verb);
    return n > k && url[n - k - 1] == '/' && strcmp(url + n - k, verb) == 0;
}

static enum serve_path route(const char *url)
{
    if (ends_with(url, "filter"))
        return PATH_FILTER;
    if (ends_with(url, "prioritize"))
        return PATH_PRIORITIZE;
    if (strcmp(url, "/healthz") == 0)
        return PATH_HEALTHZ;
    if (strcmp(url, "/metrics") == 0)
        return PATH_METRICS;
    return PATH_OTHER;
}

/* Queue text (malloc'd; the response frees it) with status. */
static enum MHD_Result reply(struct server *sv, struct MHD_Connection *conn, enum serve_path path,
                             int status, const char *type, char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    metrics_request(&sv->m, path, status);
    return ok;
}

/* {"Error": msg} */
static char *error_json(const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "Error", msg);
    char *s = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    return s;
}

static enum MHD_Result extender_call(struct server *sv, struct MHD_Connection *conn,
                                     enum serve_path path, struct body *b)
{
    if (b->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "the body is over %zu bytes (fleetsim serve --max-body)",
                 sv->o->max_body);
        return reply(sv, conn, path, 400, "application/json", error_json(msg));
    }
    enum extender_verb verb = path == PATH_FILTER ? EXT_FILTER : EXT_PRIORITIZE;
    enum extender_outcome outcome;
    char *text;
    int status = extender_handle(sv->x, verb, b->buf ? b->buf : "", b->len, &text, &outcome);
    double s = since(&b->t0);
    metrics_call(&sv->m, verb, s);
    if (sv->o->log) {
        static const char *const outcomes[EXT_NOUTCOMES] = {"placed", "kept", "no_room",
                                                            "bad_request"};
        fprintf(sv->o->log, "%llu,%s,%s,%s,%d,%s,%.0f\n", ++sv->calls,
                verb == EXT_FILTER ? "filter" : "prioritize", extender_last_pod(sv->x),
                outcomes[outcome], status, extender_last_node(sv->x), s * 1e6);
        fflush(sv->o->log);
    }
    return reply(sv, conn, path, status, "application/json", text);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *data_size, void **con_cls)
{
    (void)version;
    struct server *sv = cls;
    struct body *b = *con_cls;
    if (!b) {
        b = xcalloc(1, sizeof *b);
        clock_gettime(CLOCK_MONOTONIC, &b->t0);
        *con_cls = b;
        return MHD_YES;
    }
    if (*data_size) {
        if (b->len + *data_size > sv->o->max_body) {
            b->too_big = true;
        } else if (!b->too_big) {
            xgrow(&b->buf, &b->cap, b->len + *data_size + 1, 1);
            memcpy(b->buf + b->len, data, *data_size);
            b->len += *data_size;
            b->buf[b->len] = '\0';
        }
        *data_size = 0;
        return MHD_YES;
    }
    enum serve_path path = route(url);
    bool post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    switch (path) {
    case PATH_FILTER:
    case PATH_PRIORITIZE:
        if (post)
            return extender_call(sv, conn, path, b);
        break;
    case PATH_HEALTHZ:
        if (get)
            return reply(sv, conn, path, 200, "text/plain", xstrdup("ok\n"));
        break;
    case PATH_METRICS:
        if (get) {
            char *text = NULL;
            size_t size = 0;
            FILE *f = open_memstream(&text, &size);
            if (!f)
                return MHD_NO;
            metrics_write(&sv->m, sv->x, f);
            fclose(f);
            return reply(sv, conn, path, 200, "text/plain; version=0.0.4", text);
        }
        break;
    default:
        return reply(sv, conn, path, 404, "text/plain",
                     xstrdup("not found: POST /filter, POST /prioritize, GET /healthz, GET /metrics\n"));
    }
    return reply(sv, conn, path, 405, "text/plain", xstrdup("method not allowed\n"));
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)conn, (void)why;
    struct body *b = *con_cls;
    if (b)
        free(b->buf);
    free(b);
    *con_cls = NULL;
}

/* Every accepted socket: no Nagle delay (http.h). */
static void connected(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                      enum MHD_ConnectionNotificationCode code)
{
    (void)cls, (void)socket_ctx;
    if (code != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    int one = 1;
    if (ci)
        setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* A listening socket on host:port.  RET: the socket, or -1 with err set. */
static int listen_on(const struct serve_options *o, int *bound, struct fs_err *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *ai = NULL;
    int rc = getaddrinfo(o->host, o->port, &hints, &ai);
    if (rc) {
        fs_fail(err, FS_EUNAVAILABLE, "serve: %s:%s: %s", o->host, o->port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, why = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        int one = 1;
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 64)) {
            why = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        fs_fail(err, FS_EUNAVAILABLE, "serve: cannot listen on %s:%s: %s", o->host, o->port,
                strerror(why));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    *bound = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
        *bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

int serve_run(struct extender *x, const struct serve_options *o, struct fs_err *err)
{
    struct server sv = {.x = x, .o = o};
    int port, fd = listen_on(o, &port, err);
    if (fd < 0)
        return err->code;
    if (o->log) {
        fprintf(o->log, SERVE_LOG_HEADER "\n");
        fflush(o->log);
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL, handle, &sv,
        MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
        MHD_OPTION_CONNECTION_LIMIT, o->max_conns,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, connected, NULL,
        MHD_OPTION_END);
    if (!d) {
        close(fd);
        return fs_fail(err, FS_EINTERNAL, "serve: libmicrohttpd could not start");
    }
    if (o->ready)
        o->ready(o->host, port, o->ready_ctx);
    while (!fs_interrupted()) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    /* Stop accepting, then let the request under way finish. */
    MHD_quiesce_daemon(d);
    MHD_stop_daemon(d);
    close(fd);
    return 0;
}
