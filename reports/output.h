/* output.h - output files written atomically: each goes to a hidden
 * temporary name in the output folder and is renamed into place only when
 * the whole run has succeeded, so a failed or interrupted run never leaves a
 * file that looks complete.
 */
#ifndef FS_REPORTS_OUTPUT_H
#define FS_REPORTS_OUTPUT_H

#include <stdio.h>

#include "../base/base.h"

struct outfile {
    char *final;   /* DIR/NAME */
    char *tmp;     /* DIR/.NAME.XXXXXX, while the file is not committed */
    FILE *f;
};

/* Create dir (and its parents) if missing.  RET: 0 or FS_ECANTCREAT. */
int out_mkdir(const char *dir, struct fs_err *err);

/* Open a fresh temporary file DIR/.NAME.XXXXXX (mkstemp: O_EXCL, so a
 * planted link is never followed, and two writers never share one) for
 * DIR/NAME.  RET: 0, or FS_ECANTCREAT (also when DIR/NAME is a folder, a
 * device, a FIFO or a socket: an output replaces only a regular file). */
int out_open(struct outfile *o, const char *dir, const char *name, struct fs_err *err);

/* out_open for a path "DIR/NAME" or "NAME", creating DIR if missing.
 * RET: 0, FS_EUSAGE for an empty name, or out_open's error. */
int out_open_path(struct outfile *o, const char *path, struct fs_err *err);

/* Flush and close o; RET: 0 or FS_ECANTCREAT on a write error.  The file
 * stays under its temporary name. */
int out_close(struct outfile *o, struct fs_err *err);

/* Rename a closed file to its final name.  RET: 0 or FS_ECANTCREAT. */
int out_commit(struct outfile *o, struct fs_err *err);

/* Commit out[0..n) that still have a final name (a discarded one is
 * skipped); on failure remove the ones already renamed, so a set of files
 * lands whole or not at all.  RET: 0 or FS_ECANTCREAT. */
int out_commit_all(struct outfile *out, int n, struct fs_err *err);

/* Close if open, delete the temporary file, free the names.  Accepts a
 * zeroed or already-committed outfile. */
void out_discard(struct outfile *o);

#endif
