/* test_serve.c - fleetsim serve's parts without the network (Kubernetes
 * quantities are test_quantity.c's): JSON read in place, pod and node
 * objects, and the extender's decisions on hand-built requests whose
 * answers are worked out by hand; the captured kube-scheduler requests
 * (tests/serve/captured, from the FGD authors' simulator) answered byte
 * for byte as tests/serve/expected holds, twice over; and 10,000 mutated
 * requests answered without a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../serve/extender.h"
#include "../serve/k8s.h"
#include "testutil.h"

/* ---- pod and node objects ------------------------------------------------ */

static char *slurp(const char *rel, size_t *len)
{
    FILE *f = fopen(tu_path(rel), "rb");
    if (!f)
        return NULL;
    char *buf = xmalloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Scan text into s.  RET: its root. */
static struct jspan scan(struct jscan *s, const char *text)
{
    struct jspan root;
    size_t at;
    CU_ASSERT_EQUAL(jscan_check(s, text, strlen(text), &root, &at), 0);
    return root;
}

static void test_jscan(void)
{
    struct jscan s = {0};
    struct jspan r = scan(&s, " {\"a\": [1, -2.5e3, \"x\\\"y\\u00e9\"], \"b\": {\"c\": null}, \"d\": true} ");
    char buf[16];
    struct jspan a = jscan_get(&s, r, "a"), v;
    size_t it = 0;
    int n = 0;
    while (jscan_next(&s, a, &it, NULL, &v))
        n++;
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_TRUE(jspan_is(jscan_path(&s, r, (const char *const[]){"b", "c", NULL}), 'n'));
    CU_ASSERT_TRUE(jspan_is(jscan_get(&s, r, "d"), 't'));
    CU_ASSERT_PTR_NULL(jscan_get(&s, r, "e").p);
    it = 0;
    jscan_next(&s, a, &it, NULL, &v);
    jscan_next(&s, a, &it, NULL, &v);
    CU_ASSERT_EQUAL(v.n, 6);  /* -2.5e3 */
    jscan_next(&s, a, &it, NULL, &v);
    CU_ASSERT_EQUAL(jscan_string(v, buf, sizeof buf), 5);  /* é is 2 bytes */
    CU_ASSERT_STRING_EQUAL(buf, "x\"y\xc3\xa9");
    CU_ASSERT_EQUAL(jscan_string(v, buf, 4), -1);  /* does not fit */
    /* A surrogate pair is one code point: U+1F600, 4 bytes of UTF-8. */
    v = scan(&s, "\"a\\ud83d\\ude00b\"");
    CU_ASSERT_EQUAL(jscan_string(v, buf, sizeof buf), 6);
    CU_ASSERT_STRING_EQUAL(buf, "a\xf0\x9f\x98\x80" "b");
    static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "{\"a\":01}", "\"\\x\"", "[1] 2",
                                      "tru", "{\"a\":\"\x01\"}", "-", "1.", "1e", "[\"\\u12g4\"]", "{,}",
                                      /* surrogates only as pairs: lone high, lone low, high then
                                       * no low, high cut short */
                                      "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"\\ud83d\\ude0\""};
    for (size_t i = 0; i < FS_ARRAY_LEN(bad); i++) {
        size_t at;
        CU_ASSERT_EQUAL(jscan_check(&s, bad[i], strlen(bad[i]), &r, &at), -1);
    }
    /* A control byte or a quote at any place of a long string is seen,
     * and an escape is read (strings are scanned eight bytes at a time). */
    for (int len = 1; len < 24; len++)
        for (int k = 0; k < len; k++) {
            char str[32];
            size_t end;
            memset(str, 'a', sizeof str);
            str[0] = str[len + 1] = '"';
            str[len + 2] = '\0';
            CU_ASSERT_EQUAL(jscan_check(&s, str, strlen(str), &r, &end), 0);
            str[1 + k] = '\x1f';
            CU_ASSERT_EQUAL(jscan_check(&s, str, strlen(str), &r, &end), -1);
            str[1 + k] = '"';  /* ends it early: an unterminated one follows */
            CU_ASSERT_EQUAL(jscan_check(&s, str, strlen(str), &r, &end), -1);
            str[1 + k] = '\\';  /* "\a" is no escape, "\n" one; "\"" escapes the end */
            CU_ASSERT_EQUAL(jscan_check(&s, str, strlen(str), &r, &end), -1);
            str[2 + k] = 'n';
            CU_ASSERT_EQUAL(jscan_check(&s, str, strlen(str), &r, &end), k + 1 < len ? 0 : -1);
        }
    /* Nesting past JSCAN_MAX_DEPTH is refused, not recursed into. */
    char deep[2 * JSCAN_MAX_DEPTH + 3];
    memset(deep, '[', JSCAN_MAX_DEPTH + 1);
    memset(deep + JSCAN_MAX_DEPTH + 1, ']', JSCAN_MAX_DEPTH + 1);
    size_t at;
    CU_ASSERT_EQUAL(jscan_check(&s, deep, 2 * JSCAN_MAX_DEPTH + 2, &r, &at), -1);
    CU_ASSERT_EQUAL(jscan_check(&s, deep + 1, 2 * JSCAN_MAX_DEPTH, &r, &at), 0);
    jscan_free(&s);
}

