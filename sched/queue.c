/* queue.c - the sched's job queue by placement class (queue.h). */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

/* What a job's placement can depend on (queue.h).  Zeroed before it is
 * filled, so keys compare and hash as bytes. */
struct skey {
    int32_t gpus, milli, cpu_milli, mem_mib;
    double gpu_mem_gb;
    uint64_t allowed;
    int32_t workload, ref_type; /* these and below: 0 unless the policy filters */
    uint8_t kind, qos, urgent, svc;
    uint32_t zero;
};

enum { CLASS_EMPTY, CLASS_AWAKE, CLASS_ASLEEP };

struct sclass {
    struct skey key;
    /* jobs[head..n): queued, in queue order, and gaps: a job taken out
     * leaves its entry in place, marked in gap[], so that taking out and
     * queueing again (an eviction puts a job back where it stood) moves
     * nothing.  jobs[head] is never a gap.  A gap keeps its job pointer
     * for the bisections, whose order it still holds. */
    struct job **jobs;
    uint8_t *gap;
    size_t head, n, cap, ngaps;
    size_t it;              /* the merge's place: head, or squeue_each's;
                               never a gap */
    size_t pos;             /* in squeue.sleeping while asleep */
    uint8_t state;
    bool in_heap;
    struct squeue_room room;
};

struct squeue {
    struct sclass *cls;     /* every class seen, in order of first sight */
    size_t ncls, cap;
    int32_t *slot;          /* hash index: class + 1, 0 for a free slot */
    size_t nslot;
    int32_t *awake;         /* classes woken or filled since the last merge
                               (an entry is stale when the class is not
                               CLASS_AWAKE any more) */
    size_t nawake, awake_cap;
    int32_t *sleeping;      /* the CLASS_ASLEEP classes, any order */
    size_t nsleeping, sleeping_cap;
    int32_t *heap;          /* the merge: classes by their job at it */
    size_t nheap, heap_cap;
};

struct squeue *squeue_new(void)
{
    struct squeue *q = xcalloc(1, sizeof *q);
    q->nslot = 64;
    q->slot = xcalloc(q->nslot, sizeof *q->slot);
    return q;
}

void squeue_free(struct squeue *q)
{
    if (!q)
        return;
    for (size_t k = 0; k < q->ncls; k++) {
        free(q->cls[k].jobs);
        free(q->cls[k].gap);
    }
    free(q->cls);
    free(q->slot);
    free(q->awake);
    free(q->sleeping);
    free(q->heap);
    free(q);
}

static bool fifo_less(const struct job *a, const struct job *b)
{
    return a->submit != b->submit ? a->submit < b->submit : a->id < b->id;
}

/* The queue order: the policy's, then FIFO (submit time, then id). */
static bool before(const struct sched *s, const struct job *a, const struct job *b)
{
    const struct sched_policy *p = s->policy;
    if (p->queue_less) {
        if (p->queue_less(a, b))
            return true;
        if (p->queue_less(b, a))
            return false;
    }
    return fifo_less(a, b); /* a total order: a workload's ids are distinct */
}

static struct skey key_of(const struct sched *s, const struct job *j)
{
    struct skey k;
    memset(&k, 0, sizeof k);
    k.gpus = j->gpus;
    k.milli = j->milli;
    k.cpu_milli = j->cpu_milli;
    k.mem_mib = j->mem_mib;
    k.gpu_mem_gb = j->gpu_mem_gb;
    k.allowed = j->allowed;
    if (s->policy->filter || s->policy->type_filter) {
        k.workload = j->workload;
        k.ref_type = j->ref_type;
        k.kind = j->kind;
        k.qos = j->qos;
        k.urgent = j->urgent;
        k.svc = j->svc != 0;
    }
    return k;
}

static size_t key_hash(const struct skey *k)
{
    const unsigned char *b = (const unsigned char *)k;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return (size_t)(h ^ h >> 32);
}

/* The slot of key k: its class's, or the free one it would take. */
static int32_t *find_slot(const struct squeue *q, const struct skey *k)
{
    size_t i = key_hash(k) & (q->nslot - 1);
    while (q->slot[i] && memcmp(&q->cls[q->slot[i] - 1].key, k, sizeof *k) != 0)
        i = (i + 1) & (q->nslot - 1);
    return &q->slot[i];
}

/* The index of j's class, made when new. */
static int32_t class_of(struct sched *s, const struct job *j)
{
    struct squeue *q = s->q;
    struct skey k = key_of(s, j);
    /* A job queued again (an eviction) is most often of the class it was
     * in: one class per key, so a key that matches is the answer. */
    if (j->qclass >= 0 && (size_t)j->qclass < q->ncls && memcmp(&q->cls[j->qclass].key, &k, sizeof k) == 0)
        return j->qclass;
    int32_t *slot = find_slot(q, &k);
    if (*slot)
        return *slot - 1;
    xgrow(&q->cls, &q->cap, q->ncls + 1, sizeof *q->cls);
    q->cls[q->ncls] = (struct sclass){.key = k, .room = {.consolidated = -FS_TIME_MAX / 2,
                                                           .preempted = UINT64_MAX}};
    *slot = (int32_t)++q->ncls;
    if (2 * q->ncls > q->nslot) { /* keep the table at most half full */
        free(q->slot);
        q->nslot *= 2;
        q->slot = xcalloc(q->nslot, sizeof *q->slot);
        for (size_t c = 0; c < q->ncls; c++)
            *find_slot(q, &q->cls[c].key) = (int32_t)c + 1;
    }
    return (int32_t)q->ncls - 1;
}

