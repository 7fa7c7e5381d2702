/* read_azure.c - Azure LLM inference traces (Azure/AzurePublicDataset,
 * AzureLLMInferenceTrace_{code,conv}.csv): one request per row,
 *
 *   TIMESTAMP,ContextTokens,GeneratedTokens
 *   2023-11-16 18:15:46.6805900,374,44
 *
 * binned into a demand curve (readers.h).  Times are kept as integer
 * nanoseconds and tokens as integers, so the bins and the totals are exact.
 */
#include "readers_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char header[] = "TIMESTAMP,ContextTokens,GeneratedTokens";
enum { C_TIME, C_PROMPT, C_OUTPUT, NCOLS };
static const char *const cols[NCOLS] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};

#define TOKENS_MAX 100000000LL    /* per request */
#define BINS_MAX 10000000LL

/* Per-bin integer sums while reading. */
struct bins {
    int64_t *prompt, *output;
    size_t n, cap;
};

static void bins_add(struct bins *b, size_t i, int64_t prompt, int64_t output)
{
    if (i >= b->n) {
        size_t cap = b->cap;
        xgrow(&b->prompt, &cap, i + 1, sizeof *b->prompt);
        xgrow(&b->output, &b->cap, i + 1, sizeof *b->output);
        memset(b->prompt + b->n, 0, (i + 1 - b->n) * sizeof *b->prompt);
        memset(b->output + b->n, 0, (i + 1 - b->n) * sizeof *b->output);
        b->n = i + 1;
    }
    b->prompt[i] += prompt;
    b->output[i] += output;
}

/* One row into b.  first < 0 until the first row sets it. */
static int parse_row(const struct rd_row *r, char **f, int64_t bin_ns, int64_t *first,
                     struct bins *b, struct demand_curve *d)
{
    int64_t t, prompt, output;
    int rc;
    if ((rc = rd_datetime(r, cols[C_TIME], f[C_TIME], &t)) ||
        (rc = rd_int(r, cols[C_PROMPT], f[C_PROMPT], 0, TOKENS_MAX, &prompt)) ||
        (rc = rd_int(r, cols[C_OUTPUT], f[C_OUTPUT], 0, TOKENS_MAX, &output)))
        return rc;
    if (*first < 0)
        *first = t;
    if (t < *first)
        return rd_fail(r, cols[C_TIME], "%s is earlier than the first row's time; rows must "
                       "not go back before it", f[C_TIME]);
    int64_t bin = (t - *first) / bin_ns;
    if (bin >= BINS_MAX)
        return rd_fail(r, cols[C_TIME], "%s is bin %lld from the first row: more than %lld "
                       "bins of %g s", f[C_TIME], (long long)bin, BINS_MAX, d->bin_s);
    bins_add(b, (size_t)bin, prompt, output);
    d->total_prompt += (double)prompt; /* exact: the sums stay below 10^15 */
    d->total_output += (double)output;
    d->requests++;
    return 0;
}

static int read_rows(struct rd_lines *in, int64_t bin_ns, struct bins *b, struct demand_curve *d,
                     struct fs_err *err)
{
    char *f[NCOLS];
    int64_t first = -1;
    int nf, rc = rd_header(in, header, err);
    if (rc < 0)
        return rc;
    while ((rc = rd_csv_next(in, f, NCOLS, &nf, err)) > 0) {
        struct rd_row r = {in->path, in->record, err};
        if ((rc = rd_count_row(in, err)) < 0)
            break;
        if (nf != NCOLS)
            return fs_fail(err, FS_EDATA, "%s:%lld: expected %d columns (%s), found %d", in->path,
                           r.line, NCOLS, header, nf);
        if ((rc = parse_row(&r, f, bin_ns, &first, b, d)) < 0)
            break;
        rc = 1;
    }
    if (rc == 0 && d->requests == 0)
        rc = fs_fail(err, FS_EDATA, "%s: no requests", in->path);
    return rc;
}

int azure_read_demand(const char *path, double bin_s, struct demand_curve *d, struct fs_err *err)
{
    memset(d, 0, sizeof *d);
    if (!(bin_s > 0 && bin_s <= 1e9) || llround(bin_s * 1e9) < 1)
        return fs_fail(err, FS_EUSAGE, "bin width %g s: must be in (0, 1e9] seconds", bin_s);
    struct rd_lines in;
    struct bins b = {0};
    int64_t bin_ns = (int64_t)llround(bin_s * 1e9);
    d->bin_s = (double)bin_ns / 1e9;
    int rc = rd_open(&in, path, err);
    if (rc == 0)
        rc = read_rows(&in, bin_ns, &b, d, err);
    rd_close(&in);
    if (rc == 0) {
        d->n = b.n;
        d->prompt_tokens = xmalloc(b.n * sizeof *d->prompt_tokens);
        d->output_tokens = xmalloc(b.n * sizeof *d->output_tokens);
        for (size_t i = 0; i < b.n; i++) {
            d->prompt_tokens[i] = (double)b.prompt[i];
            d->output_tokens[i] = (double)b.output[i];
        }
    } else {
        demand_curve_free(d);
    }
    free(b.prompt);
    free(b.output);
    return rc;
}

void demand_curve_free(struct demand_curve *d)
{
    if (!d)
        return;
    free(d->prompt_tokens);
    free(d->output_tokens);
    memset(d, 0, sizeof *d);
}
