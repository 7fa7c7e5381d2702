/* jscan.c - JSON read in place (see jscan.h). */
#include "jscan.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

struct cursor {
    const char *b, *p, *end;
    struct jscan *s;
    int depth;
};

static void ws(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool lit(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

static int hex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Four hex digits at p, or -1 when one is not. */
static long hex4(const char *p)
{
    int a = hex(p[0]), b = hex(p[1]), c = hex(p[2]), d = hex(p[3]);
    return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (long)(a << 12 | b << 8 | c << 4 | d);
}

/* Bytes a string holds as they are: not a quote, a backslash or a
 * control character. */
static bool plain[256];

static void init_plain(void)
{
    for (int i = 0x20; i < 256; i++)
        plain[i] = i != '"' && i != '\\';
}

/* Bit 7 of each byte of v that is special (a quote, a backslash or a
 * control character) is set, and of none below the first one; bytes above
 * it may be flagged too (the "has a byte less than n" and "has a zero
 * byte" tests of Anderson's "Bit Twiddling Hacks"). */
static uint64_t special(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t quote = v ^ (ones * '"'), bslash = v ^ (ones * '\\');
    return ((v - ones * 0x20) & ~v & high) | ((quote - ones) & ~quote & high) |
           ((bslash - ones) & ~bslash & high);
}

/* The first byte of q..end that is not plain, or end. */
static const char *plain_run(const char *q, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Eight bytes at a time: the first of them in memory is the lowest. */
    for (uint64_t v, m; end - q >= 8; q += 8) {
        memcpy(&v, q, 8);
        if ((m = special(v)))
            return q + __builtin_ctzll(m) / 8;
    }
#endif
    while (q < end && plain[(unsigned char)*q])
        q++;
    return q;
}

static bool string(struct cursor *c)
{
    c->p++;  /* the opening quote */
    for (;;) {
        const char *q = plain_run(c->p, c->end);
        c->p = q;
        if (q >= c->end || (unsigned char)*q < 0x20)
            return false;
        if (*q == '"') {
            c->p++;
            return true;
        }
        if (c->end - q < 2)
            return false;
        if (q[1] && strchr("\"\\/bfnrt", q[1])) {
            c->p += 2;
        } else if (q[1] == 'u') {
            /* A surrogate only as a pair: the replies echo the body's
             * strings, and strict readers refuse a lone one. */
            long u = c->end - q < 6 ? -1 : hex4(q + 2);
            if (u < 0 || (u >= 0xDC00 && u < 0xE000))
                return false;
            c->p += 6;
            if (u >= 0xD800 && u < 0xDC00) {
                long low = c->end - q < 12 || q[6] != '\\' || q[7] != 'u' ? -1 : hex4(q + 8);
                if (low < 0xDC00 || low >= 0xE000)
                    return false;
                c->p += 6;
            }
        } else {
            return false;
        }
    }
}

static bool digits(struct cursor *c)
{
    const char *q = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > q;
}

static bool number(struct cursor *c)
{
    if (*c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!digits(c))
            return false;
    }
    return true;
}

static bool value(struct cursor *c);

/* An object or array: members or elements, each checked, and its span
 * recorded. */
static bool container(struct cursor *c, char close)
{
    if (++c->depth > JSCAN_MAX_DEPTH || c->p - c->b > UINT32_MAX - 1)
        return false;
    struct jscan *s = c->s;
    size_t k = s->n++, cap = s->cap;
    xgrow(&s->open, &s->cap, s->n, sizeof *s->open);
    if (s->cap != cap) {
        s->close = xrealloc(s->close, s->cap * sizeof *s->close);
        s->after = xrealloc(s->after, s->cap * sizeof *s->after);
    }
    s->open[k] = (uint32_t)(c->p - c->b);
    c->p++;
    ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
    } else {
        for (;;) {
            if (close == '}') {
                if (c->p >= c->end || *c->p != '"' || !string(c))
                    return false;
                ws(c);
                if (c->p >= c->end || *c->p++ != ':')
                    return false;
            }
            if (!value(c))
                return false;
            ws(c);
            if (c->p >= c->end)
                return false;
            if (*c->p == close) {
                c->p++;
                break;
            }
            if (*c->p++ != ',')
                return false;
            ws(c);
        }
    }
    s->close[k] = (uint32_t)(c->p - c->b);
    s->after[k] = (uint32_t)s->n;
    c->depth--;
    return true;
}

static bool value(struct cursor *c)
{
    ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{': return container(c, '}');
    case '[': return container(c, ']');
    case '"': return string(c);
    case 't': return lit(c, "true");
    case 'f': return lit(c, "false");
    case 'n': return lit(c, "null");
    default: return (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) && number(c);
    }
}

