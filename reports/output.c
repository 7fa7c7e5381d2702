/* output.c - temporary-then-rename output files. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask (read by setting it back at once). */
static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

int out_mkdir(const char *dir, struct fs_err *err)
{
    if (!*dir)
        return fs_fail(err, FS_EUSAGE, "-o \"\": the output folder's name is empty");
    char *p = xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot create folder: %s", p, strerror(errno));
            break;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    if (!rc && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: not a folder", dir);
    free(p);
    return rc;
}

static char *join(const char *dir, const char *prefix, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(prefix) + strlen(name) + strlen(suffix) + 2;
    char *s = xmalloc(n);
    snprintf(s, n, "%s/%s%s%s", dir, prefix, name, suffix);
    return s;
}

/* 0 when path is absent or a regular file (or a link, which a rename
 * replaces rather than follows); FS_ECANTCREAT for a folder, a device, a
 * FIFO or a socket, which an output must never replace. */
static int check_target(const char *path, struct fs_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
        return 0;
    return fs_fail(err, FS_ECANTCREAT, "%s: cannot replace %s with an output file", path,
                   S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO"
                   : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
}

int out_open(struct outfile *o, const char *dir, const char *name, struct fs_err *err)
{
    *o = (struct outfile){.final = join(dir, "", name, "")};
    int rc = check_target(o->final, err);
    if (rc)
        return rc;
    /* A name of our own, created with O_EXCL: a link planted there makes
     * mkstemp fail rather than write through it. */
    o->tmp = join(dir, ".", name, ".XXXXXX");
    int fd = mkstemp(o->tmp);
    if (fd < 0 || fchmod(fd, 0666 & ~current_umask()) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot create: %s", o->final, strerror(e));
    }
    return 0;
}

int out_open_path(struct outfile *o, const char *path, struct fs_err *err)
{
    size_t n = strlen(path);
    if (n == 0)
        return fs_fail(err, FS_EUSAGE, "-o \"\": the output file's name is empty");
    if (path[n - 1] == '/')
        return fs_fail(err, FS_EUSAGE, "%s: the output file's name ends with '/'", path);
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    /* The folder: "." for a bare name, "/" for a file in the root. */
    size_t len = (size_t)(name - path);
    char *dir = len == 0 ? xstrdup(".") : len == 1 ? xstrdup("/") : memcpy(xcalloc(len, 1), path, len - 1);
    int rc = out_mkdir(dir, err);
    if (rc == 0)
        rc = out_open(o, dir, name, err);
    free(dir);
    return rc;
}

int out_close(struct outfile *o, struct fs_err *err)
{
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad)
        return fs_fail(err, FS_ECANTCREAT, "%s: write error", o->final);
    return 0;
}

int out_commit(struct outfile *o, struct fs_err *err)
{
    if (rename(o->tmp, o->final) != 0)
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot rename into place: %s", o->final, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void out_discard(struct outfile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->final);
    *o = (struct outfile){0};
}

int out_commit_all(struct outfile *out, int n, struct fs_err *err)
{
    for (int k = 0; k < n; k++) {
        if (!out[k].final)
            continue;
        int rc = out_commit(&out[k], err);
        if (rc) {
            while (k-- > 0)
                if (out[k].final)
                    unlink(out[k].final);
            return rc;
        }
    }
    return 0;
}
