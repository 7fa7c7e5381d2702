/* pick.c - a round's pick among candidates in order (pick.h). */
#include "pick.h"

#include <stdbool.h>
#include <string.h>

/* The order (pick.h). */
static bool before(const struct pick_entry *a, const struct pick_entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit;
    if (a->alloc != b->alloc)
        return a->alloc > b->alloc;
    return a->pos < b->pos;
}

/* A merge sort with the comparison inlined (qsort's calls through a pointer were
 * a fifth of a deep queue's rounds).  The order is total, so any correct
 * sort gives the same result. */
void pick_sort(struct pick_entry *e, struct pick_entry *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t a = 1; a < n; a++) {
            struct pick_entry x = e[a];
            size_t b = a;
            for (; b > 0 && before(&x, &e[b - 1]); b--)
                e[b] = e[b - 1];
            e[b] = x;
        }
        return;
    }
    size_t h = n / 2;
    pick_sort(e, tmp, h);
    pick_sort(e + h, tmp, n - h);
    if (!before(&e[h], &e[h - 1]))
        return; /* already in order */
    memcpy(tmp, e, h * sizeof *e);
    size_t a = 0, b = h, k = 0;
    while (a < h && b < n)
        e[k++] = before(&e[b], &tmp[a]) ? e[b++] : tmp[a++];
    while (a < h)
        e[k++] = tmp[a++];
}

static void swap(struct pick_entry *a, struct pick_entry *b)
{
    struct pick_entry x = *a;
    *a = *b;
    *b = x;
}

enum { SAMPLE = 15 };

/* Partition e[lo..hi) (hi - lo > 16) around a pivot near rank want (from
 * lo): the median of the first, middle and last entries when want is
 * about the middle, else the entry of that rank among SAMPLE spread over
 * the stretch.  RET: the pivot's place, its final one. */
static size_t partition(struct pick_entry *e, size_t lo, size_t hi, size_t want)
{
    size_t n = hi - lo, last = hi - 1;
    if (want >= n / 3 || want < 2 * SAMPLE) {
        size_t mid = lo + n / 2;
        if (before(&e[mid], &e[lo]))
            swap(&e[mid], &e[lo]);
        if (before(&e[last], &e[mid]))
            swap(&e[last], &e[mid]);
        if (before(&e[mid], &e[lo]))
            swap(&e[mid], &e[lo]);
        swap(&e[mid], &e[last]);
    } else {
        size_t at[SAMPLE];
        for (size_t q = 0; q < SAMPLE; q++) { /* by insertion, in order */
            size_t x = lo + (2 * q + 1) * n / (2 * SAMPLE), b = q;
            for (; b > 0 && before(&e[x], &e[at[b - 1]]); b--)
                at[b] = at[b - 1];
            at[b] = x;
        }
        swap(&e[at[want * SAMPLE / n]], &e[last]);
    }
    const struct pick_entry p = e[last];
    size_t i = lo, j = last; /* e[lo..i) before p, e[j..last) after it */
    for (;;) {
        while (i < j && before(&e[i], &p))
            i++;
        while (i < j && before(&p, &e[j - 1]))
            j--;
        if (i >= j)
            break;
        swap(&e[i++], &e[--j]);
    }
    swap(&e[i], &e[last]);
    return i;
}

enum { GPUS_COUNTED = 64 }; /* larger requests are counted as this many */

/* The GPUs left, and how many candidates not yet offered them ask for
 * each number of GPUs; the candidates taken so far. */
struct room {
    int32_t left, least, most;       /* the smallest and largest request */
    size_t asking[GPUS_COUNTED + 1];
    size_t taken;                    /* e[0..taken) */
};

static size_t counted(int32_t gpus)
{
    return gpus < GPUS_COUNTED ? (size_t)gpus : GPUS_COUNTED;
}

/* Can a candidate not yet offered still fit? */
static bool more(struct room *pk)
{
    while (pk->least < GPUS_COUNTED && !pk->asking[pk->least])
        pk->least++;
    return pk->left > 0 && pk->left >= pk->least;
}

/* Candidates in e[lo..hi) that ask for more than is left can never fit:
 * passed over, to the front.  RET: the new lo. */
static size_t drop_too_large(struct pick_entry *e, size_t lo, size_t hi, struct room *pk)
{
    for (size_t a = lo; a < hi; a++)
        if (e[a].gpus > pk->left) {
            pk->asking[counted(e[a].gpus)]--;
            swap(&e[a], &e[lo++]);
        }
    while (pk->most > 0 && !pk->asking[pk->most])
        pk->most--;
    return lo;
}

/* Offer e[x] the GPUs left: it takes them when they fit, and joins the
 * taken at the front (e[taken..x) were passed over: none is revisited). */
static void offer(struct pick_entry *e, size_t x, struct room *pk)
{
    pk->asking[counted(e[x].gpus)]--;
    if (e[x].gpus <= pk->left) {
        pk->left -= e[x].gpus;
        swap(&e[x], &e[pk->taken++]);
    }
}

/* The order is found only as far as it matters, by an incremental
 * quicksort (Paredes and Navarro 2006): the candidates that come next, as
 * a set, are e[lo..hi) (hi the nearest pivot not yet reached, or n), and
 * when all their GPUs fit together with some to spare each of them is
 * taken in any order, so they are taken unsorted.  Only the stretch where the room runs out is sorted.
 * Expected O(n) comparisons, not a sort's O(n log n); a deep queue's type
 * is full after a sixth of its candidates. */
size_t pick_in_order(struct pick_entry *e, struct pick_entry *tmp, size_t n, int32_t gpus)
{
    struct room room = {.left = gpus, .most = GPUS_COUNTED}, *pk = &room;
    for (size_t a = 0; a < n; a++)
        pk->asking[counted(e[a].gpus)]++;
    size_t pivot[64], lo = 0, clean_to = 0; /* e[lo..clean_to) fit in clean_left */
    int32_t clean_left = 0;
    int np = 0;
    while (more(pk)) {
        size_t hi = np ? pivot[np - 1] : n;
        if (lo == hi) { /* the pivot at hi is next, or none is left */
            if (!np--)
                break;
            offer(e, lo++, pk);
            continue;
        }
        /* Once the room is smaller than some requests, those are skipped
         * wherever they come: not worth ordering. */
        if (pk->left < pk->most && (hi > clean_to || pk->left < clean_left)) {
            lo = drop_too_large(e, lo, hi, pk);
            clean_to = hi;
            clean_left = pk->left;
            if (lo == hi)
                continue;
        }
        /* Taken whole when together they leave some room (each is then
         * offered while GPUs are left); else the first that fill the room,
         * in the stretch's own order, tell how many in order would. */
        size_t a = lo;
        int64_t sum = 0;
        for (; a < hi && sum < pk->left; a++)
            sum += e[a].gpus;
        if (sum < pk->left) {
            while (lo < hi)
                offer(e, lo++, pk);
        } else if (hi - lo > 16 && np < 64) {
            pivot[np++] = partition(e, lo, hi, 2 * (a - lo));
        } else { /* short (or 64 pivots deep): sorted whole, offered in order */
            pick_sort(e + lo, tmp, hi - lo);
            while (lo < hi && more(pk))
                offer(e, lo++, pk);
        }
    }
    return pk->taken;
}
