/* test_output.c - the streams of output files (reports/output.h), whose
 * bytes gather in chunks that a thread of their own writes: every byte
 * arrives, in order, whatever the sizes of the writes; a write that fails
 * on that thread is reported when the file is closed, and the file is not
 * kept. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../reports/output.h"
#include "testutil.h"

enum { TOTAL = 3 << 20 }; /* a dozen chunks */

/* Byte i of the stream written. */
static char pattern(size_t i)
{
    return (char)('a' + (i * 7 + i / 4099) % 26);
}

/* Write TOTAL pattern bytes to f in pieces of 1 byte to about 1 MiB. */
static void write_pattern(FILE *f)
{
    static const size_t sizes[] = {1, 7, 4096, 8191, 100000, 262144, 262145, 1 << 20};
    char *buf = xmalloc(1 << 20);
    for (size_t at = 0, k = 0; at < TOTAL; k++) {
        size_t n = sizes[k % FS_ARRAY_LEN(sizes)];
        if (n > TOTAL - at)
            n = TOTAL - at;
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(at + i);
        fwrite(buf, 1, n, f);
        at += n;
    }
    free(buf);
}

static char *temp_dir(void)
{
    static char dir[64];
    strcpy(dir, "/tmp/fleetsim-output-XXXXXX");
    return mkdtemp(dir);
}

/* Entries of dir but . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void test_every_byte(void)
{
    char *dir = temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    struct outfile o = {0};
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(out_open(&o, dir, "big.txt", &err), 0);
    write_pattern(o.f);
    CU_ASSERT_EQUAL(out_close(&o, &err), 0);
    CU_ASSERT_EQUAL(out_commit(&o, &err), 0);
    out_discard(&o);
    char path[128];
    snprintf(path, sizeof path, "%s/big.txt", dir);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t n = 0, wrong = 0;
    for (int c; (c = fgetc(f)) != EOF; n++)
        wrong += (char)c != pattern(n);
    fclose(f);
    CU_ASSERT_EQUAL(n, TOTAL);
    CU_ASSERT_EQUAL(wrong, 0);
    unlink(path);
    rmdir(dir);
}

/* In a child limited to 1 MiB files (RLIMIT_FSIZE: write fails with
 * EFBIG past it, SIGXFSZ ignored), the chunks past the limit fail on the
 * writer's thread: out_close must say so, and discarding leaves nothing. */
static void test_late_failure(void)
{
    char *dir = temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {1 << 20, 1 << 20};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(2);
        struct outfile o = {0};
        struct fs_err err = {0};
        if (out_open(&o, dir, "big.txt", &err) != 0)
            _exit(3);
        write_pattern(o.f);
        int rc = out_close(&o, &err);
        out_discard(&o);
        _exit(rc == FS_ECANTCREAT && strstr(err.msg, "big.txt: write error: File too large") ? 0 : 4);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
    CU_ASSERT_EQUAL(entries(dir), 0);
    rmdir(dir);
}

static CU_TestInfo tests[] = {
    {"every byte arrives, in order, through the writer thread", test_every_byte},
    {"a write failing on the writer thread is reported at close", test_late_failure},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"output", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("output", suites);
}
