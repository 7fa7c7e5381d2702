/* signals.c - the SIGINT/SIGTERM flag (see signals.h). */
#include "signals.h"

#include "base.h"

#include <stdio.h>
#include <string.h>

volatile sig_atomic_t fs_signal_caught = 0;

static void on_signal(int sig)
{
    if (!fs_signal_caught)
        fs_signal_caught = sig;
}

int fs_signals_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < FS_ARRAY_LEN(sigs); i++)
        if (sigaddset(&sa.sa_mask, sigs[i]) != 0)
            return -1;
    for (size_t i = 0; i < FS_ARRAY_LEN(sigs); i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return -1;
    return 0;
}

const char *fs_signal_name(int sig)
{
    static char buf[32];
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default:
        snprintf(buf, sizeof buf, "signal %d", sig);
        return buf;
    }
}

int fs_fail_interrupted(struct fs_err *err)
{
    return fs_fail(err, FS_EINTERRUPTED, "interrupted by %s; nothing written",
                   fs_signal_name(fs_interrupted()));
}
