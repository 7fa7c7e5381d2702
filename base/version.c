/* version.c - the build's stamp (version.h).  The Makefile passes the
 * commit as FLEETSIM_COMMIT when it compiles this file, and only this one. */
#include "version.h"

#ifndef FLEETSIM_COMMIT
#define FLEETSIM_COMMIT "unknown"
#endif

const char fleetsim_commit[] = FLEETSIM_COMMIT;

cJSON *version_json(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "fleetsim", FLEETSIM_VERSION);
    cJSON_AddStringToObject(o, "commit", fleetsim_commit);
    return o;
}