int jscan_check(struct jscan *s, const char *body, size_t len, struct jspan *root, size_t *at)
{
    if (!plain['a'])
        init_plain();  /* idempotent: a race writes the same values */
    s->body = body;
    s->len = len;
    s->n = 0;
    struct cursor c = {.b = body, .p = body, .end = body + len, .s = s};
    ws(&c);
    const char *start = c.p;
    bool ok = value(&c);
    const char *stop = c.p;
    ws(&c);
    if (!ok || c.p != c.end) {
        *at = (size_t)(c.p - body);
        *root = (struct jspan){0};
        return -1;
    }
    *root = (struct jspan){start, (size_t)(stop - start)};
    return 0;
}

void jscan_free(struct jscan *s)
{
    free(s->open);
    free(s->close);
    free(s->after);
    *s = (struct jscan){0};
}

/* The end of the value starting at p (the body is known to be valid). */
static const char *skip(const struct jscan *cs, const char *p)
{
    struct jscan *s = (struct jscan *)cs;  /* only the hint changes */
    if (*p == '{' || *p == '[') {
        uint32_t off = (uint32_t)(p - s->body);
        size_t lo = s->hint;
        if (lo >= s->n || s->open[lo] != off) {
            size_t hi = s->n;
            lo = 0;
            while (lo < hi) {   /* open[] is increasing: binary search */
                size_t mid = lo + (hi - lo) / 2;
                if (s->open[mid] < off)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        }
        s->hint = s->after[lo];  /* a sibling that follows is this one */
        return s->body + s->close[lo];
    }
    if (*p == '"') {
        /* The closing quote: the first one after an even run of
         * backslashes (the body is valid, so there is one). */
        const char *q = p + 1;
        for (;;) {
            q = memchr(q, '"', (size_t)(s->body + s->len - q));
            const char *b = q;
            while (b[-1] == '\\')
                b--;
            if ((q - b) % 2 == 0)
                return q + 1;
            q++;
        }
    }
    while (!strchr(",}] \t\r\n", *p))
        p++;
    return p;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

bool jscan_next(const struct jscan *s, struct jspan c, size_t *it, struct jspan *key, struct jspan *val)
{
    if (!c.p || (c.p[0] != '{' && c.p[0] != '['))
        return false;
    const char *p = skip_ws(c.p + (*it ? *it : 1));
    if (*p == ',')
        p = skip_ws(p + 1);
    if (p >= c.p + c.n - 1)
        return false;
    if (c.p[0] == '{') {
        const char *k = p;
        p = skip(s, p);
        if (key)
            *key = (struct jspan){k, (size_t)(p - k)};
        p = skip_ws(skip_ws(p) + 1);  /* past the colon */
    }
    const char *v = p;
    p = skip(s, p);
    *val = (struct jspan){v, (size_t)(p - v)};
    *it = (size_t)(p - c.p);
    return true;
}

bool jspan_eq(struct jspan v, const char *text)
{
    size_t n = strlen(text);
    return jspan_is(v, '"') && v.n == n + 2 && memcmp(v.p + 1, text, n) == 0;
}

struct jspan jscan_get(const struct jscan *s, struct jspan obj, const char *key)
{
    struct jspan k, v;
    size_t it = 0, n = strlen(key);
    if (jspan_is(obj, '{'))
        while (jscan_next(s, obj, &it, &k, &v))
            if (k.n == n + 2 && memcmp(k.p + 1, key, n) == 0)
                return v;
    return (struct jspan){0};
}

struct jspan jscan_path(const struct jscan *s, struct jspan obj, const char *const *keys)
{
    for (; obj.p && *keys; keys++)
        obj = jscan_get(s, obj, *keys);
    return obj;
}

/* Append code point u to buf as UTF-8.  RET: bytes written. */
static size_t utf8(unsigned long u, char *out)
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xC0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xE0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3F));
        out[2] = (char)(0x80 | (u & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3F));
    out[2] = (char)(0x80 | (u >> 6 & 0x3F));
    out[3] = (char)(0x80 | (u & 0x3F));
    return 4;
}

long jscan_string(struct jspan v, char *buf, size_t size)
{
    if (!jspan_is(v, '"') || !size)
        return -1;
    size_t n = 0;
    const char *p = v.p + 1, *end = v.p + v.n - 1;
    while (p < end) {
        char tmp[4];
        size_t k = 1;
        if (*p != '\\') {
            tmp[0] = *p++;
        } else {
            char e = p[1];
            p += 2;
            if (e == 'u') {
                unsigned long u = (unsigned long)hex4(p);
                p += 4;
                if (u >= 0xD800 && u < 0xDC00) { /* a pair: jscan_check saw its low half */
                    u = 0x10000 + ((u - 0xD800) << 10) + ((unsigned long)hex4(p + 2) - 0xDC00);
                    p += 6;
                }
                k = utf8(u, tmp);
            } else {
                tmp[0] = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r'
                       : e == 't' ? '\t' : e;
            }
        }
        if (n + k >= size)
            return -1;
        memcpy(buf + n, tmp, k);
        n += k;
    }
    buf[n] = '\0';
    return (long)n;
}