static void test_objects(void)
{
    size_t len;
    char *text = slurp("tests/serve/captured/filter-request-nodeCacheCapable-false-pod0009.json", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    struct jscan s = {0};
    struct jspan req = scan(&s, text);
    struct k8s_pod pod;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL(k8s_pod_parse(&s, jscan_get(&s, req, "Pod"), tu_cat, &pod, &err), 0);
    CU_ASSERT_STRING_EQUAL(pod.key, "paib-gpu/openb-pod-0009");
    CU_ASSERT_EQUAL(pod.gpus, 1);
    CU_ASSERT_EQUAL(pod.milli, 1000);
    CU_ASSERT_EQUAL(pod.cpu_milli, 12000);
    CU_ASSERT_EQUAL(pod.mem_mib, 16384);
    int v16 = gpu_catalog_find(tu_cat, "v100m16"), v32 = gpu_catalog_find(tu_cat, "v100m32");
    CU_ASSERT_EQUAL(pod.allowed, (1ULL << v16) | (1ULL << v32));

    struct jspan items = jscan_get(&s, jscan_get(&s, req, "Nodes"), "items"), first;
    size_t it = 0;
    CU_ASSERT_TRUE(jscan_next(&s, items, &it, NULL, &first));
    struct k8s_node n = {0};
    CU_ASSERT_EQUAL(k8s_node_parse(&s, first, "$.Nodes.items[0]", tu_cat, &n, &err), 0);
    CU_ASSERT_STRING_EQUAL(n.name, "0001-openb-node-0024");
    CU_ASSERT_EQUAL(n.type, v32);
    CU_ASSERT_EQUAL(n.gpus, 8);
    CU_ASSERT_EQUAL(n.cpu_milli, 96000);
    CU_ASSERT_EQUAL(n.mem_mib, 768 * 1024);
    CU_ASSERT_FALSE(n.shared);
    k8s_node_fini(&n);
    jscan_free(&s);
    free(text);

    /* The GPU-share annotation, as the simulator writes it. */
    const char *node = "{\"metadata\":{\"name\":\"n\",\"labels\":{\"alibabacloud.com/gpu-card-model\":"
                       "\"V100M16\"},\"annotations\":{\"simon/node-gpu-share\":\"{\\\"DevsBrief\\\":"
                       "{\\\"0\\\":{\\\"Idx\\\":0,\\\"PodList\\\":[\\\"ns/a\\\",\\\"ns/b\\\"],"
                       "\\\"GpuUsedMilli\\\":700},\\\"3\\\":{\\\"PodList\\\":[\\\"ns/c\\\"],"
                       "\\\"GpuUsedMilli\\\":1000}},\\\"GpuCount\\\":4}\"}},\"status\":{\"allocatable\":"
                       "{\"alibabacloud.com/gpu-count\":\"4\",\"cpu\":\"32\",\"memory\":\"128Gi\"}}}";
    CU_ASSERT_EQUAL(k8s_node_parse(&s, scan(&s, node), "$.Nodes.items[1]", tu_cat, &n, &err), 0);
    CU_ASSERT_TRUE(n.shared);
    CU_ASSERT_EQUAL(n.gpus, 4);
    CU_ASSERT_EQUAL(n.used[0], 700);
    CU_ASSERT_EQUAL(n.used[1], 0);
    CU_ASSERT_EQUAL(n.used[3], 1000);
    CU_ASSERT_TRUE(k8s_node_holds(&n, "ns/b"));
    CU_ASSERT_TRUE(k8s_node_holds(&n, "ns/c"));
    CU_ASSERT_FALSE(k8s_node_holds(&n, "ns/d"));
    k8s_node_fini(&n);
    /* A GPU index past the node's count is an error naming the path. */
    const char *past = "{\"metadata\":{\"name\":\"n\",\"labels\":{\"alibabacloud.com/gpu-card-model\":"
                       "\"V100M16\"},\"annotations\":{\"simon/node-gpu-share\":\"{\\\"DevsBrief\\\":"
                       "{\\\"4\\\":{\\\"GpuUsedMilli\\\":10}}}\"}},\"status\":{\"allocatable\":"
                       "{\"alibabacloud.com/gpu-count\":\"4\"}}}";
    CU_ASSERT_EQUAL(k8s_node_parse(&s, scan(&s, past), "$.Nodes.items[1]", tu_cat, &n, &err), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "$.Nodes.items[1].metadata.annotations.simon/node-gpu-share"));
    k8s_node_fini(&n);
    jscan_free(&s);
}