static void push_id(int32_t **a, size_t *n, size_t *cap, int32_t id)
{
    xgrow(a, cap, *n + 1, sizeof **a);
    (*a)[(*n)++] = id;
}

/* Move class c to state to, keeping the awake and sleeping lists. */
static void set_state(struct squeue *q, int32_t c, uint8_t to)
{
    struct sclass *k = &q->cls[c];
    if (k->state == to)
        return;
    if (k->state == CLASS_ASLEEP) {
        int32_t last = q->sleeping[--q->nsleeping];
        q->sleeping[k->pos] = last;
        q->cls[last].pos = k->pos;
    }
    k->state = to;
    if (to == CLASS_ASLEEP) {
        k->pos = q->nsleeping;
        push_id(&q->sleeping, &q->nsleeping, &q->sleeping_cap, c);
    } else if (to == CLASS_AWAKE) {
        push_id(&q->awake, &q->nawake, &q->awake_cap, c);
    }
}

/* Drop c's gaps and the room before head: its jobs move to the front.
 * Not during a merge (sched.c queues nothing mid-scan). */
static void compact(struct sclass *c)
{
    size_t k = 0;
    for (size_t i = c->head; i < c->n; i++)
        if (!c->gap[i]) {
            c->jobs[k] = c->jobs[i];
            c->gap[k++] = 0;
        }
    c->n = k;
    c->head = c->it = c->ngaps = 0;
}

