/* strmap.c - string -> index map (see strmap.h). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* The slot holding key, or the empty slot where it would go. */
static struct strmap_slot *find(const struct strmap *m, const char *key)
{
    size_t i = (size_t)fnv1a(key) & (m->cap - 1);
    while (m->slot[i].key && strcmp(m->slot[i].key, key) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slot[i];
}

size_t strmap_get(const struct strmap *m, const char *key)
{
    if (!m->cap)
        return (size_t)-1;
    const struct strmap_slot *s = find(m, key);
    return s->key ? s->val : (size_t)-1;
}

static void grow(struct strmap *m)
{
    struct strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->slot = xcalloc(m->cap, sizeof *m->slot);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].key)
            *find(m, old.slot[i].key) = old.slot[i];
    free(old.slot);
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    struct strmap_slot *s = find(m, key);
    if (!s->key) {
        s->key = xstrdup(key);
        m->n++;
    }
    s->val = val;
}

void strmap_free(struct strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slot[i].key);
    free(m->slot);
    *m = (struct strmap){0};
}
