/* strmap.h - a map from strings to indices (open addressing, FNV-1a), for
 * node names and pod keys.  Lookups never depend on the table's order, so
 * it cannot make an answer depend on hash order.  The map owns copies of
 * its keys; free it with strmap_free (a zeroed map is empty).
 */
#ifndef FS_SERVE_STRMAP_H
#define FS_SERVE_STRMAP_H

#include <stddef.h>

struct strmap_slot {
    char *key;   /* NULL: empty */
    size_t val;
};

struct strmap {
    struct strmap_slot *slot;
    size_t cap, n;   /* cap is 0 or a power of two */
};

/* RET: the value of key, or (size_t)-1 when absent. */
size_t strmap_get(const struct strmap *m, const char *key);
/* Map key to val, replacing any value it had. */
void strmap_put(struct strmap *m, const char *key, size_t val);
void strmap_free(struct strmap *m);

#endif
