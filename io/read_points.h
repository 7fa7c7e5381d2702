/* read_points.h - a table of measured points "x,watts" (bench/gpu-power.sh
 * writes them; `fleetsim calibrate power` fits them): two numbers a row, a
 * header line, blank lines and '#' comments allowed. */
#ifndef FS_IO_READ_POINTS_H
#define FS_IO_READ_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/base.h"

/* Read the points of path into x[], y[] (room for max each); with log2x, x
 * is log2 of the first column, which must then be > 0.  Watts must be > 0.
 * OUT *n: the points read.  RET: 0 or FS_E* with err set, naming the file
 * and line. */
int read_points(const char *path, bool log2x, double *x, double *y, size_t max, size_t *n, struct fs_err *err);

#endif
