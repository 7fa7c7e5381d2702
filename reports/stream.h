/* stream.h - the stream under every output file (output.c's): it counts
 * each write against the output budget (out_set_max_mb) and refuses, with
 * EFBIG, one that would pass it; the bytes gather in 256 KiB chunks that a
 * thread of their own copies into the file while the run goes on, and a
 * write that fails there shows when the file is drained. */
#ifndef FS_REPORTS_STREAM_H
#define FS_REPORTS_STREAM_H

#include "output.h"

/* o->f: a stream over o->fd (which it takes over); o->sink its writer.
 * RET: 0, or -1 with o->fd closed. */
int out_stream(struct outfile *o);

/* Write what is left and wait for every write.  RET: 0, or the errno of
 * the first that failed. */
int out_sink_drain(struct sink *k);

#endif
