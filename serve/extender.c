/* extender.c - the scheduler-extender protocol over sched/ (see extender.h). */
#include "extender.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "strmap.h"

/* A node as learnt from its objects, and what the extender knows it holds. */
struct srv_node {
    char *name;
    int32_t type, gpus, cpu, mem;      /* as the node object says */
    int32_t id;                        /* in the cluster view: name order */
    int16_t anno[CLUSTER_MAX_NODE_GPUS];  /* milli in use per GPU, annotated */
    int16_t pend[CLUSTER_MAX_NODE_GPUS];  /* milli of decisions not annotated yet */
    int32_t cpu_used, mem_used;        /* the extender's decisions */
    size_t *pending;                   /* pods decided here, not annotated yet */
    size_t npending, pending_cap;
    char *text;                        /* the node object last learnt from */
    size_t text_n, text_cap;
};

/* A decision. */
struct srv_pod {
    char *key;             /* "namespace/name" */
    size_t node;           /* index into extender.nodes */
    uint64_t mask;         /* GPUs of the node (bit i) */
    int32_t milli, cpu, mem, gpus;
    bool pending;          /* not listed by the node's annotation yet */
};

struct extender {
    struct extender_options o;
    struct srv_node *nodes;            /* in the order learnt */
    size_t nnodes, nodes_cap;
    struct strmap node_ix, pod_ix;
    struct srv_pod *pods;
    size_t npods, pods_cap;
    size_t *by_id;                     /* cluster node id -> nodes index */
    struct cluster *cl;                /* NULL until a GPU node is known */
    struct sched s;
    uint64_t *only;                    /* candidates, over cluster ids */
    bool stale;                        /* a node was learnt or changed */
    char last_pod[K8S_KEY_MAX];
    const char *last_node;
    struct jscan scan;                 /* the request, kept for its arrays */
    struct k8s_node kn;                /* scratch for one node object */
    struct cand *cands;                /* the request's candidates */
    size_t cands_cap;
    struct extender_stats st;
};

struct extender *extender_new(const struct extender_options *o)
{
    struct extender *x = xcalloc(1, sizeof *x);
    x->o = *o;
    return x;
}

static void drop_view(struct extender *x)
{
    if (x->cl)
        sched_fini(&x->s);
    cluster_free(x->cl);
    x->cl = NULL;
    free(x->by_id);
    free(x->only);
    x->by_id = NULL;
    x->only = NULL;
}

void extender_free(struct extender *x)
{
    if (!x)
        return;
    drop_view(x);
    for (size_t i = 0; i < x->nnodes; i++) {
        free(x->nodes[i].name);
        free(x->nodes[i].pending);
        free(x->nodes[i].text);
    }
    free(x->nodes);
    for (size_t p = 0; p < x->npods; p++)
        free(x->pods[p].key);
    free(x->pods);
    jscan_free(&x->scan);
    k8s_node_fini(&x->kn);
    free(x->cands);
    strmap_free(&x->node_ix);
    strmap_free(&x->pod_ix);
    free(x);
}

const struct extender_stats *extender_stats(const struct extender *x)
{
    return &x->st;
}

const char *extender_last_pod(const struct extender *x)
{
    return x->last_pod;
}

const char *extender_last_node(const struct extender *x)
{
    return x->last_node;
}

const char *extender_policy(const struct extender *x)
{
    return x->o.policy->name;
}

/* Tell the policy that node id changed under it (an annotation, a node
 * rebuilt): a CPU-only stub placed there makes policies that cache per
 * node (fgd) look again, and leaves per-pod counts (gpu-clustering) alone. */
static void touched(struct extender *x, int32_t id)
{
    if (!x->s.policy->on_job)
        return;
    struct job stub = {.node = id, .nnodes = 1, .milli = GPU_MILLI, .type = (int16_t)x->cl->nodes[id].type};
    x->s.policy->on_job(x->s.ctx, x->cl, &stub, true);
}

/* Bring node i of the view to what the extender knows it holds. */
static void sync_node(struct extender *x, size_t i)
{
    const struct srv_node *n = &x->nodes[i];
    struct node *nd = &x->cl->nodes[n->id];
    bool changed = false;
    for (int g = 0; g < n->gpus; g++) {
        int want = GPU_MILLI - n->anno[g] - n->pend[g];
        want = want < 0 ? 0 : want > GPU_MILLI ? GPU_MILLI : want;
        int d = want - x->cl->milli[nd->gpu0 + g];
        if (d > 0)
            cluster_give(x->cl, n->id, 1ULL << g, d, 0, 0);
        else if (d < 0)
            cluster_take(x->cl, n->id, 1ULL << g, -d, 0, 0);
        changed |= d != 0;
    }
    int dc = n->cpu - n->cpu_used - nd->cpu_free, dm = n->mem - n->mem_used - nd->mem_free;
    if (dc || dm)
        cluster_give(x->cl, n->id, 0, 0, dc, dm);
    if (changed || dc || dm)
        touched(x, n->id);
}

