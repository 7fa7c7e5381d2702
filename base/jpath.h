/* jpath.h - key paths into a JSON tree, as fleetsim sweep's parameters and
 * the --set option write them: object keys joined by dots, each followed
 * by any number of array indexes in brackets ("fleet[0].nodes",
 * "scheduler.policy", "workload.generator.arrivals_per_hour").
 *
 * Setting a value creates a missing key (and the objects on its way, so
 * "faults.scale" can be set in a scenario without faults); an index past
 * the end of its array is an error, as is a key into something that is not
 * an object.  The caller owns a parsed path and frees it with jpath_free.
 */
#ifndef FS_BASE_JPATH_H
#define FS_BASE_JPATH_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* One step: an object key, or (key NULL) an array index. */
struct jpath_step {
    char *key;
    long index;
};

struct jpath {
    struct jpath_step *steps;
    int n;
};

/* Parse s into *p (zeroed by the caller).  RET: NULL, or what is wrong
 * with s ("expected an index in [ ]"); free *p either way. */
const char *jpath_parse(const char *s, struct jpath *p);

/* Set p in root to a copy of value.  RET: 0, or -1 with the reason in
 * why[n] ("fleet is not an array", "index 5 is out of range: fleet has 2
 * items"). */
int jpath_set(cJSON *root, const struct jpath *p, const cJSON *value, char *why, size_t n);

void jpath_free(struct jpath *p);

#endif
