/* fuzz_util.h - what the libFuzzer targets share: a private temporary
 * folder (under $TMPDIR, removed at exit) to write each input into, since
 * the loaders under test read files by path. */
#ifndef FS_TESTS_FUZZ_UTIL_H
#define FS_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry points each target defines. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write data to NAME in the temporary folder (replacing it).  RET: the
 * file's path (valid until the next call with the same name); aborts when
 * the folder or file cannot be written, which is a broken setup, not a
 * finding. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* The GPU catalog every target maps GPU names with: models/data/gpus.json
 * (the fuzz runner starts in the repository root), loaded once. */
struct gpu_catalog;
const struct gpu_catalog *fuzz_catalog(void);
#define FUZZ_CATALOG "models/data/gpus.json"

#endif