struct named {
    const char *name;
    size_t i;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* Rebuild the cluster view and the policy's state from every GPU node
 * known, in name order. */
static void rebuild(struct extender *x)
{
    drop_view(x);
    x->stale = false;
    for (size_t i = 0; i < x->nnodes; i++)
        x->nodes[i].id = -1;
    size_t m = 0, *order = xmalloc((x->nnodes + 1) * sizeof *order);
    struct named *nm = xmalloc((x->nnodes + 1) * sizeof *nm);
    for (size_t i = 0; i < x->nnodes; i++)
        if (x->nodes[i].type >= 0)
            nm[m++] = (struct named){x->nodes[i].name, i};
    qsort(nm, m, sizeof *nm, by_name);
    for (size_t k = 0; k < m; k++)
        order[k] = nm[k].i;
    free(nm);
    if (!m) {
        free(order);
        return;
    }
    struct fleet_group *g = xmalloc(m * sizeof *g);
    for (size_t k = 0; k < m; k++) {
        struct srv_node *n = &x->nodes[order[k]];
        n->id = (int32_t)k;
        g[k] = (struct fleet_group){.type = n->type, .nodes = 1, .gpus_per_node = n->gpus,
                                    .cpu_milli = n->cpu, .mem_mib = n->mem};
    }
    x->cl = cluster_new(x->o.cat, g, (int)m);
    free(g);
    x->by_id = order;
    x->only = xcalloc(x->cl->nwords, sizeof *x->only);
    sched_init(&x->s, x->cl, x->o.policy);
    x->s.pods = true;
    sched_prepare(&x->s, x->o.workload, x->o.nworkload, x->o.seed);
    /* Ties by node id, which is name order (extender.h). */
    free(x->s.rank);
    x->s.rank = NULL;
    cluster_order(x->cl, NULL);
    for (size_t k = 0; k < m; k++)
        sync_node(x, order[k]);
    /* The policy hears of every pod decided so far. */
    for (size_t p = 0; p < x->npods && x->s.policy->on_job; p++) {
        const struct srv_pod *d = &x->pods[p];
        if (d->node == (size_t)-1 || x->nodes[d->node].id < 0)
            continue;  /* taken back, or on a node no longer in the view */
        struct job j = {.node = x->nodes[d->node].id, .nnodes = 1, .gpus = d->gpus,
                        .milli = (int16_t)d->milli, .gpu_mask = d->mask, .cpu_milli = d->cpu,
                        .mem_mib = d->mem, .type = (int16_t)x->nodes[d->node].type};
        x->s.policy->on_job(x->s.ctx, x->cl, &j, true);
    }
    x->st.rebuilds++;
}

/* The pod's pending share comes off (or, with sign +1, goes on) its node. */
static void count_pending(struct extender *x, const struct srv_pod *d, int sign)
{
    struct srv_node *n = &x->nodes[d->node];
    for (int g = 0; g < CLUSTER_MAX_NODE_GPUS; g++)
        if (d->mask >> g & 1)
            n->pend[g] = (int16_t)(n->pend[g] + sign * d->milli);
}

/* Learn node kn (or what changed about it).  RET: its index. */
static size_t learn(struct extender *x, struct k8s_node *kn)
{
    size_t i = strmap_get(&x->node_ix, kn->name);
    if (i == (size_t)-1) {
        xgrow(&x->nodes, &x->nodes_cap, x->nnodes + 1, sizeof *x->nodes);
        i = x->nnodes++;
        x->nodes[i] = (struct srv_node){.name = xstrdup(kn->name), .type = -2, .id = -1};
        strmap_put(&x->node_ix, kn->name, i);
        x->st.nodes++;
    }
    struct srv_node *n = &x->nodes[i];
    if (n->type != kn->type || n->gpus != kn->gpus || n->cpu != kn->cpu_milli ||
        n->mem != kn->mem_mib) {
        n->type = kn->type;
        n->gpus = kn->gpus;
        n->cpu = kn->cpu_milli;
        n->mem = kn->mem_mib;
        x->stale = true;
    }
    if (!kn->shared)
        return i;
    memcpy(n->anno, kn->used, sizeof n->anno);
    /* Decisions the annotation lists now are part of it. */
    size_t kept = 0;
    for (size_t k = 0; k < n->npending; k++) {
        struct srv_pod *d = &x->pods[n->pending[k]];
        if (k8s_node_holds(kn, d->key)) {
            count_pending(x, d, -1);
            d->pending = false;
        } else {
            n->pending[kept++] = n->pending[k];
        }
    }
    n->npending = kept;
    return i;
}

/* One node a request offers. */
struct cand {
    struct jspan name;    /* the name as the request spells it */
    struct jspan obj;     /* the node object, or absent (names only) */
    size_t node;          /* index into extender.nodes, or -1: not known */
};

/* The node whose object obj (named name) is, byte for byte, the one it
 * was last learnt from, and which awaits no annotation (which learning
 * it again could settle): learning it again would change nothing.
 * kube-scheduler sends every candidate's object with every call, and
 * between two calls mostly one changes.  RET: its index, or -1. */
static size_t unchanged(const struct extender *x, struct jspan obj, struct jspan name)
{
    char buf[K8S_KEY_MAX];
    if (jscan_string(name, buf, sizeof buf) <= 0)
        return (size_t)-1;
    size_t i = strmap_get(&x->node_ix, buf);
    if (i == (size_t)-1)
        return i;
    const struct srv_node *n = &x->nodes[i];
    return n->npending == 0 && n->text_n == obj.n && memcmp(n->text, obj.p, obj.n) == 0 ? i : (size_t)-1;
}

/* The request's candidates into *c, learning the nodes it describes.
 * RET: 0 or FS_EDATA. */
static int candidates(struct extender *x, struct jspan req, size_t *nc, bool *by_names,
                      struct fs_err *err)
{
    const struct jscan *s = &x->scan;
    struct jspan nodes = jscan_get(s, req, "Nodes"), names = jscan_get(s, req, "NodeNames"), e;
    *by_names = !nodes.p || jspan_is(nodes, 'n');
    if (*by_names && (!names.p || jspan_is(names, 'n')))
        return fs_fail(err, FS_EDATA, "$: neither Nodes nor NodeNames is given");
    if (!*by_names && !jspan_is(nodes, '{'))
        return fs_fail(err, FS_EDATA, "$.Nodes: must be an object (a NodeList)");
    struct jspan list = *by_names ? names : jscan_get(s, nodes, "items");
    if (list.p && !jspan_is(list, '[') && !jspan_is(list, 'n'))
        return fs_fail(err, FS_EDATA, "%s: must be an array", *by_names ? "$.NodeNames" : "$.Nodes.items");
    size_t it = 0;
    char name[K8S_KEY_MAX];
    for (size_t i = 0; jscan_next(s, list, &it, NULL, &e); i++) {
        char path[48];
        xgrow(&x->cands, &x->cands_cap, *nc + 1, sizeof *x->cands);
        struct cand *k = &x->cands[(*nc)++];
        if (*by_names) {
            if (jscan_string(e, name, sizeof name) <= 0)
                return fs_fail(err, FS_EDATA, "$.NodeNames[%zu]: must be a node name", i);
            *k = (struct cand){.name = e, .node = strmap_get(&x->node_ix, name)};
        } else {
            struct jspan nm = jscan_path(s, e, (const char *const[]){"metadata", "name", NULL});
            *k = (struct cand){.name = nm, .obj = e, .node = unchanged(x, e, nm)};
            if (k->node != (size_t)-1)
                continue;
            snprintf(path, sizeof path, "$.Nodes.items[%zu]", i);
            if (k8s_node_parse(s, e, path, x->o.cat, &x->kn, err))
                return FS_EDATA;
            k->node = learn(x, &x->kn);  /* before x->nodes is read: it may move */
            struct srv_node *n = &x->nodes[k->node];
            xgrow(&n->text, &n->text_cap, e.n, 1);
            memcpy(n->text, e.p, e.n);
            n->text_n = e.n;
        }
    }
    return 0;
}

/* Take pod d's pending decision back (its node is no longer offered). */
static void undo(struct extender *x, struct srv_pod *d)
{
    struct srv_node *n = &x->nodes[d->node];
    if (d->pending) {
        count_pending(x, d, -1);
        size_t kept = 0;
        for (size_t k = 0; k < n->npending; k++)
            if (&x->pods[n->pending[k]] != d)
                n->pending[kept++] = n->pending[k];
        n->npending = kept;
    }
    n->cpu_used -= d->cpu;
    n->mem_used -= d->mem;
    d->node = (size_t)-1;
    if (x->cl && n->id >= 0)
        sync_node(x, (size_t)(n - x->nodes));
}

/* Record j's placement as pod key's decision.  RET: its index. */
static size_t record(struct extender *x, const char *key, size_t p, const struct job *j)
{
    if (p == (size_t)-1) {
        xgrow(&x->pods, &x->pods_cap, x->npods + 1, sizeof *x->pods);
        p = x->npods++;
        x->pods[p] = (struct srv_pod){.key = xstrdup(key)};
        strmap_put(&x->pod_ix, key, p);
        x->st.pods++;
    }
    struct srv_pod *d = &x->pods[p];
    struct srv_node *n = &x->nodes[x->by_id[j->node]];
    d->node = x->by_id[j->node];
    d->mask = j->gpu_mask;
    d->milli = j->milli;
    d->gpus = j->gpus;
    d->cpu = j->cpu_milli;
    d->mem = j->mem_mib;
    /* The annotation lists GPU pods only: a CPU-only pod is never pending. */
    d->pending = j->gpus > 0;
    n->cpu_used += d->cpu;
    n->mem_used += d->mem;
    if (d->pending) {
        count_pending(x, d, +1);
        xgrow(&n->pending, &n->pending_cap, n->npending + 1, sizeof *n->pending);
        n->pending[n->npending++] = p;
    }
    return p;
}

/* The node pod is placed on among the candidates: its earlier decision
 * when that node is still offered, else a new one.  RET: an index into
 * extender.nodes, or -1 when no candidate has room. */
static size_t decide(struct extender *x, const struct k8s_pod *pod, const struct cand *c,
                     size_t nc, enum extender_outcome *outcome)
{
    size_t p = strmap_get(&x->pod_ix, pod->key);
    if (p != (size_t)-1 && x->pods[p].node != (size_t)-1) {
        for (size_t k = 0; k < nc; k++)
            if (c[k].node == x->pods[p].node) {
                *outcome = EXT_KEPT;
                return c[k].node;
            }
        undo(x, &x->pods[p]);
    }
    *outcome = EXT_NO_ROOM;
    if (!x->cl)
        return (size_t)-1;
    memset(x->only, 0, x->cl->nwords * sizeof *x->only);
    for (size_t k = 0; k < nc; k++) {
        int32_t id = c[k].node == (size_t)-1 ? -1 : x->nodes[c[k].node].id;
        if (id >= 0 && x->nodes[c[k].node].type >= 0)
            x->only[id / 64] |= 1ULL << (id % 64);
    }
    struct job j = {.id = (int64_t)x->st.pods, .gpus = pod->gpus, .milli = (int16_t)pod->milli,
                    .cpu_milli = pod->cpu_milli, .mem_mib = pod->mem_mib,
                    .allowed = pod->allowed, .kind = JOB_BATCH};
    job_reset_placement(&j);
    x->s.only = x->only;
    bool placed = sched_try(&x->s, &j);
    x->s.only = NULL;
    if (!placed)
        return (size_t)-1;
    *outcome = EXT_PLACED;
    p = record(x, pod->key, p, &j);  /* before x->pods is read: it may move */
    return x->pods[p].node;
}

/* A reply as it is written. */
struct sbuf {
    char *p;
    size_t n, cap;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
    xgrow(&b->p, &b->cap, b->n + n + 1, 1);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void puts_(struct sbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* s as a JSON string. */
static void put_string(struct sbuf *b, const char *s)
{
    put(b, "\"", 1);
    for (const char *q = s; *q;) {
        size_t run = 0;
        while (q[run] && q[run] != '"' && q[run] != '\\' && (unsigned char)q[run] >= 0x20)
            run++;
        put(b, q, run);
        q += run;
        if (!*q)
            break;
        char esc[8];
        snprintf(esc, sizeof esc, *q == '"' || *q == '\\' ? "\\%c" : "\\u%04x",
                 *q == '"' || *q == '\\' ? (unsigned)*q : (unsigned)(unsigned char)*q);
        puts_(b, esc);
        q++;
    }
    put(b, "\"", 1);
}

static void put_span(struct sbuf *b, struct jspan v)
{
    put(b, v.p, v.n);
}

/* Why candidates were not chosen, as JSON strings: [0] not known, [1] not
 * a GPU node, [2] no room or another node chosen.  Written once a reply. */
static void reasons(const struct extender *x, size_t chosen, struct sbuf why[3])
{
    char buf[K8S_KEY_MAX + 96];
    put_string(&why[0], "fleetsim: node not known yet (it learns nodes from node objects: "
                        "nodeCacheCapable false)");
    put_string(&why[1], "fleetsim: not a GPU node");
    if (chosen == (size_t)-1)
        snprintf(buf, sizeof buf, "fleetsim: no room for the pod under policy %s", x->o.policy->name);
    else
        snprintf(buf, sizeof buf, "fleetsim: policy %s chose %s", x->o.policy->name, x->nodes[chosen].name);
    put_string(&why[2], buf);
}

/* ExtenderFilterResult: the chosen node only (as the request gave it: its
 * object or its name), the others failed with the reason. */
static void filter_reply(const struct extender *x, const struct cand *c, size_t nc, bool by_names,
                         size_t chosen, struct sbuf *b)
{
    struct sbuf why[3] = {{0}};
    bool given = false;
    reasons(x, chosen, why);
    puts_(b, by_names ? "{\"Nodes\":null,\"NodeNames\":[" : "{\"Nodes\":{\"items\":[");
    for (size_t k = 0; k < nc && chosen != (size_t)-1 && !given; k++)
        if (c[k].node == chosen) {
            given = true;  /* a node listed twice is answered once */
            put_span(b, by_names ? c[k].name : c[k].obj);
        }
    puts_(b, by_names ? "],\"FailedNodes\":{" : "]},\"NodeNames\":null,\"FailedNodes\":{");
    bool first = true;
    for (size_t k = 0; k < nc; k++) {
        if (chosen != (size_t)-1 && c[k].node == chosen)
            continue;
        if (!first)
            put(b, ",", 1);
        first = false;
        put_span(b, c[k].name);
        put(b, ":", 1);
        const struct sbuf *w = &why[c[k].node == (size_t)-1 ? 0 : x->nodes[c[k].node].type < 0 ? 1 : 2];
        put(b, w->p, w->n);
    }
    puts_(b, "},\"Error\":\"\"}");
    for (int i = 0; i < 3; i++)
        free(why[i].p);
}

/* HostPriorityList: the chosen node scores the protocol's top, 10; the
 * others 0. */
static void prioritize_reply(const struct cand *c, size_t nc, size_t chosen, struct sbuf *b)
{
    put(b, "[", 1);
    for (size_t k = 0; k < nc; k++) {
        puts_(b, k ? ",{\"Host\":" : "{\"Host\":");
        put_span(b, c[k].name);
        puts_(b, chosen != (size_t)-1 && c[k].node == chosen ? ",\"Score\":10}" : ",\"Score\":0}");
    }
    put(b, "]", 1);
}

int extender_handle(struct extender *x, enum extender_verb verb, const char *body, size_t len,
                    char **reply, enum extender_outcome *outcome)
{
    struct fs_err err = {0};
    struct k8s_pod pod;
    struct cand *c;
    struct jspan req;
    struct sbuf b = {0};
    size_t nc = 0, at;
    bool by_names = false;
    *outcome = EXT_BAD_REQUEST;
    x->last_pod[0] = '\0';
    x->last_node = "";
    if (jscan_check(&x->scan, body, len, &req, &at))
        fs_fail(&err, FS_EDATA, "the body is not JSON (byte %zu)", at);
    else if (!jspan_is(req, '{'))
        fs_fail(&err, FS_EDATA, "the body is not a JSON object (ExtenderArgs)");
    else if (!k8s_pod_parse(&x->scan, jscan_get(&x->scan, req, "Pod"), x->o.cat, &pod, &err) &&
             !candidates(x, req, &nc, &by_names, &err)) {
        c = x->cands;
        if (x->stale)
            rebuild(x);
        else
            for (size_t k = 0; k < nc && x->cl; k++)
                if (c[k].node != (size_t)-1 && x->nodes[c[k].node].id >= 0)
                    sync_node(x, c[k].node);
        size_t chosen = decide(x, &pod, c, nc, outcome);
        memcpy(x->last_pod, pod.key, sizeof pod.key);
        x->last_node = chosen == (size_t)-1 ? "" : x->nodes[chosen].name;
        if (verb == EXT_FILTER)
            filter_reply(x, c, nc, by_names, chosen, &b);
        else
            prioritize_reply(c, nc, chosen, &b);
    }
    if (*outcome == EXT_BAD_REQUEST) {
        puts_(&b, "{\"Error\":");
        put_string(&b, err.msg);
        put(&b, "}", 1);
    }
    x->st.outcomes[*outcome]++;
    *reply = b.p;
    return *outcome == EXT_BAD_REQUEST ? 400 : 200;
}
