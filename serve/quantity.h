/* quantity.h - Kubernetes resource quantities, as the API server writes
 * them in pod and node objects: "12", "500m", "16Gi", "30517Mi", "8k",
 * "1.5", "1e3", "-2".
 *
 * The grammar is Kubernetes' (k8s.io/apimachinery/pkg/api/resource):
 *
 *   quantity  = [+-] digits [. digits] suffix   (or [+-] . digits ...)
 *   suffix    = binary   Ki Mi Gi Ti Pi Ei      (powers of 1024)
 *             | decimal  n u m "" k M G T P E   (powers of 1000)
 *             | exponent (e|E) [+-] digits      (a power of 10)
 *
 * Values are returned in thousandths (milli-units), the finest unit
 * Kubernetes keeps, rounded up as Kubernetes rounds them: "0.0001" is 1
 * milli, "12" is 12000, "16Gi" is 17179869184000.  At most 18 significant
 * digits are read and the result must fit an int64_t (about 9.2e15 units),
 * which holds any CPU count or memory size a node reports.
 */
#ifndef FS_SERVE_QUANTITY_H
#define FS_SERVE_QUANTITY_H

#include "../base/base.h"

/* Parse s (the whole string; no spaces) into *milli, its value x 1000
 * rounded up (towards +infinity).  RET: 0, or FS_EDATA with err saying why
 * ("\"16Gb\": unknown suffix \"Gb\""). */
int quantity_milli(const char *s, int64_t *milli, struct fs_err *err);

#endif
