/* cmd_serve.c - `fleetsim serve`: the scheduling core as a Kubernetes
 * scheduler extender (serve/extender.h) over HTTP (serve/http.h); this file
 * reads the options and serve/serve.c runs it. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../serve/serve.h"
#include "cli.h"

#define SERVE_DEFAULT_LISTEN "127.0.0.1:8888"
#define SERVE_DEFAULT_MAX_BODY (64u << 20)

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim serve [--listen HOST:PORT] [--policy NAME] [--workload FILE]\n"
               "                      [--format NAME] [--catalog FILE] [--seed N] [--log FILE]\n"
               "                      [--max-body BYTES] [--timeout SECONDS] [--max-conns N]\n\n"
               "The scheduling core as a Kubernetes scheduler extender (protocol v1): POST\n"
               "/filter and /prioritize are answered by the policy `fleetsim run` and `fleetsim\n"
               "fill` use, on a cluster view learnt from the node objects the requests carry;\n"
               "GET /healthz and GET /metrics (Prometheus text).  Runs until SIGINT or SIGTERM,\n"
               "then finishes the request under way and exits 0.  See docs/serve.md.\n\n"
               "  -l, --listen ADDR    HOST:PORT to listen on (default " SERVE_DEFAULT_LISTEN ");\n"
               "                       :PORT is loopback too; 0.0.0.0:PORT or [::]:PORT listens\n"
               "                       on every interface; port 0 takes any free port\n"
               "  -p, --policy NAME    placement policy (default fgd); any of:\n"
               "                      ");
    int col = 22;
    for (size_t i = 0; sched_policies[i]; i++) {
        if (sched_policies[i]->rounds)
            continue; /* time-sharing needs a run over time */
        int len = (int)strlen(sched_policies[i]->name) + 1;
        if (col + len > 79) {
            fprintf(f, "\n                      ");
            col = 22;
        }
        fprintf(f, " %s", sched_policies[i]->name);
        col += len;
    }
    fprintf(f, "\n"
               "  -w, --workload FILE  the pods the policy prepares for (fgd: its typical\n"
               "                       pods); without it such policies see no workload\n"
               "  -f, --format NAME    the workload's trace format (default openb)\n"
               "      --catalog FILE   GPU catalog (default: $FLEETSIM_DATA/gpus.json or the\n"
               "                       shipped one)\n"
               "  -s, --seed N         seed for policies that draw at random (default 42)\n"
               "      --log FILE       one CSV line per extender call:\n"
               "                       " SERVE_LOG_HEADER "\n"
               "      --max-body BYTES largest request body (default %u); larger: 400\n"
               "      --timeout SECONDS close connections idle this long (default 30)\n"
               "      --max-conns N    connections open at once (default 64)\n"
               "  -q, --quiet          print nothing but errors\n"
               "  -h, --help           this help\n\n"
               "Exit status: 0 stopped by SIGINT/SIGTERM, 64 usage, 65 bad workload or catalog,\n"
               "66 cannot open them, 69 cannot listen on the address (in use, not ours).\n",
            SERVE_DEFAULT_MAX_BODY);
    return code;
}

/* "HOST:PORT", "[V6]:PORT" or ":PORT" into host and port (buf holds them). */
static int split_listen(const char *arg, char *buf, size_t size, const char **host, const char **port)
{
    if (strlen(arg) >= size)
        return -1;
    strcpy(buf, arg);
    char *colon = strrchr(buf, ':');
    if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
        strlen(colon + 1) > 5 || atoi(colon + 1) > 65535)
        return -1;
    *colon = '\0';
    *port = colon + 1;
    *host = buf;
    if (buf[0] == '[') {
        size_t n = strlen(buf);
        if (n < 3 || buf[n - 1] != ']')
            return -1;
        buf[n - 1] = '\0';
        *host = buf + 1;
    }
    if (!**host)
        *host = "127.0.0.1";
    return 0;
}

static int parse_count(const char *opt, const char *arg, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end || v < lo || v > hi) {
        fprintf(stderr, "fleetsim: serve: %s: \"%s\" is not a whole number in %lu..%lu\n", opt, arg,
                lo, hi);
        return FS_EUSAGE;
    }
    *out = v;
    return 0;
}

struct serve_args {
    const char *listen, *policy, *workload, *format, *catalog, *log;
    unsigned long seed, max_body, timeout, max_conns;
    bool quiet;
};

const struct option serve_opts[] = {
    {"listen", required_argument, NULL, 'l'},  {"policy", required_argument, NULL, 'p'},
    {"workload", required_argument, NULL, 'w'}, {"format", required_argument, NULL, 'f'},
    {"catalog", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'},
    {"log", required_argument, NULL, 'L'},     {"max-body", required_argument, NULL, 'B'},
    {"timeout", required_argument, NULL, 'T'}, {"max-conns", required_argument, NULL, 'C'},
    {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, struct serve_args *a)
{
    const struct option *opts = serve_opts;
    *a = (struct serve_args){.listen = SERVE_DEFAULT_LISTEN, .policy = "fgd", .format = "openb",
                             .seed = 42, .max_body = SERVE_DEFAULT_MAX_BODY, .timeout = 30,
                             .max_conns = 64};
    int c, rc = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "l:p:w:f:s:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'l': a->listen = optarg; break;
        case 'p': a->policy = optarg; break;
        case 'w': a->workload = optarg; break;
        case 'f': a->format = optarg; break;
        case 'c': a->catalog = optarg; break;
        case 'L': a->log = optarg; break;
        case 's': rc = parse_count("--seed", optarg, 0, ULONG_MAX, &a->seed); break;
        case 'B': rc = parse_count("--max-body", optarg, 1, 1ul << 30, &a->max_body); break;
        case 'T': rc = parse_count("--timeout", optarg, 1, 3600, &a->timeout); break;
        case 'C': rc = parse_count("--max-conns", optarg, 1, 10000, &a->max_conns); break;
        case 'q': a->quiet = true; break;
        case 'h': return 1;
        default: return FS_EUSAGE;
        }
    }
    if (!rc && optind < argc) {
        fprintf(stderr, "fleetsim: serve: unexpected argument \"%s\"\n", argv[optind]);
        rc = FS_EUSAGE;
    }
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    struct serve_args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc > 0 ? usage(0) : usage(64);
    char hostport[512];
    struct serve_options so = {.max_body = a.max_body, .timeout_s = (unsigned)a.timeout,
                               .max_conns = (unsigned)a.max_conns};
    if (split_listen(a.listen, hostport, sizeof hostport, &so.host, &so.port)) {
        fprintf(stderr, "fleetsim: serve: --listen: \"%s\" is not HOST:PORT\n", a.listen);
        return 64;
    }
    const struct sched_policy *p = sched_policy_find(a.policy);
    const struct trace_reader *rd = trace_reader_find(a.format);
    if (!p || !rd) {
        fprintf(stderr, "fleetsim: serve: unknown %s \"%s\"\n", p ? "format" : "policy",
                p ? a.format : a.policy);
        return 64;
    }
    if (p->rounds) {
        fprintf(stderr, "fleetsim: serve: policy \"%s\" time-shares GPUs in rounds; it does not "
                "place one pod at a time (use it with fleetsim run)\n", a.policy);
        return 64;
    }
    struct fs_err err = {0};
    struct serve_extender_spec spec = {.catalog = a.catalog ? a.catalog : cli_default_catalog(), .workload = a.workload,
                                       .log = a.log, .policy = p, .format = rd, .seed = a.seed, .quiet = a.quiet};
    rc = serve_extender(&spec, &so, &err);
    return rc ? cli_fail(&err) : 0;
}