void squeue_add(struct sched *s, struct job *j)
{
    struct squeue *q = s->q;
    j->qclass = class_of(s, j);
    struct sclass *c = &q->cls[j->qclass];
    if (c->n == c->cap && (c->head > 0 || c->ngaps > 0))
        compact(c); /* reuse the room popped and removed jobs left */
    if (c->n == c->cap) {
        size_t cap = c->cap;
        xgrow(&c->jobs, &c->cap, c->n + 1, sizeof *c->jobs);
        xgrow(&c->gap, &cap, c->n + 1, sizeof *c->gap);
    }
    /* Upper bound: the first entry j goes before. */
    size_t lo = c->head, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(s, j, c->jobs[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo > c->head && c->gap[lo - 1]) { /* fill the gap just before */
        lo--;
        c->ngaps--;
    } else { /* shift up to the nearest gap after lo, or to a new end */
        const uint8_t *g = memchr(c->gap + lo, 1, c->n - lo);
        size_t end = g ? (size_t)(g - c->gap) : c->n++;
        memmove(&c->jobs[lo + 1], &c->jobs[lo], (end - lo) * sizeof *c->jobs);
        c->gap[end] = 0; /* none in [lo, end): the flags stay */
        c->ngaps -= g != NULL;
    }
    c->jobs[lo] = j;
    c->gap[lo] = 0;
    if (c->state == CLASS_EMPTY)
        set_state(q, j->qclass, CLASS_AWAKE);
}

/* Step from entry i of c to the next that is no gap (or n). */
static size_t next_live(const struct sclass *c, size_t i)
{
    while (++i < c->n && c->gap[i])
        ;
    return i;
}

/* Class c lost a job: when it has none left it is empty. */
static void emptied(struct squeue *q, int32_t c)
{
    struct sclass *k = &q->cls[c];
    if (k->head == k->n) {
        k->head = k->n = k->it = k->ngaps = 0;
        set_state(q, c, CLASS_EMPTY);
    }
}

void squeue_remove(struct sched *s, struct job *j)
{
    struct squeue *q = s->q;
    struct sclass *c = &q->cls[j->qclass];
    /* The class is in queue order: j is the first entry not before it,
     * unless a plugin's queue_less read something that changed since j
     * was queued; then look for it. */
    size_t i = c->head, hi = c->n;
    while (i < hi) {
        size_t mid = i + (hi - i) / 2;
        if (before(s, c->jobs[mid], j))
            i = mid + 1;
        else
            hi = mid;
    }
    if (i == c->n || c->jobs[i] != j || c->gap[i])
        for (i = c->n; i-- > c->head && (c->jobs[i] != j || c->gap[i]);)
            ;
    if (i >= c->head && i < c->n) {
        c->gap[i] = 1;
        c->ngaps++;
        if (c->it == i) /* the merge goes on with the next job */
            c->it = next_live(c, i);
        if (i == c->head) {
            size_t h = next_live(c, i);
            c->ngaps -= h - i;
            c->head = h;
        }
    }
    emptied(q, j->qclass);
}

bool squeue_asleep(const struct sched *s, const struct job *j)
{
    return s->q->cls[j->qclass].state == CLASS_ASLEEP;
}

void squeue_sleep(struct sched *s, const struct job *j)
{
    set_state(s->q, j->qclass, CLASS_ASLEEP);
}

struct squeue_room *squeue_room(struct sched *s, const struct job *j)
{
    return &s->q->cls[j->qclass].room;
}

size_t squeue_wake(struct sched *s, bool (*can_wake)(struct sched *s, const struct job *j))
{
    struct squeue *q = s->q;
    size_t woken = 0;
    for (size_t i = 0; i < q->nsleeping;) {
        int32_t c = q->sleeping[i];
        if (can_wake(s, q->cls[c].jobs[q->cls[c].head])) {
            set_state(q, c, CLASS_AWAKE); /* the last one moves to i */
            woken++;
        } else {
            i++;
        }
    }
    return woken;
}

/* ---- the merge: a binary heap of classes by their job at it ---------- */

static bool heap_less(const struct sched *s, int32_t a, int32_t b)
{
    const struct sclass *x = &s->q->cls[a], *y = &s->q->cls[b];
    return before(s, x->jobs[x->it], y->jobs[y->it]);
}

static void heap_down(const struct sched *s, size_t i)
{
    struct squeue *q = s->q;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < q->nheap && heap_less(s, q->heap[l], q->heap[m]))
            m = l;
        if (l + 1 < q->nheap && heap_less(s, q->heap[l + 1], q->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        int32_t t = q->heap[i];
        q->heap[i] = q->heap[m];
        q->heap[m] = t;
        i = m;
    }
}

static void heap_add(const struct sched *s, int32_t c)
{
    struct squeue *q = s->q;
    push_id(&q->heap, &q->nheap, &q->heap_cap, c);
    q->cls[c].in_heap = true;
    for (size_t i = q->nheap - 1; i > 0 && heap_less(s, q->heap[i], q->heap[(i - 1) / 2]); i = (i - 1) / 2) {
        int32_t t = q->heap[i];
        q->heap[i] = q->heap[(i - 1) / 2];
        q->heap[(i - 1) / 2] = t;
    }
}

static void heap_pop(const struct sched *s)
{
    struct squeue *q = s->q;
    q->cls[q->heap[0]].in_heap = false;
    q->heap[0] = q->heap[--q->nheap];
    heap_down(s, 0);
}

/* Every non-empty class into the heap, from its first job. */
static void heap_all(struct sched *s)
{
    struct squeue *q = s->q;
    q->nheap = 0;
    for (size_t c = 0; c < q->ncls; c++)
        if (q->cls[c].n > q->cls[c].head) {
            q->cls[c].it = q->cls[c].head;
            heap_add(s, (int32_t)c);
        }
}

void squeue_begin(struct sched *s, bool all)
{
    struct squeue *q = s->q;
    if (all) {
        heap_all(s);
    } else {
        q->nheap = 0;
        for (size_t i = 0; i < q->nawake; i++) {
            struct sclass *c = &q->cls[q->awake[i]];
            if (c->state == CLASS_AWAKE && !c->in_heap) {
                c->it = c->head;
                heap_add(s, q->awake[i]);
            }
        }
    }
    q->nawake = 0;
}

struct job *squeue_next(struct sched *s)
{
    struct squeue *q = s->q;
    if (!q->nheap)
        return NULL;
    const struct sclass *c = &q->cls[q->heap[0]];
    return c->jobs[c->it];
}

void squeue_started(struct sched *s)
{
    struct squeue *q = s->q;
    int32_t id = q->heap[0];
    struct sclass *c = &q->cls[id];
    size_t h = next_live(c, c->head);
    c->ngaps -= h - c->head - 1;
    c->it = c->head = h;
    if (c->head == c->n) {
        heap_pop(s);
        emptied(q, id);
    } else {
        heap_down(s, 0);
    }
}

void squeue_failed(struct sched *s)
{
    struct squeue *q = s->q;
    int32_t id = q->heap[0];
    heap_pop(s);
    set_state(q, id, CLASS_ASLEEP);
}

void squeue_end(struct sched *s)
{
    struct squeue *q = s->q;
    for (size_t i = 0; i < q->nheap; i++)
        q->cls[q->heap[i]].in_heap = false;
    q->nheap = 0;
    q->nawake = 0;
}

void squeue_each(struct sched *s, bool (*fn)(void *ctx, const struct job *j), void *ctx)
{
    struct squeue *q = s->q;
    heap_all(s);
    while (q->nheap) {
        struct sclass *c = &q->cls[q->heap[0]];
        if (!fn(ctx, c->jobs[c->it]))
            break;
        if ((c->it = next_live(c, c->it)) == c->n)
            heap_pop(s);
        else
            heap_down(s, 0);
    }
    squeue_end(s);
}
