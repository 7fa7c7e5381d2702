/* wl_util.c - what the workload suites share: an in-memory catalog and
 * read/write/compare helpers. */
#include "wl_util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A catalog built in memory: this suite tests the workload, not the loader. */
struct gpu_catalog wl_cat;

int wl_setup(void)
{
    static const struct {
        const char *name;
        double tflops, mem;
    } t[] = {{"h100-sxm", 989, 80}, {"h200-sxm", 989, 141},
             {"a100-sxm-80", 312, 80}, {"rtx4090", 165, 24}};
    wl_cat.n = (int)FS_ARRAY_LEN(t);
    for (int i = 0; i < wl_cat.n; i++) {
        snprintf(wl_cat.types[i].name, sizeof wl_cat.types[i].name, "%s", t[i].name);
        wl_cat.types[i].bf16_tflops = t[i].tflops;
        wl_cat.types[i].memory_gb = t[i].mem;
        wl_cat.names[i] = wl_cat.types[i].name;
    }
    return 0;
}

/* ---- helpers ------------------------------------------------------------ */

int read_text(const char *text, struct workload *w, struct fs_err *e)
{
    const char *path = tu_tmpfile(".csv", text);
    int rc = workload_read_native(path, &wl_cat, w, e);
    unlink(path);
    return rc;
}

/* Model specs equal (both none, or the same fields, doubles bit for bit). */
static bool same_spec(const struct job_spec *x, const struct job_spec *y)
{
    if (!x || !y)
        return x == y;
    return x->method == y->method && !memcmp(&x->params_b, &y->params_b, sizeof(double)) &&
           !memcmp(&x->tokens, &y->tokens, sizeof(double));
}

/* Field-by-field equality, doubles bit for bit.  RET: differing jobs. */
size_t count_diffs(const struct workload *a, const struct workload *b)
{
    if (a->n != b->n)
        return a->n > b->n ? a->n : b->n;
    size_t d = 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct job *x = &a->jobs[i], *y = &b->jobs[i];
        d += x->id != y->id || x->submit != y->submit || x->kind != y->kind ||
             x->state != y->state || strcmp(a->teams[x->team], b->teams[y->team]) != 0 ||
             x->gpus != y->gpus || memcmp(&x->gpu_mem_gb, &y->gpu_mem_gb, sizeof(double)) ||
             x->allowed != y->allowed || x->ref_type != y->ref_type ||
             memcmp(&x->work, &y->work, sizeof(double)) || x->type != y->type ||
             x->node != y->node || x->nnodes != y->nnodes || x->gang != y->gang ||
             x->start != y->start || x->end != y->end ||
             !same_spec(workload_spec(a, x), workload_spec(b, y)) || x->milli != y->milli ||
             x->cpu_milli != y->cpu_milli || x->mem_mib != y->mem_mib ||
             x->limit != y->limit || x->kill_at_limit != y->kill_at_limit || x->measured != y->measured;
    }
    return d;
}

/* Write w to a temporary file and read it back into *back. */
int write_and_read(const struct gpu_catalog *cat, const struct workload *w, struct workload *back,
                   char *text, size_t text_size)
{
    const char *path = tu_tmpfile(".csv", "");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(workload_write_native(f, w, cat), 0);
    fclose(f);
    if (text) {
        f = fopen(path, "r");
        size_t n = fread(text, 1, text_size - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    struct fs_err e = {0};
    int rc = workload_read_native(path, cat, back, &e);
    unlink(path);
    if (rc)
        printf("\n  read back: %s\n", e.msg);
    return rc;
}

