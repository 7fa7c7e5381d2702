/* base.c - allocation that aborts on failure, error codes, time conversion. */
#include "base.h"
#include "signals.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void (*oom_hook)(void);

void fs_set_oom_hook(void (*hook)(void)) { oom_hook = hook; }

static void oom(size_t n)
{
    fprintf(stderr, "fleetsim: out of memory allocating %zu bytes\n", n);
    if (oom_hook)
        oom_hook();
    _exit(70); /* exit() would run atexit handlers that may allocate */
}

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return strerror(EISDIR);
    if (S_ISFIFO(m))
        return "a FIFO, not a regular file";
    if (S_ISSOCK(m))
        return "a socket, not a regular file";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device, not a regular file";
    return "not a regular file";
}

int fs_open_input(const char *path, FILE **out, struct fs_err *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    const char *why = fstat(fd, &st) != 0 ? strerror(errno) : S_ISREG(st.st_mode) ? NULL : file_kind(st.st_mode);
    if (why) {
        close(fd);
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: %s", path, why);
    }
    FILE *f;
    /* Reads of a regular file never block; clear the flag all the same. */
    if (fcntl(fd, F_SETFL, 0) != 0 || !(f = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: %s", path, strerror(e));
    }
    *out = f;
    return 0;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void xgrow(void *pp, size_t *cap, size_t need, size_t elem)
{
    void **p = pp;
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    *p = xrealloc(*p, c * elem);
    *cap = c;
}

int fs_fail(struct fs_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

struct code_info {
    int code, exit_code;
    const char *name, *msg;
};

static const struct code_info codes[] = {
#define FS_ERR_INFO(name, num, exit_code, msg) {-(num), exit_code, #name, msg},
    FS_ERRORS(FS_ERR_INFO)
#undef FS_ERR_INFO
};

static const struct code_info *code_info(int code)
{
    for (size_t i = 0; i < FS_ARRAY_LEN(codes); i++)
        if (codes[i].code == code)
            return &codes[i];
    return code_info(FS_EINTERNAL); /* an unknown code is an internal error */
}

const char *fs_code_name(int code) { return code == FS_OK ? "OK" : code_info(code)->name; }
const char *fs_code_message(int code) { return code == FS_OK ? "ok" : code_info(code)->msg; }
int fs_exit_code(int code)
{
    if (code == FS_EINTERRUPTED && fs_interrupted())
        return 128 + fs_interrupted();
    return code == FS_OK ? 0 : code_info(code)->exit_code;
}

int fs_seconds_ok(double s) { return isfinite(s) && s >= 0 && s < 9.0e12; }
fs_time fs_from_seconds(double s) { return (fs_time)llround(s * (double)FS_USEC); }
double fs_to_seconds(fs_time t) { return (double)t / (double)FS_USEC; }

/* The decimal digits of u, at least min of them (zeros in front), two at
 * a time, written backwards so that they end at end.  RET: their start. */
static char *digits_back(char *end, uint64_t u, int min)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
    char *p = end;
    for (; u >= 100; u /= 100) {
        const char *d = &pairs[u % 100 * 2];
        *--p = d[1];
        *--p = d[0];
    }
    if (u >= 10) {
        *--p = pairs[u * 2 + 1];
        *--p = pairs[u * 2];
    } else {
        *--p = (char)('0' + u);
    }
    while (end - p < min)
        *--p = '0';
    return p;
}

/* buf: an optional '-', then [p, end), then NUL.  RET: the length. */
static int put_digits(char *buf, bool negative, const char *p, const char *end)
{
    int n = 0;
    if (negative)
        buf[n++] = '-';
    memcpy(buf + n, p, (size_t)(end - p));
    n += (int)(end - p);
    buf[n] = '\0';
    return n;
}

int fs_seconds_str(char *buf, fs_time t)
{
    char tmp[FS_SECONDS_LEN], *end = tmp + sizeof tmp;
    uint64_t u = t < 0 ? 0 - (uint64_t)t : (uint64_t)t; /* INT64_MIN too */
    /* Six decimals, the point, at least one digit before it. */
    char *p = digits_back(end, u % 1000000, 6);
    *--p = '.';
    p = digits_back(p, u / 1000000, 1);
    return put_digits(buf, t < 0, p, end);
}

int fs_int_str(char *buf, long long v)
{
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v; /* LLONG_MIN too */
    int n = v < 0, digits = 1;
    for (unsigned long long ten = 10; digits < 20 && u >= ten; ten *= 10)
        digits++;
    if (n)
        buf[0] = '-';
    n += digits;
    digits_back(buf + n, u, 1); /* straight into buf: no copy */
    buf[n] = '\0';
    return n;
}

/* Case-insensitive: "H100-SXM" is one edit from nothing. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Whether cand is of s's family: s starts it ("h200" of "h200-sxm", "v100"
 * of "v100m16"), or both share their first '-'-separated part ("a100-80"
 * and "a100-sxm-80").  Case-insensitive; s needs two characters. */
static bool same_family(const char *s, const char *cand)
{
    size_t ls = strlen(s), ks = strcspn(s, "-"), kc = strcspn(cand, "-");
    if (ls < 2)
        return false;
    if (strncasecmp(s, cand, ls) == 0)
        return true;
    return ks >= 2 && ks < ls && ks == kc && strncasecmp(s, cand, ks) == 0;
}

const char *fs_suggest(const char *s, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(s, cands[i]);
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    /* A slip of one key beats a family; a family beats a distant name
     * ("h200" is an H200, not the p100 two edits away). */
    if (best_d <= 1)
        return best;
    for (size_t i = 0; i < n; i++)
        if (same_family(s, cands[i]))
            return cands[i];
    return best_d <= strlen(s) / 3 + 1 ? best : NULL;
}

const char *fs_which(const char *name, char *buf, size_t n)
{
    const char *path = getenv("PATH");
    size_t len = strlen(name);
    for (const char *p = path ? path : ""; *p;) {
        size_t k = strcspn(p, ":");
        if (k > 0 && k + len + 2 <= n) {
            memcpy(buf, p, k);
            buf[k] = '/';
            memcpy(buf + k + 1, name, len + 1);
            struct stat sb;
            if (stat(buf, &sb) == 0 && S_ISREG(sb.st_mode) && access(buf, X_OK) == 0)
                return buf;
        }
        p += k;
        if (*p == ':')
            p++;
    }
    return NULL;
}

/* Heapsort x[0..n): fs_sort's guarantee of n log n. */
static void heap_sort(double *x, size_t n)
{
    for (size_t end = n, k = n / 2; end > 1;) {
        if (k > 0) {
            k--;
        } else {
            double top = x[0];
            x[0] = x[--end];
            x[end] = top;
        }
        for (size_t i = k, c; (c = 2 * i + 1) < end; i = c) {
            if (c + 1 < end && x[c + 1] > x[c])
                c++;
            if (!(x[c] > x[i]))
                break;
            double t = x[i];
            x[i] = x[c];
            x[c] = t;
        }
    }
}

static void quick_sort(double *x, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(x, n);
            return;
        }
        double a = x[0], b = x[n / 2], c = x[n - 1];
        double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        /* x[0..lt) < pivot, x[lt..i) == pivot, x(gt..n) > pivot. */
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            double v = x[i];
            if (v < pivot) {
                x[i++] = x[lt];
                x[lt++] = v;
            } else if (v > pivot) {
                x[i] = x[--gt];
                x[gt] = v;
            } else {
                i++;
            }
        }
        /* Recurse into the smaller side, loop on the larger. */
        if (lt < n - gt) {
            quick_sort(x, lt, depth);
            x += gt;
            n -= gt;
        } else {
            quick_sort(x + gt, n - gt, depth);
            n = lt;
        }
    }
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t k = i;
        for (; k > 0 && x[k - 1] > v; k--)
            x[k] = x[k - 1];
        x[k] = v;
    }
}

void fs_sort(double *x, size_t n)
{
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    quick_sort(x, n, depth);
}
