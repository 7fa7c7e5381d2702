/* output.h - outputs that land whole or not at all.
 *
 * A single file (fleetsim gen, import, the regress baseline) is written
 * to a fresh temporary name beside it (mkstemp: O_EXCL, so a link planted
 * there is never followed and two writers never share one) and renamed
 * over the target only when complete.
 *
 * A set of files (the folder of run, compare, plan, sweep, fill) is a
 * transaction on the whole folder DIR:
 *
 *   1. out_set_begin locks DIR (flock on the folder itself, held to the
 *      end; a second writer fails at once with FS_ETEMPFAIL, exit 75) and
 *      creates a private folder beside it, PARENT/.BASE.fleetsim-XXXXXX
 *      (mkdtemp, mode 0700);
 *   2. out_set_open creates each file in the private folder
 *      (O_CREAT|O_EXCL|O_NOFOLLOW), under its final name;
 *   3. out_set_commit writes the manifest DIR/.fleetsim-set (the names of
 *      the set, one a line, after the line "fleetsim output set 1"),
 *      fsyncs, and swaps the private folder and DIR in one step
 *      (renameat2 RENAME_EXCHANGE); the old set, now under the private
 *      name, is removed.
 *
 * So DIR always holds one whole set: the old one until the swap, the new
 * one after; a run that fails or is killed leaves the old set untouched
 * (and a killed run's private folder, which the next writer to DIR
 * removes).  Where the file system cannot exchange (EINVAL: NFS, some
 * FUSE) the swap is two renames, with a moment when DIR is absent.
 *
 * The whole folder is replaced, so DIR must hold only fleetsim's files:
 * empty, or what its manifest lists, or (a folder an older fleetsim wrote)
 * regular files under names the new set writes.  Anything else is refused
 * (FS_ECANTCREAT) rather than deleted.  DIR given as a link to a folder
 * replaces the folder it names and keeps the link.  The new folder keeps
 * the old one's permissions.
 *
 * Out of memory while a set is open removes its private folder (the hook
 * in base.h) before exiting 70.  A SIGINT or SIGTERM caught (base/signals.h)
 * before out_commit or out_set_commit makes it refuse (FS_EINTERRUPTED),
 * so an interrupted command never replaces anything.
 *
 * The budget: every file these functions open counts against one limit on
 * the bytes a process writes in all (--max-output-mb, default
 * OUT_DEFAULT_MAX_MB).  A write that would pass it is refused before it is
 * made, the stream's error flag is set, and out_close (or, for a writer
 * that stopped at the error, out_budget_error) names the limit.
 */
#ifndef FS_REPORTS_OUTPUT_H
#define FS_REPORTS_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../base/base.h"

struct outset;
struct sink;

struct outfile {
    char *final;   /* DIR/NAME, as messages name it */
    char *tmp;     /* where the file is now, until it is committed */
    FILE *f;       /* a stream that counts against the budget (below) */
    int fd;        /* f's file, for fsync */
    struct sink *sink;         /* f's writer (output.c) */
    const struct outset *set;  /* the set it belongs to, or NULL */
};

struct outset {
    char *dir;         /* DIR, links resolved */
    char *shown;       /* DIR as given, for messages */
    char *tmp;         /* the private folder */
    int lock;          /* DIR open and locked, or -1 */
    mode_t mode;       /* DIR's permissions, for the new folder */
    bool created;      /* DIR did not exist: removed again if the set fails */
    bool committed;
    char **names;      /* the files opened, in order */
    size_t n, cap;
};

#define OUT_DEFAULT_MAX_MB 10240 /* 10 GiB: ten million jobs' jobs.csv and a
                                   year of 10-second timeseries rows fit */

/* The budget in MiB (--max-output-mb); before any output is opened. */
void out_set_max_mb(uint64_t mb);

/* code, or, when a write was refused for the budget, FS_ECANTCREAT with
 * err saying so (a writer stopped by the refusal reports it first). */
int out_budget_error(int code, struct fs_err *err);

/* Create dir (and its parents) if missing.  RET: 0, FS_EUSAGE for an
 * empty name or FS_ECANTCREAT. */
int out_mkdir(const char *dir, struct fs_err *err);

/* Open a fresh temporary file DIR/.NAME.XXXXXX for DIR/NAME.  RET: 0, or
 * FS_ECANTCREAT (also when DIR/NAME is a folder, a device, a FIFO or a
 * socket: an output replaces only a regular file). */
int out_open(struct outfile *o, const char *dir, const char *name, struct fs_err *err);

/* out_open for a path "DIR/NAME" or "NAME", creating DIR if missing.
 * RET: 0, FS_EUSAGE for an empty name, or out_open's error. */
int out_open_path(struct outfile *o, const char *path, struct fs_err *err);

/* Flush, fsync and close o; RET: 0 or FS_ECANTCREAT on a write error.
 * The file keeps its temporary name (or stays in its set's folder). */
int out_close(struct outfile *o, struct fs_err *err);

/* Rename a closed single file to its final name.  RET: 0 or FS_ECANTCREAT. */
int out_commit(struct outfile *o, struct fs_err *err);

/* Close if open, delete the file unless its set was committed, free the
 * names.  Accepts a zeroed or already-committed outfile. */
void out_discard(struct outfile *o);

/* Begin a set for the folder dir (steps above).  RET: 0; FS_EUSAGE for an
 * empty name; FS_ETEMPFAIL when another writer holds dir; FS_ECANTCREAT
 * when dir is not a folder, holds files fleetsim did not write, or
 * cannot be locked or have a folder created beside it.  Call out_set_end
 * whatever it returns. */
int out_set_begin(struct outset *o, const char *dir, struct fs_err *err);

/* Create the set's file NAME.  RET: 0 or FS_ECANTCREAT. */
int out_set_open(struct outset *o, struct outfile *f, const char *name, struct fs_err *err);

/* The private folder the set's files are in until the commit (where a
 * chart renderer runs). */
const char *out_set_path(const struct outset *o);

/* Swap the set in for DIR (every file closed or discarded first).
 * RET: 0 or FS_ECANTCREAT, DIR then untouched. */
int out_set_commit(struct outset *o, struct fs_err *err);

/* Remove the set's private folder unless committed, release the lock,
 * free o.  Accepts a set whose begin failed, or one initialized
 * {.lock = -1} whose begin was never called. */
void out_set_end(struct outset *o);

#endif
