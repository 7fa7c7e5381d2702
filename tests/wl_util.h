/* wl_util.h - shared by tests/test_workload.c and tests/test_gen.c. */
#ifndef FS_TESTS_WL_UTIL_H
#define FS_TESTS_WL_UTIL_H

#include <CUnit/CUnit.h>

#include "../io/workload.h"

/* A catalog built in memory (h100-sxm, h200-sxm, a100-sxm-80, rtx4090):
 * these suites test the workload, not the loader.  wl_setup fills it. */
extern struct gpu_catalog wl_cat;
int wl_setup(void);

/* Read text as a native CSV into w.  RET: workload_read_native's. */
int read_text(const char *text, struct workload *w, struct fs_err *e);

/* Field-by-field equality, doubles bit for bit.  RET: differing jobs. */
size_t count_diffs(const struct workload *a, const struct workload *b);

/* Write w to a temporary file with catalog cat and read it back into *back
 * (the text written goes to text when not NULL).  RET: the read's. */
int write_and_read(const struct gpu_catalog *cat, const struct workload *w, struct workload *back,
                   char *text, size_t text_size);

#endif
