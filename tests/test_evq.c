/* test_evq.c - the event queue: order, ties, cancellation, handle reuse. */
#include "../sim/evq.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>

#include "testutil.h"

/* A fixed-seed LCG (Knuth's MMIX constants); the high bits are the good ones. */
static uint64_t lcg_state;

static void lcg_seed(uint64_t s)
{
    lcg_state = s;
}

static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(lcg_state >> 33);
}

/* Uniform-ish in [0, n). */
static uint32_t lcg_below(uint32_t n)
{
    return lcg_next() % n;
}

static uint32_t slot_of(evq_handle h)
{
    return (uint32_t)(h & UINT32_MAX);
}

/* Pop everything; check the args come out as expected[0 .. n-1] and the
 * queue is then empty. */
static void expect_args(struct evq *q, const int32_t *expected, size_t n)
{
    struct event ev;
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_TRUE_FATAL(evq_pop(q, &ev));
        CU_ASSERT_EQUAL(ev.arg, expected[i]);
    }
    CU_ASSERT_FALSE(evq_pop(q, &ev));
    CU_ASSERT_EQUAL(evq_size(q), 0);
}

/* ---- ordering ---------------------------------------------------------- */

struct ref {
    fs_time time;
    int32_t idx;
};

static int ref_cmp(const void *pa, const void *pb)
{
    const struct ref *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static void test_random_order_sorted(void)
{
    enum { N = 100000 };
    struct ref *ref = malloc(N * sizeof *ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    struct evq q;
    evq_init(&q);
    lcg_seed(12345);
    for (int32_t i = 0; i < N; i++) {
        /* A range smaller than N squared makes plenty of ties. */
        fs_time t = (fs_time)lcg_below(1000000) - 1000; /* some negative */
        ref[i] = (struct ref){t, i};
        evq_push(&q, t, 7, i);
    }
    CU_ASSERT_EQUAL(evq_size(&q), N);
    qsort(ref, N, sizeof *ref, ref_cmp);
    size_t bad = 0;
    struct event ev;
    for (int32_t i = 0; i < N; i++) {
        CU_ASSERT_EQUAL_FATAL(evq_peek_time(&q), ref[i].time);
        CU_ASSERT_TRUE_FATAL(evq_pop(&q, &ev));
        if (ev.time != ref[i].time || ev.arg != ref[i].idx || ev.seq != (uint64_t)ref[i].idx ||
            ev.kind != 7)
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    evq_free(&q);
    free(ref);
}

static void test_equal_times_fifo(void)
{
    struct evq q;
    evq_init(&q);
    evq_push(&q, 10, 0, 100);
    evq_push(&q, 5, 0, 200);
    evq_push(&q, 10, 0, 101);
    evq_push(&q, 5, 0, 201);
    evq_push(&q, 10, 0, 102);
    evq_push(&q, 0, 0, 300);
    evq_push(&q, 5, 0, 202);
    evq_push(&q, 10, 0, 103);
    for (int32_t i = 0; i < 8; i++) /* a long run of one time */
        evq_push(&q, 7, 0, 400 + i);
    static const int32_t want[] = {300, 200, 201, 202, 400, 401, 402, 403,
                                   404, 405, 406, 407, 100, 101, 102, 103};
    expect_args(&q, want, FS_ARRAY_LEN(want));
    evq_free(&q);
}

static void test_interleaved_scripted(void)
{
    struct evq q;
    evq_init(&q);
    struct event ev;
    evq_push(&q, 30, 0, 1);
    evq_push(&q, 10, 0, 2);
    evq_push(&q, 20, 0, 3);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(ev.arg, 2);
    evq_push(&q, 5, 0, 4);   /* earlier than anything popped so far */
    evq_push(&q, 20, 0, 5);  /* ties with 3, pushed later */
    evq_push(&q, 25, 0, 6);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(ev.arg, 4);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(ev.arg, 3);
    evq_push(&q, 20, 0, 7);  /* ties with 5 */
    static const int32_t want[] = {5, 7, 6, 1};
    expect_args(&q, want, FS_ARRAY_LEN(want));
    evq_free(&q);
}

/* A run loop's pattern: pop the earliest, schedule follow-ups at now + d
 * (d may be 0).  Times must never go backwards and ties must pop in seq
 * order. */
static void test_interleaved_run_loop(void)
{
    struct evq q;
    evq_init(&q);
    lcg_seed(99);
    for (int32_t i = 0; i < 100; i++)
        evq_push(&q, lcg_below(50), 0, i);
    struct event ev, prev = {.time = -1};
    size_t popped = 0, bad = 0;
    while (evq_pop(&q, &ev) && popped < 50000) {
        if (ev.time < prev.time || (ev.time == prev.time && ev.seq <= prev.seq))
            bad++;
        prev = ev;
        popped++;
        uint32_t k = lcg_below(3); /* 0, 1 or 2 follow-ups: size random-walks */
        for (uint32_t j = 0; j < k && popped < 40000; j++)
            evq_push(&q, ev.time + lcg_below(4), 0, ev.arg);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(popped > 1000);
    evq_free(&q);
}

/* ---- cancellation ------------------------------------------------------ */

static void test_cancel_queued(void)
{
    struct evq q;
    evq_init(&q);
    evq_handle h[10];
    static const fs_time times[10] = {50, 20, 80, 10, 60, 30, 90, 40, 70, 20};
    for (int32_t i = 0; i < 10; i++)
        h[i] = evq_push(&q, times[i], 0, i);
    CU_ASSERT_TRUE(evq_cancel(&q, h[3])); /* the root (time 10) */
    CU_ASSERT_EQUAL(evq_size(&q), 9);
    CU_ASSERT_EQUAL(evq_peek_time(&q), 20);
    CU_ASSERT_TRUE(evq_cancel(&q, h[5])); /* the middle (time 30) */
    CU_ASSERT_TRUE(evq_cancel(&q, h[9])); /* the last pushed (time 20) */
    CU_ASSERT_TRUE(evq_cancel(&q, h[6])); /* the latest (time 90) */
    CU_ASSERT_EQUAL(evq_size(&q), 6);
    static const int32_t want[] = {1, 7, 0, 4, 8, 2};
    expect_args(&q, want, FS_ARRAY_LEN(want));
    evq_free(&q);
}

/* Removing from the middle can leave the moved-in last element smaller than
 * its new parent: the heap must sift it up, not only down.  In a binary heap
 * built from these pushes, cancelling 73 moves 51 under 65, and a heap that
 * only sifts down later pops 65 before 51.  (Found by a search against a
 * sift-down-only mutant; most small cases do not show it.) */
static void test_cancel_needs_sift_up(void)
{
    struct evq q;
    evq_init(&q);
    static const fs_time times[] = {51, 73, 11, 65, 68, 81, 13};
    evq_handle h[7];
    for (int32_t i = 0; i < 7; i++)
        h[i] = evq_push(&q, times[i], 0, (int32_t)times[i]);
    CU_ASSERT_TRUE(evq_cancel(&q, h[1]));
    static const int32_t want[] = {11, 13, 51, 65, 68, 81};
    struct event ev;
    for (size_t i = 0; i < FS_ARRAY_LEN(want); i++) {
        CU_ASSERT_EQUAL(evq_peek_time(&q), want[i]);
        CU_ASSERT_TRUE_FATAL(evq_pop(&q, &ev));
        CU_ASSERT_EQUAL(ev.arg, want[i]);
    }
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    evq_free(&q);
}

static void test_cancel_popped_handle(void)
{
    struct evq q;
    evq_init(&q);
    struct event ev;
    evq_handle h1 = evq_push(&q, 10, 0, 1);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    evq_handle h2 = evq_push(&q, 10, 0, 2);
    /* The point of the test: h2 reuses h1's slot under a new generation. */
    CU_ASSERT_EQUAL_FATAL(slot_of(h2), slot_of(h1));
    CU_ASSERT_NOT_EQUAL_FATAL(h2, h1);
    CU_ASSERT_FALSE(evq_cancel(&q, h1));
    CU_ASSERT_EQUAL(evq_size(&q), 1);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(ev.arg, 2);
    CU_ASSERT_FALSE(evq_cancel(&q, h2)); /* popped now too */
    evq_free(&q);
}

static void test_cancel_twice(void)
{
    struct evq q;
    evq_init(&q);
    evq_push(&q, 1, 0, 0);
    evq_handle h1 = evq_push(&q, 5, 0, 1);
    evq_push(&q, 9, 0, 2);
    CU_ASSERT_TRUE(evq_cancel(&q, h1));
    CU_ASSERT_FALSE(evq_cancel(&q, h1));
    CU_ASSERT_EQUAL(evq_size(&q), 2);
    evq_handle h2 = evq_push(&q, 5, 0, 3);
    CU_ASSERT_EQUAL_FATAL(slot_of(h2), slot_of(h1));
    CU_ASSERT_FALSE(evq_cancel(&q, h1)); /* must not hit the reuser */
    CU_ASSERT_EQUAL(evq_size(&q), 3);
    static const int32_t want[] = {0, 3, 2};
    expect_args(&q, want, FS_ARRAY_LEN(want));
    evq_free(&q);
}

static void test_cancel_bogus_handles(void)
{
    struct evq q;
    evq_init(&q);
    CU_ASSERT_FALSE(evq_cancel(&q, 0));          /* empty, never grown */
    CU_ASSERT_FALSE(evq_cancel(&q, 1));
    evq_handle h = evq_push(&q, 3, 0, 0);
    evq_push(&q, 4, 0, 1);
    CU_ASSERT_FALSE(evq_cancel(&q, 0));
    CU_ASSERT_FALSE(evq_cancel(&q, (evq_handle)5 << 32)); /* slot part 0 */
    CU_ASSERT_FALSE(evq_cancel(&q, h + ((evq_handle)1 << 32))); /* future gen */
    CU_ASSERT_FALSE(evq_cancel(&q, 40));          /* allocated, never used */
    CU_ASSERT_FALSE(evq_cancel(&q, UINT32_MAX)); /* beyond capacity */
    CU_ASSERT_FALSE(evq_cancel(&q, UINT64_MAX));
    CU_ASSERT_EQUAL(evq_size(&q), 2);
    static const int32_t want[] = {0, 1};
    expect_args(&q, want, FS_ARRAY_LEN(want));
    evq_free(&q);
}

/* ---- size, peek, storage ----------------------------------------------- */

static void test_peek_and_size(void)
{
    struct evq q;
    evq_init(&q);
    struct event ev = {.arg = -7};
    CU_ASSERT_EQUAL(evq_peek_time(&q), FS_TIME_MAX);
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    CU_ASSERT_FALSE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(ev.arg, -7); /* untouched */
    evq_handle a = evq_push(&q, 40, 0, 0);
    CU_ASSERT_EQUAL(evq_size(&q), 1);
    CU_ASSERT_EQUAL(evq_peek_time(&q), 40);
    evq_push(&q, 30, 0, 1);
    evq_push(&q, 50, 0, 2);
    CU_ASSERT_EQUAL(evq_size(&q), 3);
    CU_ASSERT_EQUAL(evq_peek_time(&q), 30);
    CU_ASSERT_TRUE(evq_cancel(&q, a));
    CU_ASSERT_EQUAL(evq_size(&q), 2);
    CU_ASSERT_FALSE(evq_cancel(&q, a));
    CU_ASSERT_EQUAL(evq_size(&q), 2);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(evq_size(&q), 1);
    CU_ASSERT_EQUAL(evq_peek_time(&q), 50);
    CU_ASSERT_TRUE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    CU_ASSERT_EQUAL(evq_peek_time(&q), FS_TIME_MAX);
    CU_ASSERT_FALSE(evq_pop(&q, &ev));
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    evq_free(&q);
    evq_free(&q); /* free leaves an empty queue; freeing again is harmless */
    evq_free(NULL);
    CU_ASSERT_EQUAL(evq_size(&q), 0);
    CU_ASSERT_EQUAL(evq_peek_time(&q), FS_TIME_MAX);
    evq_push(&q, 1, 0, 0); /* and usable again */
    CU_ASSERT_EQUAL(evq_size(&q), 1);
    evq_free(&q);
}

/* Once warmed up to a size, a queue that never holds more does not grow:
 * freed slots are reused rather than fresh ones taken. */
static void test_steady_state_no_growth(void)
{
    struct evq q;
    evq_init(&q);
    struct event ev;
    for (int32_t i = 0; i < 1000; i++)
        evq_push(&q, i, 0, i);
    size_t cap = q.cap;
    const struct evq_slot *slots = q.slots;
    lcg_seed(7);
    for (int round = 0; round < 20000; round++) {
        if (evq_size(&q) == 1000 || (evq_size(&q) > 0 && lcg_below(2))) {
            CU_ASSERT_TRUE_FATAL(evq_pop(&q, &ev));
        } else {
            evq_push(&q, lcg_below(5000), 0, round);
        }
    }
    CU_ASSERT_EQUAL(q.cap, cap);
    CU_ASSERT_PTR_EQUAL(q.slots, slots);
    evq_free(&q);
}

/* ---- randomized against a brute-force model ---------------------------- */

struct model_ev {
    fs_time time;
    uint64_t seq;
    int32_t arg;
    int kind;
    evq_handle h;
    bool live;
};

/* Index of the earliest live event, or -1. */
static long model_min(const struct model_ev *m, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        if (!m[i].live)
            continue;
        if (best < 0 || m[i].time < m[best].time ||
            (m[i].time == m[best].time && m[i].seq < m[best].seq))
            best = (long)i;
    }
    return best;
}

static void test_random_vs_model(void)
{
    enum { OPS = 20000 };
    struct model_ev *m = calloc(OPS, sizeof *m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    size_t nm = 0, live = 0, mismatches = 0, cancels_ok = 0, cancels_stale = 0;
    struct evq q;
    evq_init(&q);
    lcg_seed(2024);
    for (int op = 0; op < OPS; op++) {
        uint32_t r = lcg_below(100);
        if (r < 50 || nm == 0) {
            fs_time t = lcg_below(200); /* a narrow range: many ties */
            int kind = (int)lcg_below(4);
            evq_handle h = evq_push(&q, t, kind, op);
            if (h == 0)
                mismatches++;
            for (size_t i = 0; i < nm; i++) /* handles stay unique */
                if (m[i].h == h)
                    mismatches++;
            m[nm] = (struct model_ev){t, nm, op, kind, h, true};
            nm++;
            live++;
        } else if (r < 75) {
            long want = model_min(m, nm);
            struct event ev;
            bool got = evq_pop(&q, &ev);
            if (got != (want >= 0)) {
                mismatches++;
            } else if (got) {
                const struct model_ev *w = &m[want];
                if (ev.time != w->time || ev.seq != w->seq || ev.arg != w->arg ||
                    ev.kind != w->kind)
                    mismatches++;
                m[want].live = false;
                live--;
            }
        } else {
            /* Any handle ever issued, live or dead. */
            size_t i = lcg_below((uint32_t)nm);
            bool got = evq_cancel(&q, m[i].h);
            if (got != m[i].live)
                mismatches++;
            if (m[i].live) {
                m[i].live = false;
                live--;
                cancels_ok++;
            } else {
                cancels_stale++;
            }
        }
        if (evq_size(&q) != live)
            mismatches++;
        long first = model_min(m, nm);
        if (evq_peek_time(&q) != (first >= 0 ? m[first].time : FS_TIME_MAX))
            mismatches++;
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    /* The mix really exercised both kinds of cancel. */
    CU_ASSERT(cancels_ok > 500);
    CU_ASSERT(cancels_stale > 500);
    /* Drain: the rest comes out in model order. */
    struct event ev;
    long want;
    while ((want = model_min(m, nm)) >= 0) {
        CU_ASSERT_TRUE_FATAL(evq_pop(&q, &ev));
        CU_ASSERT_EQUAL(ev.seq, m[want].seq);
        m[want].live = false;
    }
    CU_ASSERT_FALSE(evq_pop(&q, &ev));
    evq_free(&q);
    free(m);
}

static CU_TestInfo order_tests[] = {
    {"100k random times pop sorted", test_random_order_sorted},
    {"equal times pop in insertion order", test_equal_times_fifo},
    {"interleaved push/pop (scripted)", test_interleaved_scripted},
    {"interleaved push/pop (run loop)", test_interleaved_run_loop},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo cancel_tests[] = {
    {"cancel removes exactly the queued event", test_cancel_queued},
    {"cancel that needs a sift up", test_cancel_needs_sift_up},
    {"cancel of a popped handle spares its slot's reuser", test_cancel_popped_handle},
    {"cancel twice", test_cancel_twice},
    {"cancel of 0 and forged handles", test_cancel_bogus_handles},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo misc_tests[] = {
    {"peek_time and size", test_peek_and_size},
    {"steady state does not grow", test_steady_state_no_growth},
    {"20k random ops against a brute-force model", test_random_vs_model},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"evq order", NULL, NULL, NULL, NULL, order_tests},
    {"evq cancel", NULL, NULL, NULL, NULL, cancel_tests},
    {"evq misc", NULL, NULL, NULL, NULL, misc_tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("test_evq", suites);
}
