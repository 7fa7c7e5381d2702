/* evq_bench.c - throughput of the event queue (sim/evq.h) on its own.
 *
 * For each steady queue size S (1e3, 1e5, 1e7 by default) and each of two
 * workloads, the queue is filled to S events, then M operations are timed
 * while the size stays at S, five times over; the table shows the median.
 *
 *   hold          pop the earliest event, push one at its time plus a random
 *                 delay (the "hold" model of event-queue studies: what a
 *                 simulation does when each event schedules the next one).
 *                 One event per pop/push pair.
 *   hold+cancel   pop one, push two, cancel one queued event chosen at
 *                 random (what the engine does when a rate change moves a
 *                 job's completion).  Two events per round of four
 *                 operations; each event leaves by pop or by cancel.
 *
 * Figures: Mops/s (operations: pushes, pops and cancels), Mevents/s (events
 * through the queue: pushed once and popped or cancelled once), ns per
 * operation.  Delays and cancellation victims come from a fixed xorshift
 * stream, so every run does the same work.
 *
 * Usage: evq_bench [SIZE...] [-m OPS] [-r REPS] [--csv]
 *   SIZE   steady queue sizes (default 1000 100000 10000000)
 *   -m     timed operations per repetition (default 2000000)
 *   -r     repetitions; the median is shown (default 5)
 *   --csv  print "workload,size,ops,mops_per_s,mevents_per_s,ns_per_op"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/evq.h"

#define MAX_SIZES 16
#define MAX_REPS 101

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* A delay of up to about 17 minutes of simulated time, in microseconds. */
static fs_time delay(void) { return (fs_time)(next_rand() % (1ULL << 30)); }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Checksum of what popped, printed so no work can be optimized away. */
static uint64_t sink;

/* ---- hold: pop one, push one ------------------------------------------- */

static double run_hold(size_t size, long ops, int reps, double *secs)
{
    struct evq q;
    evq_init(&q);
    for (size_t i = 0; i < size; i++)
        evq_push(&q, delay(), 0, 0);
    long pairs = ops / 2;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (long i = 0; i < pairs; i++) {
            struct event ev;
            evq_pop(&q, &ev);
            sink += (uint64_t)ev.time;
            evq_push(&q, ev.time + delay(), 0, 0);
        }
        secs[r] = now_s() - t0;
    }
    evq_free(&q);
    return (double)pairs; /* events per repetition */
}

/* ---- hold+cancel: pop one, push two, cancel one ------------------------ */

/* The queued events by id (the event's arg): handle[id], and a dense list
 * of live ids so a random one can be cancelled in O(1). */
struct live {
    evq_handle *handle;
    uint32_t *pos, *dense, *free_ids;
    size_t n, nfree;
};

static void live_init(struct live *l, size_t cap)
{
    l->handle = xcalloc(cap, sizeof *l->handle);
    l->pos = xcalloc(cap, sizeof *l->pos);
    l->dense = xcalloc(cap, sizeof *l->dense);
    l->free_ids = xcalloc(cap, sizeof *l->free_ids);
    l->n = 0;
    l->nfree = cap;
    for (size_t i = 0; i < cap; i++)
        l->free_ids[i] = (uint32_t)(cap - 1 - i);
}

static void live_free(struct live *l)
{
    free(l->handle);
    free(l->pos);
    free(l->dense);
    free(l->free_ids);
}

static void live_push(struct live *l, struct evq *q, fs_time t)
{
    uint32_t id = l->free_ids[--l->nfree];
    l->handle[id] = evq_push(q, t, 0, (int32_t)id);
    l->pos[id] = (uint32_t)l->n;
    l->dense[l->n++] = id;
}

static void live_forget(struct live *l, uint32_t id)
{
    uint32_t last = l->dense[--l->n];
    l->dense[l->pos[id]] = last;
    l->pos[last] = l->pos[id];
    l->free_ids[l->nfree++] = id;
}