/* ---- hand-built requests ------------------------------------------------- */

/* A node object: name, openb model, GPUs, cores, GiB, and the GPU-share
 * annotation (NULL: none). */
static cJSON *node_obj(const char *name, const char *model, int gpus, int cores, int gib,
                       const char *share)
{
    char buf[64];
    cJSON *n = cJSON_CreateObject(), *md = cJSON_AddObjectToObject(n, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "labels"), "alibabacloud.com/gpu-card-model", model);
    if (share)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "annotations"), "simon/node-gpu-share", share);
    cJSON *alloc = cJSON_AddObjectToObject(cJSON_AddObjectToObject(n, "status"), "allocatable");
    snprintf(buf, sizeof buf, "%d", gpus);
    cJSON_AddStringToObject(alloc, "alibabacloud.com/gpu-count", buf);
    snprintf(buf, sizeof buf, "%d", cores);
    cJSON_AddStringToObject(alloc, "cpu", buf);
    snprintf(buf, sizeof buf, "%dGi", gib);
    cJSON_AddStringToObject(alloc, "memory", buf);
    return n;
}

/* A request for pod name (GPUs x milli, cores) over nodes (consumed). */
static char *request(const char *name, int gpus, int milli, int cores, cJSON *nodes)
{
    char buf[32];
    cJSON *r = cJSON_CreateObject(), *pod = cJSON_AddObjectToObject(r, "Pod");
    cJSON *md = cJSON_AddObjectToObject(pod, "metadata"), *annos;
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", "ns");
    annos = cJSON_AddObjectToObject(md, "annotations");
    snprintf(buf, sizeof buf, "%d", gpus);
    cJSON_AddStringToObject(annos, "alibabacloud.com/gpu-count", buf);
    snprintf(buf, sizeof buf, "%d", milli);
    cJSON_AddStringToObject(annos, "alibabacloud.com/gpu-milli", buf);
    cJSON *c = cJSON_CreateObject(), *req = cJSON_CreateObject();
    snprintf(buf, sizeof buf, "%d", cores);
    cJSON_AddStringToObject(req, "cpu", buf);
    cJSON_AddStringToObject(req, "memory", "1Gi");
    cJSON_AddItemToObject(cJSON_AddObjectToObject(c, "resources"), "requests", req);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_AddObjectToObject(pod, "spec"), "containers"), c);
    cJSON_AddItemToObject(cJSON_AddObjectToObject(r, "Nodes"), "items", nodes);
    cJSON_AddNullToObject(r, "NodeNames");
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return s;
}

static cJSON *list(cJSON *a, cJSON *b)
{
    cJSON *l = cJSON_CreateArray();
    cJSON_AddItemToArray(l, a);
    if (b)
        cJSON_AddItemToArray(l, b);
    return l;
}

static struct extender *new_extender(const char *policy)
{
    struct extender_options o = {.cat = tu_cat, .policy = sched_policy_find(policy), .seed = 42};
    CU_ASSERT_PTR_NOT_NULL_FATAL(o.policy);
    return extender_new(&o);
}

/* Filter req (freed) and return the chosen node's name ("" for none) in a
 * static buffer, with the outcome. */
