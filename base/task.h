/* task.h - work beside the caller: a function on a thread of its own, a
 * program in a process of its own.  (Wrappers, so that callers need not
 * include <pthread.h> or <spawn.h>, whose <sched.h> has a struct
 * sched_param of its own.) */
#ifndef FS_BASE_TASK_H
#define FS_BASE_TASK_H

#include <sys/types.h>

struct fs_task;

/* Start fn(arg) on a new thread.  When no thread can be started, fn(arg)
 * runs here, now.  RET: the task to join, or NULL when fn already ran. */
struct fs_task *fs_task_start(void (*fn)(void *arg), void *arg);

/* Wait for t to finish, and free it (nothing for NULL). */
void fs_task_join(struct fs_task *t);

/* Start the program at path with argv in folder dir, its standard output
 * and error going to /dev/null.  posix_spawn, not fork: a fork of a
 * million-job run copies its page tables and leaves every page
 * copy-on-write for the writes after.  RET: its pid, or -1. */
pid_t fs_spawn_quiet(const char *path, char *const argv[], const char *dir);

#endif
