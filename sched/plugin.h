/* plugin.h - policies from shared objects (the ABI: include/fleetsim/policy.h,
 * docs/policy-plugins.md).  sched_plugin_load dlopens a plugin, checks its
 * ABI version and lets it register its policies; sched_policy_find
 * (sched.h) then finds them after the built-in ones.
 *
 * Each registered policy becomes a struct sched_policy whose hooks are
 * fixed trampolines, one set per registry slot, that hand the core's
 * structures to the plugin as the ABI's opaque handles.  A plugin stays
 * loaded until the process ends; forked workers inherit it.
 */
#ifndef FS_SCHED_PLUGIN_H
#define FS_SCHED_PLUGIN_H

#include "sched.h"

enum { SCHED_PLUGIN_MAX = 16 };  /* plugin policies per process */

/* Load the plugin at path and register its policies.
 * RET: 0; FS_ENOINPUT (no such file); FS_EDATA (not a shared object, not a
 * fleetsim plugin, built for another ABI version, or its init refused or
 * registered a taken name), with err filled naming path. */
int sched_plugin_load(const char *path, struct fs_err *err);

/* RET: the plugin policy called name, or NULL. */
const struct sched_policy *sched_plugin_find(const char *name);

/* OUT names[0..n): the plugin policies' names.  RET: n. */
size_t sched_plugin_names(const char **names);

#endif