static const char *filter(struct extender *x, char *req, enum extender_outcome *out)
{
    static char chosen[64];
    char *reply;
    int status = extender_handle(x, EXT_FILTER, req, strlen(req), &reply, out);
    free(req);
    CU_ASSERT_EQUAL(status, 200);
    cJSON *r = cJSON_Parse(reply);
    const cJSON *items = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "Nodes"), "items");
    CU_ASSERT(cJSON_GetArraySize(items) <= 1);
    const cJSON *name = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "metadata"), "name");
    snprintf(chosen, sizeof chosen, "%s", cJSON_IsString(name) ? name->valuestring : "");
    CU_ASSERT_STRING_EQUAL(extender_last_node(x), chosen);
    cJSON_Delete(r);
    free(reply);
    return chosen;
}

/* Node a holds 1000 and 700 of its two GPUs by its annotation; b is empty.
 * A share of 500 fits only b, although best-fit-share, blind to the
 * annotation, would take a (the fuller node first; a tie goes to a). */
static void test_annotation_read(void)
{
    struct extender *x = new_extender("best-fit-share");
    enum extender_outcome out;
    const char *share = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":1000,\"PodList\":[\"o/p\"]},"
                        "\"1\":{\"GpuUsedMilli\":700,\"PodList\":[\"o/q\"]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("p1", 1, 500, 1, list(node_obj("a", "G2", 2, 8, 64, share),
                                                                     node_obj("b", "G2", 2, 8, 64, NULL))),
                                  &out), "b");
    CU_ASSERT_EQUAL(out, EXT_PLACED);
    /* 300 is left on a's GPU 1: a share of 300 now goes there (the
     * fuller node). */
    CU_ASSERT_STRING_EQUAL(filter(x, request("p2", 1, 300, 1, list(node_obj("a", "G2", 2, 8, 64, share),
                                                                     node_obj("b", "G2", 2, 8, 64, NULL))),
                                  &out), "a");
    extender_free(x);
}

/* One node of one GPU.  Decisions count until the annotation lists them;
 * once listed, the annotation alone says what the GPU holds. */
static void test_pending(void)
{
    struct extender *x = new_extender("best-fit-share");
    enum extender_outcome out;
    CU_ASSERT_STRING_EQUAL(filter(x, request("p1", 1, 600, 1, list(node_obj("a", "G2", 1, 8, 64, NULL), NULL)), &out), "a");
    /* No annotation yet: p1's 600 still counts, so 600 more does not fit. */
    CU_ASSERT_STRING_EQUAL(filter(x, request("p2", 1, 600, 1, list(node_obj("a", "G2", 1, 8, 64, NULL), NULL)), &out), "");
    CU_ASSERT_EQUAL(out, EXT_NO_ROOM);
    CU_ASSERT_STRING_EQUAL(filter(x, request("p3", 1, 400, 1, list(node_obj("a", "G2", 1, 8, 64, NULL), NULL)), &out), "a");
    /* The annotation lists p1 only: p3's 400 is still pending, so the GPU
     * is full. */
    const char *p1 = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":600,\"PodList\":[\"ns/p1\"]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("p4", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, p1), NULL)), &out), "");
    /* Both listed, then both gone: the GPU is free again. */
    const char *both = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":1000,\"PodList\":[\"ns/p1\",\"ns/p3\"]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("p5", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, both), NULL)), &out), "");
    const char *none = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":0,\"PodList\":[]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("p6", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, none), NULL)), &out), "a");
    CU_ASSERT_EQUAL(extender_stats(x)->pods, 3);
    extender_free(x);
}

/* A node object sent again byte for byte is not parsed again: what the
 * node was last learnt from still holds, whichever version that was. */
