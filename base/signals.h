/* signals.h - SIGINT and SIGTERM as a request to stop, not a crash.
 *
 * After fs_signals_install, either signal only records its number; the
 * program polls fs_interrupted() at safe points (the engine once per event
 * batch), stops, removes its temporary files and exits 128 + the signal
 * number, so an interrupted run leaves nothing half-written.  Further
 * signals while it stops change nothing: the first one wins.
 */
#ifndef FS_BASE_SIGNALS_H
#define FS_BASE_SIGNALS_H

#include <signal.h>
#include <stdint.h>

#include "base.h"

/* Written only by the handler; read through fs_interrupted. */
extern volatile sig_atomic_t fs_signal_caught;

/* Catch SIGINT and SIGTERM (SA_RESTART, so interrupted reads and writes
 * resume).  Also where the signal came in ignored, as SIGINT does for a
 * background job of a script: a `kill -INT` sent on purpose then still
 * stops the run cleanly, rather than being lost.
 * RET: 0, or -1 when sigaction fails (errno says why). */
int fs_signals_install(void);

/* The number of the first SIGINT or SIGTERM caught, or 0.  A plain load,
 * cheap enough for a hot loop. */
static inline int fs_interrupted(void)
{
    return fs_signal_caught;
}

/* "SIGINT", "SIGTERM", or "signal N" for others (a static buffer). */
const char *fs_signal_name(int sig);

/* How a loop that saw fs_interrupted() stops: err gets FS_EINTERRUPTED
 * and "interrupted by SIGINT; nothing written" (fs_exit_code makes it
 * exit 128 + the signal).  RET: FS_EINTERRUPTED. */
int fs_fail_interrupted(struct fs_err *err);

/* Poll the flag every FS_POLL_EVERY iterations of a hot loop:
 * if (fs_poll(i) && ...) - cheap, and a second at most between looks for
 * any loop whose iteration takes under ~15 us. */
#define FS_POLL_EVERY 65536
static inline int fs_poll(uint64_t i)
{
    return (i & (FS_POLL_EVERY - 1)) == 0 && fs_interrupted();
}

#endif
