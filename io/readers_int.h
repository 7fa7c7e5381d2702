/* readers_int.h - what the trace readers (io/read_*.c) share, private to
 * them: a bounded line reader, field splitting, strict number and date-time
 * parsing with "FILE:LINE: column NAME: ..." messages, drop counting, and
 * the step that moves a finished read into the caller's workload.
 *
 * Every reader reads into a workload of its own and hands it over with
 * rd_commit only when the whole file has parsed, so a failed read leaves the
 * caller's workload as it was.
 */
#ifndef FS_SIM_READERS_INT_H
#define FS_SIM_READERS_INT_H

#include <stdio.h>

#include "readers.h"

/* The native job CSV's header, and its optional column groups
 * (io/workload.c). */
extern const char workload_native_header[], workload_spec_header[], workload_share_header[],
    workload_limit_header[];

#define RD_LINE_LIMIT (64 * 1024)  /* bytes in a line, without its CR LF */
#define RD_MAX_ROWS 10000000LL     /* data rows in one trace */
#define RD_GPUS_LIMIT 100000       /* GPUs one job may ask for */

/* A buffered line reader whose memory stays bounded however long a line in
 * the file is. */
struct rd_lines {
    const char *path;
    FILE *f;
    char *buf;
    size_t pos, end;    /* unread bytes are buf[pos..end) */
    int eof;
    long long lineno;   /* of the line last returned */
    long long rows;     /* data rows counted with rd_count_row */
    /* CSV (rd_csv_next): lines starting with comment are skipped (0: none);
     * record is the line a record began on; rec holds a record that spans
     * lines (a quoted field with line ends). */
    char comment;
    long long record;
    char *rec;
    size_t rec_cap;
};

/* Open path.  RET: 0, or FS_ENOINPUT "PATH: cannot open: ...". */
int rd_open(struct rd_lines *in, const char *path, struct fs_err *err);
void rd_close(struct rd_lines *in); /* a zeroed or closed reader is fine */

/* OUT *s: the next line, CR LF removed, NUL-terminated in place (valid
 * until the next call); a UTF-8 byte order mark is removed from line 1.
 * RET: 1; 0 at the end of the file; FS_EDATA for a line over RD_LINE_LIMIT
 * bytes or with a NUL byte (binary data), FS_ENOINPUT on a read error. */
int rd_next(struct rd_lines *in, char **s, struct fs_err *err);

/* OUT f[0..max), *nf: the fields of the next CSV record (RFC 4180, the one
 * tokenizer of every CSV reader: base/csv.h), unquoted in place (valid
 * until the next call); blank lines and comment lines are skipped.  A
 * quoted field may hold commas, doubled quotes and line ends (a CR LF
 * inside one reads as LF); the record then spans lines, at most
 * RD_LINE_LIMIT bytes in all.  in->record is its first line.
 * RET: 1; 0 at the end of the file; FS_EDATA "FILE:LINE: field N: ..." for
 * a malformed record, or rd_next's error. */
int rd_csv_next(struct rd_lines *in, char **f, int max, int *nf, struct fs_err *err);

/* Read the first CSV record, whose fields must be header's (a comma-
 * separated list) exactly; a header field may be quoted.  RET: 0, or
 * FS_EDATA naming the file (empty, or a different header), or
 * rd_csv_next's error. */
int rd_header(struct rd_lines *in, const char *header, struct fs_err *err);

/* The first CSV record's fields joined by commas, into buf (cut to size).
 * RET: 1; 0 for an empty file; rd_csv_next's error. */
int rd_csv_header(struct rd_lines *in, char *buf, size_t size, struct fs_err *err);

/* Count one more data row.  RET: 0, or FS_EDATA past RD_MAX_ROWS. */
int rd_count_row(struct rd_lines *in, struct fs_err *err);

/* True for a line of blanks only. */
int rd_blank(const char *s);

/* Split s in place at each sep (or, with sep ' ', at runs of blanks and
 * tabs, ignoring leading and trailing ones).  Up to max field pointers go
 * to f.  RET: the number of fields, which may exceed max. */
int rd_split(char *s, char sep, char **f, int max);

/* The place a field's error names. */
struct rd_row {
    const char *path;
    long long line;
    struct fs_err *err;
};

/* FS_EDATA "PATH:LINE: column COL: <fmt>". */
int rd_fail(const struct rd_row *r, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* s printed safely in a message: at most 40 bytes, control and non-ASCII
 * bytes as '?', "..." when cut.  buf has room for 48 bytes. */
const char *rd_show(const char *s, char *buf);

/* s as a decimal integer in [lo, hi]: digits with an optional sign, nothing
 * else (no blanks, no "0x", no fraction).  RET: 0 or FS_EDATA. */
int rd_int(const struct rd_row *r, const char *col, const char *s, int64_t lo, int64_t hi,
           int64_t *out);
/* s as a finite decimal number in [lo, hi] (no "nan", "inf" or hex). */
int rd_num(const struct rd_row *r, const char *col, const char *s, double lo, double hi,
           double *out);
/* s as "YYYY-MM-DD HH:MM:SS" (or 'T' between date and time) with an
 * optional fraction of up to 9 digits, read as UTC, years 1970-2200.
 * OUT *ns: nanoseconds since 1970-01-01 00:00:00. */
int rd_datetime(const struct rd_row *r, const char *col, const char *s, int64_t *ns);

/* A team name for a job: 1-31 characters, interned in w.  RET: its index,
 * or FS_EDATA (named as column col of row r). */
int rd_team(const struct rd_row *r, const char *col, const char *name, struct workload *w);

/* Count a dropped row under reason (a printf format; rows with the same
 * formatted reason are counted together).  st may be NULL. */
void rd_drop(struct reader_stats *st, long long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The catalog type opt names, else the type called def.  RET: the index,
 * or FS_EDATA "PATH: the catalog has no GPU type DEF ...". */
int rd_ref_type(const char *path, const struct reader_options *opt, const char *def,
                const char *format, const struct gpu_catalog *cat, struct fs_err *err);

/* What a job reader does with its open file: read every row into tmp,
 * noting the line of each job in *lines (an array the caller frees).
 * ref is the reference GPU type (rd_ref_type). */
typedef int (*rd_rows_fn)(struct rd_lines *in, const struct reader_options *opt,
                          const struct gpu_catalog *cat, int ref, struct workload *tmp,
                          long long **lines, struct reader_stats *st, struct fs_err *err);

/* The whole read of one job trace: stats reset, the reference type (from
 * opt, else def), open, rows, commit into w, close.  A failed read leaves w
 * as it was and st->jobs 0. */
int rd_read_jobs(const char *path, const struct reader_options *opt, const struct gpu_catalog *cat,
                 const char *def, const char *format, rd_rows_fn rows, struct workload *w,
                 struct reader_stats *st, struct fs_err *err);

/* Finish a read: every job id of tmp unique among tmp and w (lines[i] is the
 * line of tmp's job i, for the message), then tmp's jobs appended to w (team
 * names re-interned) and w sorted by (submit, id).  tmp is freed either way.
 * RET: 0; FS_EDATA for no jobs, a duplicate id or too many teams. */
int rd_commit(struct workload *tmp, const long long *lines, struct workload *w,
              const char *path, const struct reader_stats *st, struct fs_err *err);

#endif
