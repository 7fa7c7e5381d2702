/* output.c - temporary-then-rename output files. */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_mkdir(const char *dir, struct fs_err *err)
{
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

int out_open(struct outfile *o, const char *dir, const char *name, struct fs_err *err)
{
    o->final = join(dir, "", name, "");
    o->tmp = join(dir, ".", name, ".tmp");
    o->f = fopen(o->tmp, "w");
    if (!o->f)
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot create: %s", o->final, strerror(errno));
    return 0;
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
