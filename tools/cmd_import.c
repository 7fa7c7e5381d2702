/* cmd_import.c - `fleetsim import FORMAT IN -o OUT`: convert a public trace
 * to the native job CSV, or an Azure LLM request trace to a demand curve. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/signals.h"
#include "../reports/output.h"
#include "../io/job_types.h"
#include "../io/readers.h"
#include "cli.h"

#define AZURE_FORMAT "azure-llm"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim import FORMAT IN -o OUT [--reference-gpu NAME] [--team NAME]\n"
               "                       [--bin-s S] [--job-types FILE] [--gpu-map FILE]\n"
               "                       [--keep-cpu-jobs] [--catalog FILE] [--quiet]\n\n"
               "Convert the trace IN to fleetsim's native job CSV (scenarios/README.md), or an\n"
               "Azure LLM request trace to a demand curve CSV (time_s,prompt_tokens,output_tokens).\n"
               "OUT is written whole or not at all.  A summary (rows, jobs, dropped rows by\n"
               "reason) goes to stderr.\n\nFormats:\n");
    for (size_t i = 0; trace_readers[i]; i++)
        fprintf(f, "  %-10s %s\n", trace_readers[i]->name, trace_readers[i]->summary);
    fprintf(f, "  %-10s Azure LLM inference requests (TIMESTAMP,ContextTokens,GeneratedTokens)\n\n"
               "  -o, --output FILE       the file to write (required)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "  -r, --reference-gpu NAME\n"
               "                          catalog type the work is stated on\n"
               "                          (default:",
            AZURE_FORMAT);
    for (size_t i = 0, k = 0; trace_readers[i]; i++)
        if (trace_readers[i]->default_ref)
            fprintf(f, "%s %s %s", k++ ? "," : "", trace_readers[i]->name,
                    trace_readers[i]->default_ref);
    fprintf(f, ")\n"
               "  -t, --team NAME         team for rows that name none\n"
               "  -J, --job-types FILE    gavel: Gavel's simulation_throughputs.json, whose\n"
               "                          steps per second (v100, p100, k80 as v100m16, p100,\n"
               "                          k80) turn the trace's steps into GPU-seconds\n"
               "  -b, --bin-s S           demand-curve bin width, seconds (%s; default 60)\n"
               "  -m, --gpu-map FILE      sacct: CSV slurm_type,catalog_type mapping Slurm's GPU\n"
               "                          types (gres/gpu:TYPE) to catalog types\n"
               "      --keep-cpu-jobs     sacct: keep jobs without GPUs (default: dropped)\n"
               "      --catalog FILE      GPU catalog (default: $FLEETSIM_DATA/gpus.json or the\n"
               "                          shipped one)\n"
               "  -q, --quiet             no summary\n"
               "  -h, --help              this help\n", AZURE_FORMAT);
    return code;
}

struct import_opts {
    const char *format, *in, *out, *ref, *team, *catalog, *job_types, *gpu_map;
    double bin_s;
    bool has_bin, quiet, keep_cpu;
};

/* ---- output ------------------------------------------------------------- */

/* Close and rename into place, or on error remove the temporary file. */
static int finish_out(struct outfile *o, int rc, struct fs_err *err)
{
    if (rc == 0)
        rc = out_close(o, err);
    if (rc == 0)
        rc = out_commit(o, err);
    out_discard(o);
    return rc;
}

static int write_demand(const struct import_opts *o, const struct demand_curve *d,
                        struct fs_err *err)
{
    struct outfile out = {0};
    int rc = out_open_path(&out, o->out, err);
    if (rc == 0)
        demand_curve_write(out.f, d);
    return finish_out(&out, rc, err);
}

/* ---- the two kinds of import -------------------------------------------- */

static void print_drops(const struct reader_stats *st)
{
    fprintf(stderr, "%lld dropped", st->dropped);
    for (int i = 0; i < st->nreasons; i++)
        fprintf(stderr, "%s %lld %s (first on line %lld)", i ? ";" : ":", st->reasons[i].count,
                st->reasons[i].why, st->reasons[i].first_line);
}

