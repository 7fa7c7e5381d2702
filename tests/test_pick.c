/* test_pick.c - a round's pick for one GPU type (sim/pick.h) against its
 * definition: sort every candidate (qsort, with the order written out here
 * again), then offer the GPUs in that order, each candidate taking its
 * GPUs when they fit.  pick_in_order must take exactly the same candidates
 * while ordering only part of them (a candidate asking for no GPU is
 * taken only while some are left, as rounds.c always did).  Candidates are drawn with many ties
 * (a round's jobs that have not run share a priority), requests of 0 to
 * 128 GPUs (past the 64 that pick.c counts one by one), and rooms from
 * none to more than all ask for. */
#include <stdlib.h>
#include <string.h>

#include "../sim/pick.h"
#include "testutil.h"

static uint64_t rng = 0x7069636b;

static uint64_t draw(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

/* The order of pick.h, for qsort. */
static int cmp_entry(const void *pa, const void *pb)
{
    const struct pick_entry *a = pa, *b = pb;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit ? -1 : 1;
    if (a->alloc != b->alloc)
        return a->alloc > b->alloc ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int cmp_pos(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* n candidates; ties: how many distinct values each key takes (1: all
 * tie, and pos decides). */
static void make(struct pick_entry *e, size_t n, int ties, int64_t *total)
{
    static const int32_t sizes[] = {0, 1, 1, 1, 2, 2, 4, 8, 16, 65, 128};
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        e[i] = (struct pick_entry){
            .prio = (double)draw((uint64_t)ties) / 4,
            .deficit = (double)draw((uint64_t)ties) - ties / 2,
            .alloc = (double)draw(2) / 4,
            .pos = (uint32_t)(n - 1 - i) * 3, /* distinct, against their places */
            .gpus = sizes[draw(FS_ARRAY_LEN(sizes))],
        };
        *total += e[i].gpus;
    }
}

/* The definition: sorted, then offered in order while GPUs are left.
 * OUT pos[0..RET). */
static size_t reference(const struct pick_entry *e, size_t n, int32_t gpus, uint32_t *pos)
{
    struct pick_entry *s = xmalloc((n ? n : 1) * sizeof *s);
    memcpy(s, e, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_entry);
    size_t m = 0;
    for (size_t i = 0; i < n && gpus > 0; i++)
        if (s[i].gpus <= gpus) {
            gpus -= s[i].gpus;
            pos[m++] = s[i].pos;
        }
    free(s);
    qsort(pos, m, sizeof *pos, cmp_pos);
    return m;
}

/* Thousands of draws: the same candidates taken as by the definition, and
 * they come first in e. */
static void test_same_as_sorting(void)
{
    static const size_t counts[] = {0, 1, 2, 3, 16, 17, 40, 300, 2000, 9000};
    static const int ties[] = {1, 3, 50, 1000000};
    size_t cases = 0, mismatches = 0;
    for (size_t c = 0; c < FS_ARRAY_LEN(counts); c++)
        for (size_t t = 0; t < FS_ARRAY_LEN(ties); t++)
            for (int draw_no = 0; draw_no < (counts[c] > 1000 ? 6 : 40); draw_no++) {
                size_t n = counts[c];
                struct pick_entry *e = xmalloc((n + n / 2 + 2) * sizeof *e), *tmp = e + n + 1;
                uint32_t *want = xmalloc((n + 1) * sizeof *want), *got = xmalloc((n + 1) * sizeof *got);
                int64_t total;
                make(e, n, ties[t], &total);
                /* No room, a little, about the boundary a deep queue has,
                 * half, all, more than all. */
                const int64_t rooms[] = {0, 1, 3, 7, total / 6, total / 2, total, total + 5};
                struct pick_entry *orig = xmalloc((n ? n : 1) * sizeof *orig);
                memcpy(orig, e, n * sizeof *e);
                for (size_t r = 0; r < FS_ARRAY_LEN(rooms); r++) {
                    int32_t room = (int32_t)rooms[r];
                    memcpy(e, orig, n * sizeof *e);
                    size_t m = pick_in_order(e, tmp, n, room), mw = reference(orig, n, room, want);
                    for (size_t i = 0; i < m; i++)
                        got[i] = e[i].pos;
                    qsort(got, m, sizeof *got, cmp_pos);
                    cases++;
                    if (m != mw || memcmp(got, want, m * sizeof *got) != 0)
                        mismatches++;
                }
                free(orig);
                free(e);
                free(want);
                free(got);
            }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT(cases > 1000);
}

/* pick_sort gives qsort's order. */
static void test_sort(void)
{
    size_t n = 5000;
    struct pick_entry *e = xmalloc((n + n / 2 + 1) * sizeof *e), *tmp = e + n, *want = xmalloc(n * sizeof *want);
    int64_t total;
    make(e, n, 3, &total);
    memcpy(want, e, n * sizeof *e);
    qsort(want, n, sizeof *want, cmp_entry);
    pick_sort(e, tmp, n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += e[i].pos != want[i].pos;
    CU_ASSERT_EQUAL(wrong, 0);
    free(e);
    free(want);
}

static CU_TestInfo tests[] = {
    {"the candidates taken are those a full sort and a scan take", test_same_as_sorting},
    {"pick_sort sorts into the order", test_sort},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"pick", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("pick", suites);
}
