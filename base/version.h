/* version.h - what build this is: the fleetsim version and the git commit
 * it was built from, stamped into every output (summary.json, compare.json,
 * plan.json, results.json, the regress baseline and the reports) so a
 * number can be traced to the code that made it.  Golden tests ignore the
 * stamp (the "meta" object).
 */
#ifndef FS_BASE_VERSION_H
#define FS_BASE_VERSION_H

#include <cjson/cJSON.h>

#define FLEETSIM_VERSION "0.1.0"

/* The commit (`git describe --always --dirty` at build time), or
 * "unknown" when the build was not from a git checkout. */
extern const char fleetsim_commit[];

/* {"fleetsim": VERSION, "commit": COMMIT}, for an output's "meta" key.
 * RET: a new object (the caller adds it to a tree, which then owns it). */
cJSON *version_json(void);

#endif