static int import_jobs(const struct import_opts *o, const struct trace_reader *rd,
                       struct fs_err *err)
{
    struct gpu_catalog *cat = NULL;
    struct workload w;
    struct reader_stats st = {0};
    struct outfile out = {0};
    workload_init(&w);
    int rc = gpu_catalog_load(o->catalog, &cat, err);
    if (rc)
        return rc;
    struct reader_options ro = {.ref_type = -1, .team = o->team, .gpu_map = o->gpu_map,
                                .keep_cpu = o->keep_cpu};
    if (o->ref && (ro.ref_type = gpu_catalog_find(cat, o->ref)) < 0) {
        const char *hint = fs_suggest(o->ref, cat->names, (size_t)cat->n);
        rc = fs_fail(err, FS_EUSAGE, "--reference-gpu: unknown GPU type \"%s\"%s%s%s", o->ref,
                     hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
    }
    if (rc == 0)
        rc = rd->read(o->in, &ro, cat, &w, &st, err);
    if (rc == 0 && rd->steps)
        rc = job_types_steps_to_seconds(o->job_types, o->in, cat, o->catalog, &w, err);
    if (rc == 0)
        rc = out_open_path(&out, o->out, err);
    if (rc == 0 && (rc = workload_write_native(out.f, &w, cat)) != 0)
        rc = rc == FS_EINTERRUPTED ? fs_fail_interrupted(err)
                                   : out_budget_error(fs_fail(err, FS_ECANTCREAT, "%s: write error", o->out), err);
    rc = finish_out(&out, rc, err);
    if (rc == 0 && !o->quiet) {
        fprintf(stderr, "import: %s: %lld rows, %zu jobs -> %s; ", o->in, st.rows, w.n, o->out);
        print_drops(&st);
        fputc('\n', stderr);
    }
    workload_free(&w);
    gpu_catalog_free(cat);
    return rc;
}

static int import_demand(const struct import_opts *o, struct fs_err *err)
{
    struct demand_curve d;
    int rc = azure_read_demand(o->in, o->has_bin ? o->bin_s : 60, &d, err);
    if (rc == FS_EUSAGE) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = fs_fail(err, FS_EUSAGE, "--bin-s: %s", msg);
    }
    if (rc == 0)
        rc = write_demand(o, &d, err);
    if (rc == 0 && !o->quiet)
        fprintf(stderr, "import: %s: %zu requests, %.0f prompt + %.0f output tokens in %zu bins "
                        "of %g s -> %s\n", o->in, d.requests, d.total_prompt, d.total_output, d.n,
                d.bin_s, o->out);
    demand_curve_free(&d);
    return rc;
}

/* ---- command line ------------------------------------------------------- */

__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fleetsim: import: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return usage(64);
}

const struct option import_opts[] = {
    {"output", required_argument, NULL, 'o'}, {"reference-gpu", required_argument, NULL, 'r'},
    {"team", required_argument, NULL, 't'},   {"bin-s", required_argument, NULL, 'b'},
    {"catalog", required_argument, NULL, 'c'}, {"job-types", required_argument, NULL, 'J'},
    {"gpu-map", required_argument, NULL, 'm'}, {"keep-cpu-jobs", no_argument, NULL, 'K'},
    {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
    CLI_OPT_MAX_OUTPUT, {NULL, 0, NULL, 0},
};

/* Options into o.  RET: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct import_opts *o)
{
    const struct option *opts = import_opts;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:r:t:b:J:m:qh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("import", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("import", optarg, &o->out))
                return 64;
            break;
        case 'r': o->ref = optarg; break;
        case 't': o->team = optarg; break;
        case 'b':
            errno = 0;
            o->bin_s = strtod(optarg, &end);
            if (errno || *end || end == optarg || !(o->bin_s > 0 && o->bin_s <= 1e9))
                return bad_usage("--bin-s: \"%s\" is not a number of seconds in (0, 1e9]", optarg);
            o->has_bin = true;
            break;
        case 'c': o->catalog = optarg; break;
        case 'J': o->job_types = optarg; break;
        case 'm': o->gpu_map = optarg; break;
        case 'K': o->keep_cpu = true; break;
        case 'q': o->quiet = true; break;
        case 'h': return usage(0);
        case ':': return bad_usage("option %s needs a value", argv[optind - 1]);
        default: return bad_usage("unknown option %s", argv[optind - 1]);
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "fleetsim: import: expected FORMAT and IN, got %d arguments\n", argc - optind);
        return usage(64);
    }
    o->format = argv[optind];
    o->in = argv[optind + 1];
    if (!o->out)
        return bad_usage("no output file; give -o OUT");
    return -1;
}

int cmd_import(int argc, char **argv)
{
    struct import_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    bool azure = strcmp(o.format, AZURE_FORMAT) == 0;
    const struct trace_reader *rd = trace_reader_find(o.format);
    char names[128];
    if (!rd && !azure) {
        fprintf(stderr, "fleetsim: import: unknown format \"%s\" (%s, %s)\n", o.format,
                trace_reader_names(names, sizeof names), AZURE_FORMAT);
        return usage(64);
    }
    if (azure && (o.ref || o.team))
        return bad_usage("%s: --reference-gpu and --team are for job traces", o.format);
    if (!azure && o.has_bin)
        return bad_usage("%s: --bin-s is for request traces (azure-llm)", o.format);
    if (rd && !rd->default_ref && o.ref)
        return bad_usage("%s: the trace names the reference type on every row; drop "
                         "--reference-gpu", o.format);
    if (rd && rd->steps && !o.job_types)
        return bad_usage("%s: the trace counts work in steps of each job type; give --job-types "
                         "FILE (Gavel's simulation_throughputs.json) to turn them into GPU-seconds",
                         o.format);
    if (o.job_types && !(rd && rd->steps))
        return bad_usage("%s: --job-types is for traces that count steps (gavel)", o.format);
    if (!o.catalog)
        o.catalog = cli_default_catalog();
    struct fs_err err = {0};
    rc = azure ? import_demand(&o, &err) : import_jobs(&o, rd, &err);
    return rc ? cli_fail(&err) : 0;
}