static void test_resent(void)
{
    struct extender *x = new_extender("best-fit-share");
    enum extender_outcome out;
    const char *full = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":1000,\"PodList\":[\"o/x\"]}}}";
    const char *free_ = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":0,\"PodList\":[]}}}";
    const char *p2 = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":100,\"PodList\":[\"ns/p2\"]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("p1", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, full), NULL)), &out), "");
    CU_ASSERT_STRING_EQUAL(filter(x, request("p2", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, free_), NULL)), &out), "a");
    /* The first text again: the GPU is full again. */
    CU_ASSERT_STRING_EQUAL(filter(x, request("p3", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, full), NULL)), &out), "");
    /* p2 listed: 900 is left, also when the same object comes again. */
    CU_ASSERT_STRING_EQUAL(filter(x, request("p4", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, p2), NULL)), &out), "");
    CU_ASSERT_STRING_EQUAL(filter(x, request("p5", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, p2), NULL)), &out), "");
    CU_ASSERT_STRING_EQUAL(filter(x, request("p6", 1, 900, 1, list(node_obj("a", "G2", 1, 8, 64, p2), NULL)), &out), "a");
    CU_ASSERT_STRING_EQUAL(filter(x, request("p7", 1, 100, 1, list(node_obj("a", "G2", 1, 8, 64, p2), NULL)), &out), "");
    extender_free(x);
    /* An annotation that already lists a pod decided after it was read
     * settles the decision when it comes again, unchanged: 700 is left. */
    x = new_extender("best-fit-share");
    const char *ahead = "{\"DevsBrief\":{\"0\":{\"GpuUsedMilli\":300,\"PodList\":[\"ns/q1\"]}}}";
    CU_ASSERT_STRING_EQUAL(filter(x, request("q1", 1, 300, 1, list(node_obj("a", "G2", 1, 8, 64, ahead), NULL)), &out), "a");
    CU_ASSERT_STRING_EQUAL(filter(x, request("q2", 1, 700, 1, list(node_obj("a", "G2", 1, 8, 64, ahead), NULL)), &out), "a");
    extender_free(x);
}

/* The same pod asked again keeps its node while it is offered; when it is
 * not, the old decision is taken back and the pod decided afresh. */
static void test_repeat(void)
{
    struct extender *x = new_extender("best-fit-share");
    enum extender_outcome out;
    CU_ASSERT_STRING_EQUAL(filter(x, request("p", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, NULL),
                                                                    node_obj("b", "G2", 1, 8, 64, NULL))), &out), "a");
    CU_ASSERT_STRING_EQUAL(filter(x, request("p", 1, 1000, 1, list(node_obj("b", "G2", 1, 8, 64, NULL),
                                                                    node_obj("a", "G2", 1, 8, 64, NULL))), &out), "a");
    CU_ASSERT_EQUAL(out, EXT_KEPT);
    CU_ASSERT_STRING_EQUAL(filter(x, request("p", 1, 1000, 1, list(node_obj("b", "G2", 1, 8, 64, NULL), NULL)), &out), "b");
    CU_ASSERT_EQUAL(out, EXT_PLACED);
    /* a was given back: a whole GPU fits there again. */
    CU_ASSERT_STRING_EQUAL(filter(x, request("q", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, NULL), NULL)), &out), "a");
    CU_ASSERT_EQUAL(extender_stats(x)->pods, 2);
    CU_ASSERT_EQUAL(extender_stats(x)->outcomes[EXT_KEPT], 1);
    extender_free(x);
}

/* Ties go to the first node by name, whatever order requests list them in
 * or nodes were learnt in; nodes learnt later rebuild the view. */
static void test_name_order(void)
{
    struct extender *x = new_extender("fgd");
    enum extender_outcome out;
    CU_ASSERT_STRING_EQUAL(filter(x, request("p1", 1, 1000, 1, list(node_obj("n2", "G2", 8, 96, 512, NULL), NULL)), &out), "n2");
    /* n1 and n3 are new and empty; FGD without a workload scores every
     * node alike, so the first by name wins. */
    CU_ASSERT_STRING_EQUAL(filter(x, request("p2", 1, 1000, 1, list(node_obj("n3", "G2", 8, 96, 512, NULL),
                                                                     node_obj("n1", "G2", 8, 96, 512, NULL))), &out), "n1");
    CU_ASSERT_EQUAL(extender_stats(x)->nodes, 3);
    CU_ASSERT_EQUAL(extender_stats(x)->rebuilds, 2);
    extender_free(x);
}

