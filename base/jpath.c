/* jpath.c - key paths into a JSON tree (jpath.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "jpath.h"

const char *jpath_parse(const char *s, struct jpath *p)
{
    size_t cap = 0;
    for (;;) {
        size_t n = strcspn(s, ".[]");
        if (n == 0)
            return "expected a key";
        xgrow(&p->steps, &cap, (size_t)p->n + 1, sizeof *p->steps);
        p->steps[p->n].key = xmalloc(n + 1);
        memcpy(p->steps[p->n].key, s, n);
        p->steps[p->n++].key[n] = '\0';
        s += n;
        while (*s == '[') {
            char *end;
            if (s[1] < '0' || s[1] > '9')
                return "expected an index in [ ]";
            errno = 0;
            long i = strtol(s + 1, &end, 10);
            if (errno || *end != ']' || i > INT32_MAX)
                return "expected an index in [ ]";
            xgrow(&p->steps, &cap, (size_t)p->n + 1, sizeof *p->steps);
            p->steps[p->n++] = (struct jpath_step){NULL, i};
            s = end + 1;
        }
        if (*s == '\0')
            return NULL;
        if (*s != '.')
            return "expected '.', '[' or the end after a key or an index";
        s++;
    }
}

/* The first n steps of p as text ("fleet[2]"). */
static void prefix(const struct jpath *p, int n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && len < size; k++) {
        int w = p->steps[k].key ? snprintf(buf + len, size - len, "%s%s", k ? "." : "", p->steps[k].key)
                                : snprintf(buf + len, size - len, "[%ld]", p->steps[k].index);
        len += w > 0 ? (size_t)w : 0;
    }
}

int jpath_set(cJSON *root, const struct jpath *p, const cJSON *value, char *why, size_t n)
{
    cJSON *cur = root;
    char where[256];
    for (int k = 0; k < p->n; k++) {
        const struct jpath_step *st = &p->steps[k];
        bool last = k == p->n - 1;
        prefix(p, k, where, sizeof where);
        if (st->key) {
            if (!cJSON_IsObject(cur)) {
                snprintf(why, n, "%s is not an object", k ? where : "$");
                return -1;
            }
            cJSON *child = cJSON_GetObjectItemCaseSensitive(cur, st->key);
            if (last) {
                cJSON *copy = cJSON_Duplicate(value, true);
                if (child)
                    cJSON_ReplaceItemInObjectCaseSensitive(cur, st->key, copy);
                else
                    cJSON_AddItemToObject(cur, st->key, copy);
            } else if (!child) {
                child = cJSON_CreateObject();
                cJSON_AddItemToObject(cur, st->key, child);
            }
            cur = child;
        } else {
            if (!cJSON_IsArray(cur)) {
                snprintf(why, n, "%s is not an array", where);
                return -1;
            }
            int len = cJSON_GetArraySize(cur);
            if (st->index >= len) {
                snprintf(why, n, "index %ld is out of range: %s has %d items", st->index, where, len);
                return -1;
            }
            if (last)
                cJSON_ReplaceItemInArray(cur, (int)st->index, cJSON_Duplicate(value, true));
            else
                cur = cJSON_GetArrayItem(cur, (int)st->index);
        }
    }
    return 0;
}

void jpath_free(struct jpath *p)
{
    for (int k = 0; k < p->n; k++)
        free(p->steps[k].key);
    free(p->steps);
    *p = (struct jpath){0};
}
