/* workload_write.c - writing a workload as a native job CSV, and a
 * demand curve as CSV. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../base/signals.h"
#include "../base/csv.h"
#include "readers_int.h"

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v. */
static void fmt_double(char *buf, size_t size, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void fmt_types(char *buf, size_t size, uint64_t allowed, const struct gpu_catalog *cat)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < cat->n && len < size; t++)
        if (allowed & (1ULL << t))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
                                    cat->types[t].name);
}

int workload_write_native(FILE *f, const struct workload *w, const struct gpu_catalog *cat)
{
    char mem[32], work[32], params[32], tokens[32], types[GPU_MAX_TYPES * GPU_NAME_MAX];
    char limit[32];
    bool spec = false, share = false, limits = false;
    for (size_t i = 0; i < w->n; i++) {
        const struct job *j = &w->jobs[i];
        spec |= j->spec != 0;
        limits |= j->limit > 0 || j->measured;
        share |= j->gpus == 0 || j->milli < GPU_MILLI || j->cpu_milli > 0 || j->mem_mib > 0;
    }
    int bad = fprintf(f, "%s%s%s%s\n", workload_native_header, spec ? workload_spec_header : "",
                      share ? workload_share_header : "", limits ? workload_limit_header : "") < 0;
    for (size_t i = 0; i < w->n && !bad; i++) {
        const struct job *j = &w->jobs[i];
        const struct job_spec *sp = workload_spec(w, j);
        if (fs_poll(i))
            return FS_EINTERRUPTED;
        if (j->team >= w->nteams || j->kind >= JOB_KIND_COUNT || j->ref_type < 0 ||
            j->ref_type >= cat->n)
            return FS_EINTERNAL;
        fmt_double(mem, sizeof mem, j->gpu_mem_gb);
        fmt_double(work, sizeof work, j->work);
        fmt_types(types, sizeof types, j->allowed, cat);
        /* Submit from the integer microseconds, so it reads back exactly. */
        fs_time t = j->submit < 0 ? -j->submit : j->submit;
        /* Team and type names are the only text: quoted where they must be. */
        bad = fprintf(f, "%" PRId64 ",%s%" PRId64 ".%06" PRId64 ",%s,", j->id,
                      j->submit < 0 ? "-" : "", (int64_t)(t / FS_USEC), (int64_t)(t % FS_USEC),
                      job_kind_name((enum job_kind)j->kind)) < 0;
        bad |= csv_put(f, w->teams[j->team]) == EOF;
        bad |= fprintf(f, ",%" PRId32 ",%s,", j->gpus, mem) < 0;
        bad |= csv_put(f, types) == EOF;
        bad |= fprintf(f, ",%s,", j->work > 0 ? work : "") < 0;
        bad |= csv_put(f, cat->types[j->ref_type].name) == EOF;
        if (sp) {
            fmt_double(params, sizeof params, sp->params_b);
            fmt_double(tokens, sizeof tokens, sp->tokens);
            bad |= fprintf(f, ",%s,%s,%s", params, sp->tokens > 0 ? tokens : "",
                           job_method_name((enum job_method)sp->method)) < 0;
        } else if (spec)
            bad |= fputs(",,,", f) < 0;
        if (share)
            bad |= fprintf(f, ",%" PRId32 ",%" PRId32 ",%" PRId32, j->milli, j->cpu_milli, j->mem_mib) < 0;
        if (limits) {
            fmt_double(limit, sizeof limit, fs_to_seconds(j->limit));
            bad |= fprintf(f, ",%s,%s,%s", j->limit > 0 ? limit : "",
                           j->kill_at_limit ? "1" : "", j->measured ? "1" : "") < 0;
        }
        bad |= fputc('\n', f) == EOF;
    }
    if (fflush(f) != 0 || ferror(f))
        bad = 1;
    return bad ? FS_ECANTCREAT : 0;
}

void demand_curve_write(FILE *f, const struct demand_curve *d)
{
    char t[32];
    fprintf(f, "time_s,prompt_tokens,output_tokens\n");
    for (size_t i = 0; i < d->n; i++) {
        fmt_double(t, sizeof t, (double)i * d->bin_s);
        fprintf(f, "%s,%.0f,%.0f\n", t, d->prompt_tokens[i], d->output_tokens[i]);
    }
}