/* Malformed requests: 400 with a message, and the extender still works. */
static void test_bad_requests(void)
{
    static const char *const bad[] = {
        "",
        "{",
        "[]",
        "{\"Pod\":null,\"Nodes\":{\"items\":[]}}",
        "{\"Pod\":{\"metadata\":{}},\"Nodes\":{\"items\":[]}}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"}}}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":{\"items\":7}}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[1]}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"annotations\":{\"alibabacloud.com/gpu-milli\":\"x\"}}},\"NodeNames\":[]}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"annotations\":{\"alibabacloud.com/gpu-milli\":\"500\",\"alibabacloud.com/gpu-count\":\"2\"}}},\"NodeNames\":[]}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"annotations\":{\"alibabacloud.com/gpu-card-model\":\"Z9\"}}},\"NodeNames\":[]}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}},\"NodeNames\":[]}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"n\",\"labels\":{\"alibabacloud.com/gpu-card-model\":\"Z9\"}},\"status\":{\"allocatable\":{\"alibabacloud.com/gpu-count\":\"1\"}}}]}}",
        "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":{\"cpu\":\"12Q\"}}}]}}",
    };
    struct extender *x = new_extender("fgd");
    for (size_t i = 0; i < FS_ARRAY_LEN(bad); i++) {
        char *reply;
        enum extender_outcome out;
        CU_ASSERT_EQUAL(extender_handle(x, EXT_FILTER, bad[i], strlen(bad[i]), &reply, &out), 400);
        CU_ASSERT_EQUAL(out, EXT_BAD_REQUEST);
        cJSON *r = cJSON_Parse(reply);
        const cJSON *e = cJSON_GetObjectItem(r, "Error");
        CU_ASSERT(cJSON_IsString(e) && strlen(e->valuestring) > 10);
        cJSON_Delete(r);
        free(reply);
    }
    enum extender_outcome out;
    CU_ASSERT_STRING_EQUAL(filter(x, request("p", 1, 1000, 1, list(node_obj("a", "G2", 1, 8, 64, NULL), NULL)), &out), "a");
    CU_ASSERT_EQUAL(extender_stats(x)->outcomes[EXT_BAD_REQUEST], FS_ARRAY_LEN(bad));
    extender_free(x);
}

/* ---- the captured requests ----------------------------------------------- */

static const char *const captured[] = {
    "filter-request-nodeCacheCapable-false-pod0009",
    "prioritize-request-nodeCacheCapable-false-pod0009",
    "filter-request-nodeCacheCapable-true",
    "prioritize-request-nodeCacheCapable-true",
};

/* FGD's typical pods: whole V100 GPUs, half GPUs and CPU-only pods. */
static void typical_pods(struct job *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        w[i] = (struct job){.id = (int64_t)i, .gpus = i % 3 != 2, .milli = i % 3 ? 500 : 1000,
                            .cpu_milli = 8000, .mem_mib = 1024};
        job_reset_placement(&w[i]);
    }
}

/* Answer the captured requests in order; each reply goes into got[i]. */
static void answer_captured(char *got[4])
{
    struct job w[30];
    typical_pods(w, FS_ARRAY_LEN(w));
    struct extender_options o = {.cat = tu_cat, .policy = sched_policy_find("fgd"),
                                 .workload = w, .nworkload = FS_ARRAY_LEN(w), .seed = 42};
    struct extender *x = extender_new(&o);
    for (size_t i = 0; i < FS_ARRAY_LEN(captured); i++) {
        char rel[160];
        size_t len;
        enum extender_outcome out;
        snprintf(rel, sizeof rel, "tests/serve/captured/%s.json", captured[i]);
        char *body = slurp(rel, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(body);
        CU_ASSERT_EQUAL(extender_handle(x, i % 2 ? EXT_PRIORITIZE : EXT_FILTER, body, len, &got[i], &out), 200);
        free(body);
    }
    extender_free(x);
}

static void test_captured(void)
{
    char *a[4], *b[4];
    answer_captured(a);
    answer_captured(b);
    const char *update = getenv("SERVE_UPDATE");
    for (size_t i = 0; i < FS_ARRAY_LEN(captured); i++) {
        char rel[160];
        size_t len;
        snprintf(rel, sizeof rel, "tests/serve/expected/%s.reply.json", captured[i]);
        CU_ASSERT_STRING_EQUAL(a[i], b[i]);   /* deterministic */
        if (update && *update) {
            FILE *f = fopen(tu_path(rel), "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            fputs(a[i], f);
            fclose(f);
        }
        char *want = slurp(rel, &len);
        CU_ASSERT_PTR_NOT_NULL(want);
        if (want)
            CU_ASSERT_STRING_EQUAL(a[i], want);
        free(want);
    }
    /* What the expected replies say, checked by hand: pod 0009 (a whole
     * V100) gets exactly one of its three candidates, the V100M32 node; the
     * two others are failed with the reason; prioritize agrees. */
    cJSON *f = cJSON_Parse(a[0]), *p = cJSON_Parse(a[1]);
    const cJSON *items = cJSON_GetObjectItem(cJSON_GetObjectItem(f, "Nodes"), "items");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(items), 1);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(f, "FailedNodes")), 2);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(f, "Error")->valuestring, "");
    const cJSON *h;
    int tens = 0;
    cJSON_ArrayForEach(h, p)
        tens += cJSON_GetObjectItem(h, "Score")->valueint == 10;
    CU_ASSERT_EQUAL(tens, 1);
    cJSON_Delete(f);
    cJSON_Delete(p);
    /* Names only: 16 candidates, of which one node is known. */
    f = cJSON_Parse(a[2]);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(f, "NodeNames")), 1);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(f, "FailedNodes")), 15);
    cJSON_Delete(f);
    for (size_t i = 0; i < 4; i++) {
        free(a[i]);
        free(b[i]);
    }
}