static double run_cancel(size_t size, long ops, int reps, double *secs)
{
    struct evq q;
    struct live l;
    evq_init(&q);
    live_init(&l, size + 2);
    for (size_t i = 0; i < size; i++)
        live_push(&l, &q, delay());
    long rounds = ops / 4;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (long i = 0; i < rounds; i++) {
            struct event ev;
            evq_pop(&q, &ev);
            sink += (uint64_t)ev.time;
            live_forget(&l, (uint32_t)ev.arg);
            live_push(&l, &q, ev.time + delay());
            live_push(&l, &q, ev.time + delay());
            uint32_t victim = l.dense[next_rand() % l.n];
            if (!evq_cancel(&q, l.handle[victim])) {
                fprintf(stderr, "evq_bench: cancel of a queued event failed\n");
                exit(70);
            }
            live_forget(&l, victim);
        }
        secs[r] = now_s() - t0;
    }
    live_free(&l);
    evq_free(&q);
    return 2.0 * (double)rounds;
}

struct workload {
    const char *name;
    double (*run)(size_t size, long ops, int reps, double *secs);
    int ops_per_round; /* the timed operations are a whole number of rounds */
};

static const struct workload workloads[] = {
    {"hold", run_hold, 2},
    {"hold+cancel", run_cancel, 4},
};

static int usage(void)
{
    fprintf(stderr, "usage: evq_bench [SIZE...] [-m OPS] [-r REPS] [--csv]\n");
    return 64;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES];
    int nsizes = 0, reps = 5, csv = 0;
    long ops = 2000000;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (strcmp(argv[i], "--csv") == 0) {
            csv = 1;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            ops = strtol(argv[++i], &end, 10);
            if (*end || ops < 4)
                return usage();
        } else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
            reps = (int)strtol(argv[++i], &end, 10);
            if (*end || reps < 1 || reps > MAX_REPS)
                return usage();
        } else if (argv[i][0] >= '0' && argv[i][0] <= '9' && nsizes < MAX_SIZES) {
            double v = strtod(argv[i], &end); /* 1e7 is fine */
            if (*end || v < 1 || v > 1e9)
                return usage();
            sizes[nsizes++] = (size_t)v;
        } else {
            return usage();
        }
    }
    if (!nsizes) {
        sizes[nsizes++] = 1000;
        sizes[nsizes++] = 100000;
        sizes[nsizes++] = 10000000;
    }

    if (csv)
        printf("workload,size,ops,mops_per_s,mevents_per_s,ns_per_op\n");
    else
        printf("| workload | queue size | ops/rep | Mops/s | Mevents/s | ns/op |\n"
               "|---|---:|---:|---:|---:|---:|\n");
    for (size_t w = 0; w < FS_ARRAY_LEN(workloads); w++) {
        for (int s = 0; s < nsizes; s++) {
            double secs[MAX_REPS];
            const struct workload *wl = &workloads[w];
            long timed = ops / wl->ops_per_round * wl->ops_per_round;
            double events = wl->run(sizes[s], timed, reps, secs);
            qsort(secs, (size_t)reps, sizeof secs[0], cmp_double);
            double med = secs[reps / 2];
            if (reps % 2 == 0)
                med = (med + secs[reps / 2 - 1]) / 2;
            double mops = (double)timed / med / 1e6, mev = events / med / 1e6;
            double ns = med / (double)timed * 1e9;
            if (csv)
                printf("%s,%zu,%ld,%.3f,%.3f,%.1f\n", wl->name, sizes[s], timed, mops, mev, ns);
            else
                printf("| %s | %zu | %ld | %.2f | %.2f | %.1f |\n", wl->name, sizes[s], timed, mops,
                       mev, ns);
            fflush(stdout);
        }
    }
    fprintf(stderr, "evq_bench: checksum %llu\n", (unsigned long long)sink);
    return 0;
}
