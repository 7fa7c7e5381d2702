/* json.h - reading JSON input files with cJSON, with errors that name the
 * file and the JSON path ("scen.json: $.fleet[1].nodes: ...").
 *
 * Every getter takes the file name and the JSON path of obj for its
 * message, and returns 0 or FS_EDATA.
 */
#ifndef FS_BASE_JSON_H
#define FS_BASE_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "base.h"

/* Parse the file at path.  OUT *out: the tree (caller frees with
 * cJSON_Delete).  RET: 0; FS_ENOINPUT "PATH: cannot open: ..."; FS_EDATA
 * "PATH:LINE:COL: malformed JSON" or "PATH: top level must be an object". */
int json_load_file(const char *path, cJSON **out, struct fs_err *err);

/* Every key of obj must be in keys (NULL-terminated).  The message for an
 * unknown key suggests the closest valid one. */
int json_check_keys(const cJSON *obj, const char *const *keys,
                    const char *file, const char *path, struct fs_err *err);

/* obj[key] as a number in [lo, hi].  When absent: FS_EDATA if required,
 * else *out is left unchanged and 0 returned. */
int json_number(const cJSON *obj, const char *key, bool required, double lo, double hi,
                double *out, const char *file, const char *path, struct fs_err *err);

/* obj[key] as an integer in [lo, hi] (a number with no fraction). */
int json_int(const cJSON *obj, const char *key, bool required, int64_t lo, int64_t hi,
             int64_t *out, const char *file, const char *path, struct fs_err *err);

/* obj[key] as a non-empty string (borrowed from the tree). */
int json_string(const cJSON *obj, const char *key, bool required,
                const char **out, const char *file, const char *path, struct fs_err *err);

/* obj[key] as an object or array (type is cJSON_Object or cJSON_Array). */
int json_child(const cJSON *obj, const char *key, bool required, int type,
               const cJSON **out, const char *file, const char *path, struct fs_err *err);

/* obj[key] as a sourced number {"value": V, "source": "ID"} (an optional
 * "notes" string is allowed), with V in [lo, hi] and ID a key of the
 * file's sources object. */
int json_sourced(const cJSON *obj, const char *key, bool required, double lo, double hi,
                 const cJSON *sources, double *out, const char *file, const char *path,
                 struct fs_err *err);

#endif
