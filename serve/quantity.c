/* quantity.c - Kubernetes resource quantities (see quantity.h). */
#include "quantity.h"

#include <stdbool.h>
#include <string.h>

#define QTY_MAX_DIGITS 18

/* A suffix: value = mantissa x base^exp. */
struct suffix {
    const char *name;
    int base;  /* 2 or 10 */
    int exp;
};

static const struct suffix suffixes[] = {
    {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
    {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},  {"M", 10, 6},
    {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
};

/* Past this, the next multiplication could overflow 128 bits. */
#define QTY_LIMIT ((unsigned __int128)1 << 120)

static int mul(unsigned __int128 *v, unsigned f)
{
    if (*v > QTY_LIMIT / f)
        return -1;
    *v *= f;
    return 0;
}

/* "[+-]ddd": an exponent of at most two digits.  RET: 0 or -1. */
static int parse_exponent(const char *p, int *out)
{
    int sign = 1, v = 0, n = 0;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    for (; *p >= '0' && *p <= '9'; p++, n++)
        v = v * 10 + (*p - '0');
    if (!n || n > 2 || *p)
        return -1;
    *out = sign * v;
    return 0;
}

int quantity_milli(const char *s, int64_t *milli, struct fs_err *err)
{
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    unsigned long long mant = 0;
    int digits = 0, frac = 0;
    bool point = false, any = false;
    for (;; p++) {
        if (*p == '.' && !point) {
            point = true;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        any = true;
        if (mant == 0 && *p == '0') {
            frac += point;   /* leading zeros carry no digit */
            continue;
        }
        if (++digits > QTY_MAX_DIGITS)
            return fs_fail(err, FS_EDATA, "\"%.64s\": more than %d significant digits", s,
                           QTY_MAX_DIGITS);
        mant = mant * 10 + (unsigned)(*p - '0');
        frac += point;
    }
    if (!any)
        return fs_fail(err, FS_EDATA, "\"%.64s\": not a quantity (no digits)", s);
    int base = 10, exp = 0;
    if ((*p == 'e' || *p == 'E') && p[1]) {
        if (parse_exponent(p + 1, &exp))
            return fs_fail(err, FS_EDATA, "\"%.64s\": bad exponent \"%.16s\"", s, p);
    } else {
        size_t i = 0;
        while (i < FS_ARRAY_LEN(suffixes) && strcmp(p, suffixes[i].name) != 0)
            i++;
        if (i == FS_ARRAY_LEN(suffixes))
            return fs_fail(err, FS_EDATA, "\"%.64s\": unknown suffix \"%.16s\" (Ki Mi Gi Ti Pi Ei, "
                           "n u m k M G T P E, or an exponent such as e3)", s, p);
        base = suffixes[i].base;
        exp = suffixes[i].exp;
    }
    /* value x 1000 = mant x base^exp x 10^(3 - frac), as num / den. */
    unsigned __int128 num = mant, den = 1;
    int ten = 3 - frac;
    int rc = 0;
    if (base == 2)
        for (int k = 0; k < exp && !rc; k += 10)
            rc = mul(&num, 1024);
    else
        ten += exp;
    for (; ten > 0 && !rc; ten--)
        rc = mul(&num, 10);
    for (; ten < 0 && !rc; ten++)
        rc = mul(&den, 10);
    unsigned __int128 q = rc ? 0 : (num + (neg ? 0 : den - 1)) / den;
    if (rc || q > (unsigned __int128)INT64_MAX)
        return fs_fail(err, FS_EDATA, "\"%.64s\": too large", s);
    *milli = neg ? -(int64_t)q : (int64_t)q;
    return 0;
}
