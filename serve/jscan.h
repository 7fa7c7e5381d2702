/* jscan.h - JSON read in place: a request body is checked once, then its
 * values are found as spans of the body, with no tree and no allocation.
 *
 * kube-scheduler sends every candidate node as a full object with every
 * call (about 0.7 KiB a node, 0.9 MiB at 1,213 nodes); building a cJSON
 * tree of that costs milliseconds in malloc and free alone, most of it for
 * fields the extender never reads.  jscan_check validates the whole body
 * (RFC 8259 syntax, nesting at most JSCAN_MAX_DEPTH, a \u surrogate only
 * as a high-low pair, since replies echo the body's strings and strict
 * readers refuse a lone one) and records where
 * each object and array ends, so finding a member later skips nested
 * values in one step instead of rescanning them (siblings met in order
 * are found without a search).
 *
 * Keys are compared as they are written: a key spelled with escapes
 * ("\u0061") does not match its plain spelling.  Kubernetes never escapes
 * the ASCII keys looked up here.
 *
 * The caller owns a struct jscan and frees it with jscan_free; spans point
 * into the body, which must outlive them.
 */
#ifndef FS_SERVE_JSCAN_H
#define FS_SERVE_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSCAN_MAX_DEPTH 128

/* A value: p points at its first byte ('{', '[', '"', a digit or '-',
 * 't', 'f', 'n'), n bytes long.  p NULL: absent. */
struct jspan {
    const char *p;
    size_t n;
};

struct jscan {
    const char *body;
    size_t len;
    /* Containers in order of their opening byte: its offset, the offset
     * just past its closing byte, and the index of the next container
     * opened after it closes. */
    uint32_t *open, *close, *after;
    size_t n, cap;
    size_t hint;  /* the container a skip most likely meets next */
};

/* Check body[0..len) is one JSON value (surrounded by white space only).
 * OUT *root.  RET: 0, or -1 with *at the offset of the first error. */
int jscan_check(struct jscan *s, const char *body, size_t len, struct jspan *root, size_t *at);
void jscan_free(struct jscan *s);

static inline bool jspan_is(struct jspan v, char first)
{
    return v.p && v.p[0] == first;
}

/* obj's member key (plain ASCII), or an absent span. */
struct jspan jscan_get(const struct jscan *s, struct jspan obj, const char *key);
/* obj.k1.k2... (NULL-terminated keys), or an absent span. */
struct jspan jscan_path(const struct jscan *s, struct jspan obj, const char *const *keys);

/* Iterate over an array's elements or an object's members: start with
 * *it = 0; each call sets *val (and *key for objects) and returns true, or
 * returns false past the end. */
bool jscan_next(const struct jscan *s, struct jspan c, size_t *it, struct jspan *key, struct jspan *val);

/* A string value, unescaped into buf (NUL-terminated; \u escapes as
 * UTF-8, a surrogate pair as one code point).  RET: its length, or -1 when v is
 * not a string or does not fit in size - 1 bytes. */
long jscan_string(struct jspan v, char *buf, size_t size);

/* Is the string value v exactly text (compared as written)? */
bool jspan_eq(struct jspan v, const char *text);

#endif
