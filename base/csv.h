/* csv.h - RFC 4180 CSV: writing one field, and splitting one record.
 *
 * Writers put each text field through csv_put, which quotes a field only
 * when it must be quoted (it holds a comma, a double quote, a CR or a LF, or
 * starts or ends with a blank, which some readers would trim): the output
 * of a field that needs no quotes is the field itself.
 *
 * Readers split records with csv_split.  The trace readers (io/readers_int.h,
 * rd_csv_next) first gather a record's physical lines, since a quoted field
 * may hold line ends; csv_split then works on the whole record.
 */
#ifndef FS_BASE_CSV_H
#define FS_BASE_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* Must s be quoted to stand as one CSV field? */
bool csv_needs_quotes(const char *s);

/* Write s as one CSV field to f: as it is, or in double quotes with each
 * double quote doubled.  RET: 0, or EOF on a write error. */
int csv_put(FILE *f, const char *s);

/* The bytes csv_put writes for s, in a new string (for a writer that
 * builds its rows in memory). */
char *csv_field(const char *s);

/* Why csv_split refused a record. */
enum csv_error {
    CSV_OK,
    CSV_OPEN_QUOTE,   /* a quoted field not closed by the end of the record */
    CSV_AFTER_QUOTE,  /* text after a closing quote, before the next comma */
};

/* A message for e ("text after a closing quote"). */
const char *csv_error_text(enum csv_error e);

/* Split the record s (its line ends inside quoted fields kept, the record's
 * own end removed) in place at each comma outside quotes, removing the
 * quotes of quoted fields and undoubling their double quotes.  Only a quote
 * that starts a field opens a quoted field: one inside an unquoted field is
 * kept as text (as Python's csv module reads it), so files written before
 * fleetsim quoted, with a '"' in a team name, still read the same.  Up to max
 * field pointers go to f.  OUT *nf: the number of fields, which may exceed
 * max; *bad_field (may be NULL): on failure, the 1-based field it happened
 * in.  RET: CSV_OK or the first error. */
enum csv_error csv_split(char *s, char **f, int max, int *nf, int *bad_field);

/* Does s end inside an open quoted field?  (A reader that gets this for a
 * line appends the next line, with the line end between, and asks again.) */
bool csv_open_quote(const char *s);

#endif
