/* fuzz_util.c - the libFuzzer targets' temporary folder and catalog. */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../models/gpu.h"

#define FUZZ_MAX_FILES 8

static char dir[4096];
static char paths[FUZZ_MAX_FILES][4200];
static int npaths;
static struct gpu_catalog *cat;

static void fatal(const char *what)
{
    perror(what);
    abort();
}

static void cleanup(void)
{
    for (int i = 0; i < npaths; i++)
        unlink(paths[i]);
    if (dir[0])
        rmdir(dir);
    gpu_catalog_free(cat);
    cat = NULL;
}

/* Make the folder and register the cleanup, once. */
static void init(void)
{
    if (dir[0])
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fleetsim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fatal(dir);
    atexit(cleanup);
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    init();
    int i = 0;
    char path[sizeof paths[0]];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    while (i < npaths && strcmp(paths[i], path) != 0)
        i++;
    if (i == npaths) {
        if (npaths == FUZZ_MAX_FILES)
            fatal("fuzz_write: too many files");
        strcpy(paths[npaths++], path);
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fatal(path);
    return paths[i];
}

const struct gpu_catalog *fuzz_catalog(void)
{
    if (!cat) {
        struct fs_err err = {0};
        init();
        if (gpu_catalog_load(FUZZ_CATALOG, &cat, &err) != 0) {
            fprintf(stderr, "fuzz: %s (run from the repository root)\n", err.msg);
            abort();
        }
    }
    return cat;
}
