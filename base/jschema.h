/* jschema.h - a JSON Schema (draft 2020-12) validator for the subset of
 * the vocabulary fleetsim's schemas use (schema/scenario.schema.json):
 * type, enum, properties, required, additionalProperties (false or a
 * schema), minProperties, maxProperties, items, minItems, minLength,
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, oneOf and $ref to
 * "#/$defs/NAME"; $schema, $id, title, description and $defs are
 * annotations.  Any other keyword in the schema is an error rather than
 * silently ignored, so a schema cannot claim a check this does not make.
 */
#ifndef FS_BASE_JSCHEMA_H
#define FS_BASE_JSCHEMA_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* Check doc against schema (the whole schema: $ref resolves in it).  Each
 * violation is written to out as "LABEL: $.PATH: WHAT\n" (label: the
 * file, as messages name it), at most max of them.  RET: the number of violations (0: valid), or -1 when the schema
 * itself uses a keyword outside the subset or a $ref that does not
 * resolve (the message says which, on out). */
int jschema_check(const cJSON *schema, const cJSON *doc, const char *label, FILE *out, int max);

#endif
