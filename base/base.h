/* base.h - the foundation every folder may include: allocation, errors,
 * simulated time.  It includes nothing of ours.
 *
 * Errors: a function that can fail returns 0 or a negative FS_E* code and,
 * when given a struct fs_err, fills it with a one-line message that names the
 * file and the place ("scen.json: $.fleet[2].gpu: unknown GPU type ...").
 * Allocation failure is not an error code: xmalloc and friends abort with a
 * message, so ordinary code never checks for NULL.
 */
#ifndef FS_BASE_H
#define FS_BASE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* Simulated time: integer microseconds since the scenario's start. */
typedef int64_t fs_time;
#define FS_USEC 1000000LL
#define FS_TIME_MAX INT64_MAX

/* The largest seed: outputs record seeds as JSON numbers, exact only up
 * to 2^53. */
#define FS_SEED_MAX ((uint64_t)1 << 53)

/* Seconds (as read from input) to simulated time, rounded to the nearest
 * microsecond.  The caller checks the range first (fs_seconds_ok). */
fs_time fs_from_seconds(double s);
double fs_to_seconds(fs_time t);
/* t in seconds with exactly six decimals ("12.000345", "-0.500000"), from
 * the integer microseconds: the bytes printf("%.6f", fs_to_seconds(t))
 * gives for any time under ~140 years, without a float conversion (the
 * cost of writing a million-job jobs.csv).  buf holds FS_SECONDS_LEN.
 * RET: the length written, without the terminating NUL. */
#define FS_SECONDS_LEN 24
int fs_seconds_str(char *buf, fs_time t);
/* v in decimal: the bytes printf("%lld", v) gives, without printf (the
 * cost of a million-job timeline.json).  buf holds FS_INT_LEN.  RET: the
 * length written, without the terminating NUL. */
#define FS_INT_LEN 21
int fs_int_str(char *buf, long long v);
/* Copy s (without its NUL) to p, for a writer that builds a line in
 * memory.  RET: the end of what was copied.  Inline: a literal's length
 * and copy are then known when compiled. */
static inline char *fs_put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}
/* True when s is finite, >= 0 and small enough to convert (< ~290,000 years). */
int fs_seconds_ok(double s);
/* Sort x[0..n) ascending in place (no NaN): the result gsl_sort gives, in
 * about half its time on a million waits, most of them equal (a three-way
 * quicksort, falling back to heapsort when a partition goes badly). */
void fs_sort(double *x, size_t n);

/* X(name, number, process exit code, message).  FS_E<name> is -number; the
 * exit codes follow sysexits.h and are the ones DESIGN.md documents. */
#define FS_ERRORS(X)                                        \
    X(USAGE, 1, 64, "usage error")                          \
    X(DATA, 2, 65, "bad input data")                        \
    X(NOINPUT, 3, 66, "cannot open input")                  \
    X(CANTCREAT, 4, 73, "cannot create output")             \
    X(INTERNAL, 5, 70, "internal error")                    \
    X(UNAVAILABLE, 6, 69, "service unavailable")            \
    X(TEMPFAIL, 7, 75, "busy, try again later")           \
    X(INTERRUPTED, 8, 130, "interrupted by a signal")

enum fs_code {
    FS_OK = 0,
#define FS_ERR_ENUM(name, num, exit_code, msg) FS_E##name = -(num),
    FS_ERRORS(FS_ERR_ENUM)
#undef FS_ERR_ENUM
};

struct fs_err {
    int code;          /* FS_OK or a negative FS_E* code */
    char msg[1024];    /* one line, no trailing newline */
};

/* Set e (when not NULL) to code and a printf-formatted message.
 * RET: code, so callers can write `return fs_fail(e, FS_EDATA, ...)`. */
int fs_fail(struct fs_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *fs_code_name(int code);    /* "DATA" */
const char *fs_code_message(int code); /* "bad input data" */
int fs_exit_code(int code);            /* 0 for FS_OK, 65 for FS_EDATA ...,
                                          128 + the signal for FS_EINTERRUPTED */

/* Allocation failure prints "fleetsim: out of memory ...", runs the hook
 * set with fs_set_oom_hook (the output layer's: remove the files of
 * unfinished outputs; it must not allocate) and exits 70. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grow *p (an array of elem-size items with capacity *cap) to hold need. */
void xgrow(void *pp, size_t *cap, size_t need, size_t elem);

void fs_set_oom_hook(void (*hook)(void));

/* Open path for reading, refusing what is not a regular file: a FIFO or a
 * device is opened without blocking (O_NONBLOCK) and refused, never read
 * or waited on.  OUT *f: the stream (fclose it).  RET: 0, or FS_ENOINPUT
 * "PATH: cannot open: REASON". */
int fs_open_input(const char *path, FILE **f, struct fs_err *err);

/* The candidate (of n) to suggest for the unknown name s: one edit away
 * (case-insensitive), else the first of s's family ("h200" -> "h200-sxm",
 * "a100-80" -> "a100-sxm-80"), else the closest within len(s)/3 + 1 edits.
 * RET: the candidate, or NULL when none is a useful suggestion. */
const char *fs_suggest(const char *s, const char *const *cands, size_t n);

/* The executable name found on $PATH (a regular file we may run), written
 * into buf[n].  RET: buf, or NULL when there is none. */
const char *fs_which(const char *name, char *buf, size_t n);

#define FS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