/* ---- mutated requests ---------------------------------------------------- */

static uint64_t next(uint64_t *s)
{
    return sched_splitmix64(s);
}

/* 10,000 requests made by mutating the captured ones (bytes flipped,
 * inserted, deleted, truncated, digits blown up), all into one extender:
 * every answer is 200 or 400 with a JSON body.  Under ASan (make
 * SANITIZE=address,undefined check) this is the acceptance's fuzz run. */
static void test_mutations(void)
{
    struct extender *x = new_extender("fgd");
    size_t len[4];
    char *seed[4];
    for (int i = 0; i < 4; i++) {
        char rel[160];
        snprintf(rel, sizeof rel, "tests/serve/captured/%s.json", captured[i]);
        seed[i] = slurp(rel, &len[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(seed[i]);
    }
    uint64_t s = 2023;
    int bad = 0, ok = 0;
    char *buf = xmalloc(1 << 16);
    for (int n = 0; n < 10000; n++) {
        int k = (int)(next(&s) % 4);
        size_t m = len[k];
        memcpy(buf, seed[k], m);
        for (int e = 1 + (int)(next(&s) % 4); e > 0; e--) {
            size_t at = m ? next(&s) % m : 0;
            switch (next(&s) % 5) {
            case 0: buf[at] = (char)next(&s); break;
            case 1: m = at; break;
            case 2:
                if (m + 1 < (1 << 16)) {
                    memmove(buf + at + 1, buf + at, m - at);
                    buf[at] = "{}[]\",:0-9e."[next(&s) % 12];
                    m++;
                }
                break;
            case 3:
                if (m) {
                    memmove(buf + at, buf + at + 1, m - at - 1);
                    m--;
                }
                break;
            default:
                if (m + 20 < (1 << 16)) {
                    memmove(buf + at + 20, buf + at, m - at);
                    memcpy(buf + at, "99999999999999999999", 20);
                    m += 20;
                }
            }
        }
        char *reply;
        enum extender_outcome out;
        int status = extender_handle(x, k % 2 ? EXT_PRIORITIZE : EXT_FILTER, buf, m, &reply, &out);
        CU_ASSERT(status == 200 || status == 400);
        cJSON *r = cJSON_Parse(reply);
        CU_ASSERT_PTR_NOT_NULL(r);
        cJSON_Delete(r);
        free(reply);
        bad += status == 400;
        ok += status == 200;
    }
    /* Both kinds happen: the mutations are neither all harmless nor all
     * fatal. */
    CU_ASSERT(bad > 1000 && ok > 1000);
    printf("\n  mutated requests: %d answered 200, %d answered 400\n", ok, bad);
    free(buf);
    for (int i = 0; i < 4; i++)
        free(seed[i]);
    extender_free(x);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"JSON read in place", test_jscan},
        {"pod and node objects", test_objects},
        {"the GPU-share annotation is read", test_annotation_read},
        {"decisions pending until annotated", test_pending},
        {"a pod asked about again", test_repeat},
        {"ties in node-name order", test_name_order},
        {"malformed requests answered 400", test_bad_requests},
        {"a node object sent again unchanged", test_resent},
        {"captured requests byte for byte", test_captured},
        {"10,000 mutated requests", test_mutations},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"serve", tu_cat_setup, tu_cat_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_serve", suites);
}
