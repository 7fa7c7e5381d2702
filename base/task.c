/* task.c - a function on a thread, a program in a process (task.h). */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include "task.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <unistd.h>

#include "base.h"

struct fs_task {
    pthread_t thread;
    void (*fn)(void *arg);
    void *arg;
};

static void *run(void *p)
{
    struct fs_task *t = p;
    t->fn(t->arg);
    return NULL;
}

struct fs_task *fs_task_start(void (*fn)(void *arg), void *arg)
{
    struct fs_task *t = xmalloc(sizeof *t);
    *t = (struct fs_task){.fn = fn, .arg = arg};
    if (pthread_create(&t->thread, NULL, run, t) == 0)
        return t;
    free(t);
    fn(arg);
    return NULL;
}

void fs_task_join(struct fs_task *t)
{
    if (t) {
        pthread_join(t->thread, NULL);
        free(t);
    }
}

pid_t fs_spawn_quiet(const char *path, char *const argv[], const char *dir)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    pid_t pid = -1;
    if (posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) != 0 ||
        posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO) != 0 ||
        posix_spawn_file_actions_addchdir_np(&fa, dir) != 0 || posix_spawn(&pid, path, &fa, NULL, argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}
