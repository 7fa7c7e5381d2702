/* output.c - output files and sets of them, committed whole or not at
 * all (see output.h). */
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/signals.h"
#include "stream.h"

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
    if (fd >= 0 && fchmod(fd, 0666 & ~current_umask()) != 0) {
        close(fd);
        unlink(o->tmp);
        fd = -1;
    }
    o->fd = fd;
    if (fd < 0 || out_stream(o) != 0) {
        int e = errno;
        if (fd >= 0)
            unlink(o->tmp);
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
    /* Durable before it is renamed or swapped in: a crash never leaves an
     * empty file under a final name. */
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno, late = out_sink_drain(o->sink);
    if (late) {
        bad = 1;
        e = late;
    }
    bad |= fsync(o->fd) != 0;
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad)
        return out_budget_error(fs_fail(err, FS_ECANTCREAT, "%s: write error: %s", o->final, strerror(e)), err);
    return 0;
}

int out_commit(struct outfile *o, struct fs_err *err)
{
    if (fs_interrupted()) /* the last moment to keep nothing */
        return fs_fail_interrupted(err);
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
    if (o->tmp && !(o->set && o->set->committed))
        unlink(o->tmp);
    free(o->tmp);
    free(o->final);
    *o = (struct outfile){0};
}

/* --- output sets ------------------------------------------------------------ */

#define MANIFEST ".fleetsim-set"
#define MANIFEST_HEAD "fleetsim output set 1\n"

/* The set being written, for the out-of-memory hook (one at a time). */
static struct outset *active;

/* Remove what the set wrote so far, without allocating (the hook runs
 * when memory is exhausted). */
static void remove_private(const struct outset *o)
{
    char path[4096];
    for (size_t k = 0; k < o->n; k++) {
        snprintf(path, sizeof path, "%s/%s", o->tmp, o->names[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/" MANIFEST, o->tmp);
    unlink(path);
    rmdir(o->tmp);
}

static void oom_cleanup(void)
{
    if (active && active->tmp && !active->committed) {
        remove_private(active);
        if (active->created)
            rmdir(active->dir);
    }
}

/* Remove the files of an old set (now in a private folder) and the
 * folder; one that holds more than files keeps what rmdir cannot take. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = join(dir, "", e->d_name, "");
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The folder and the prefix of its private siblings: "PARENT" and
 * ".BASE.fleetsim-". */
static void split(const char *dir, char **parent, char **prefix)
{
    const char *b = strrchr(dir, '/');
    size_t len = b ? (size_t)(b - dir) : 0;
    *parent = b ? (len ? memcpy(xcalloc(len + 1, 1), dir, len) : xstrdup("/")) : xstrdup(".");
    b = b ? b + 1 : dir;
    size_t n = strlen(b) + 12;
    *prefix = xmalloc(n);
    snprintf(*prefix, n, ".%s.fleetsim-", b);
}

/* Private siblings left by killed runs: while we hold the lock no other
 * writer is building one, so every one is stale. */
static void remove_stale(const char *parent, const char *prefix)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strlen(e->d_name) == strlen(prefix) + 6) {
            char *p = join(parent, "", e->d_name, "");
            remove_tree(p);
            free(p);
        }
    closedir(d);
}

/* The names the manifest of dir lists (NULL-terminated, or NULL when
 * there is none). */
static char **read_manifest(int dfd)
{
    int fd = openat(dfd, MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char line[512], **names = NULL;
    size_t n = 0, cap = 0;
    bool ok = fgets(line, sizeof line, f) && strcmp(line, MANIFEST_HEAD) == 0;
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        xgrow(&names, &cap, n + 2, sizeof *names);
        names[n++] = xstrdup(line);
    }
    fclose(f);
    if (!ok)
        return NULL;
    xgrow(&names, &cap, n + 1, sizeof *names);
    names[n] = NULL;
    return names;
}

static void free_names(char **names)
{
    for (size_t k = 0; names && names[k]; k++)
        free(names[k]);
    free(names);
}

static bool listed(char *const *names, size_t n, const char *name)
{
    for (size_t k = 0; names && (n ? k < n : names[k] != NULL); k++)
        if (strcmp(names[k], name) == 0)
            return true;
    return false;
}

/* May the set replace what dir holds?  Everything in it must be fleetsim's:
 * listed in its manifest, or (a folder an older fleetsim wrote, with no
 * manifest) a regular file the new set also writes, or such a file's old
 * temporary ".NAME.tmp".  With new == NULL (before the files are known)
 * only what cannot pass at all is refused.  RET: 0 or FS_ECANTCREAT. */
static int check_owned(const struct outset *o, char *const *newn, size_t nnew, struct fs_err *err)
{
    int dfd = dup(o->lock), rc = 0;
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot read the folder: %s", o->shown, strerror(errno));
    }
    rewinddir(d);
    char **man = read_manifest(o->lock);
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, MANIFEST) == 0 ||
            listed(man, 0, name))
            continue;
        struct stat st;
        bool file = fstatat(o->lock, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
        size_t len = strlen(name);
        char base[512] = "";
        if (name[0] == '.' && len > 5 && len < sizeof base && strcmp(name + len - 4, ".tmp") == 0)
            snprintf(base, sizeof base, "%.*s", (int)(len - 5), name + 1);
        if (file && (!newn || listed(newn, nnew, name) || (base[0] && listed(newn, nnew, base))))
            continue;
        rc = fs_fail(err, FS_ECANTCREAT, "%s: holds \"%s\", which fleetsim did not write; the whole folder is "
                                         "replaced by the new results, so choose a new or empty folder",
                     o->shown, name);
    }
    free_names(man);
    closedir(d);
    return rc;
}

/* Open dir and take its lock; retry when a writer that just finished
 * swapped another folder in between.  RET: 0, FS_ETEMPFAIL or FS_ECANTCREAT. */
static int lock_dir(struct outset *o, struct fs_err *err)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && (mkdir(o->dir, 0777) == 0 || errno == EEXIST)) {
            o->created = true; /* a writer that failed removed the folder it had created */
            continue;
        }
        if (fd < 0)
            return fs_fail(err, FS_ECANTCREAT, "%s: cannot open the folder: %s", o->shown, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                return fs_fail(err, FS_ETEMPFAIL, "%s: another fleetsim is writing this folder; run again when "
                                                  "it has finished, or choose another -o", o->shown);
            return fs_fail(err, FS_ECANTCREAT, "%s: cannot lock the folder: %s", o->shown, strerror(e));
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(o->dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            o->lock = fd;
            o->mode = a.st_mode & 07777;
            return 0;
        }
        close(fd); /* replaced since we opened it: lock the new one */
    }
    return fs_fail(err, FS_ETEMPFAIL, "%s: the folder keeps changing under us", o->shown);
}

int out_set_begin(struct outset *o, const char *dir, struct fs_err *err)
{
    *o = (struct outset){.lock = -1};
    if (!*dir)
        return fs_fail(err, FS_EUSAGE, "-o \"\": the output folder's name is empty");
    struct stat st;
    if (lstat(dir, &st) != 0) {
        o->created = true;
        int rc = out_mkdir(dir, err);
        if (rc)
            return rc;
    } else if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
        return fs_fail(err, FS_ECANTCREAT, "%s: not a folder", dir);
    }
    /* A link to a folder: replace the folder it names, keep the link. */
    char *real = realpath(dir, NULL);
    if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(real);
        return fs_fail(err, FS_ECANTCREAT, "%s: not a folder", dir);
    }
    if (strcmp(real, "/") == 0) {
        free(real);
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot replace the root folder", dir);
    }
    o->dir = real;
    o->shown = xstrdup(dir);
    int rc = lock_dir(o, err);
    if (rc == 0)
        rc = check_owned(o, NULL, 0, err);
    char *parent = NULL, *prefix = NULL;
    split(o->dir, &parent, &prefix);
    if (rc == 0) {
        remove_stale(parent, prefix);
        o->tmp = xmalloc(strlen(parent) + strlen(prefix) + 8);
        sprintf(o->tmp, "%s/%sXXXXXX", parent, prefix);
        if (!mkdtemp(o->tmp)) {
            rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot create a folder beside it: %s", dir, strerror(errno));
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    free(parent);
    free(prefix);
    if (rc == 0) {
        active = o;
        fs_set_oom_hook(oom_cleanup);
    }
    return rc;
}

int out_set_open(struct outset *o, struct outfile *f, const char *name, struct fs_err *err)
{
    *f = (struct outfile){.final = join(o->shown, "", name, ""), .tmp = join(o->tmp, "", name, ""), .set = o};
    xgrow(&o->names, &o->cap, o->n + 1, sizeof *o->names);
    o->names[o->n++] = xstrdup(name);
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    f->fd = fd;
    if (fd < 0 || out_stream(f) != 0) {
        int e = errno;
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot create: %s", f->final, strerror(e));
    }
    return 0;
}

const char *out_set_path(const struct outset *o) { return o->tmp; }

/* Write the manifest (the files present in the private folder, in the
 * order opened) and make the folder durable before it is swapped in. */
static int finish_private(struct outset *o, char ***present, size_t *npresent, struct fs_err *err)
{
    struct outfile m;
    *present = NULL;
    *npresent = 0;
    size_t cap = 0;
    int rc = out_set_open(o, &m, MANIFEST, err);
    o->n--; /* the manifest is not one of the set's names */
    free(o->names[o->n]);
    if (rc)
        goto done;
    fputs(MANIFEST_HEAD, m.f);
    for (size_t k = 0; k < o->n; k++) {
        struct stat st;
        char *p = join(o->tmp, "", o->names[k], "");
        if (lstat(p, &st) == 0) {
            fprintf(m.f, "%s\n", o->names[k]);
            xgrow(present, &cap, *npresent + 1, sizeof **present);
            (*present)[(*npresent)++] = o->names[k];
        }
        free(p);
    }
    rc = out_close(&m, err);
    int dfd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc == 0 && (dfd < 0 || fchmod(dfd, o->mode) != 0 || fsync(dfd) != 0))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot finish the new folder: %s", o->shown, strerror(errno));
    if (dfd >= 0)
        close(dfd);
done:
    free(m.tmp);
    free(m.final);
    return rc;
}

/* Swap the private folder and dir in one step (renameat2 RENAME_EXCHANGE);
 * where the file system cannot, move dir aside and the new one in. */
static int swap_in(struct outset *o, struct fs_err *err)
{
#ifdef SYS_renameat2
    if (syscall(SYS_renameat2, AT_FDCWD, o->tmp, AT_FDCWD, o->dir, 2 /* RENAME_EXCHANGE */) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot replace the folder: %s", o->shown, strerror(errno));
#endif
    /* Not atomic: a crash between the renames leaves dir absent, the old
     * set whole under the private name and the new one whole beside it. */
    size_t n = strlen(o->tmp) + 5;
    char *aside = xmalloc(n);
    snprintf(aside, n, "%s-old", o->tmp);
    int rc = 0;
    if (rename(o->dir, aside) != 0 || rename(o->tmp, o->dir) != 0 || rename(aside, o->tmp) != 0)
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot replace the folder: %s", o->shown, strerror(errno));
    free(aside);
    return rc;
}

int out_set_commit(struct outset *o, struct fs_err *err)
{
    if (fs_interrupted()) /* the last moment to keep nothing */
        return fs_fail_interrupted(err);
    char **present = NULL;
    size_t npresent = 0;
    int rc = finish_private(o, &present, &npresent, err);
    if (rc == 0)
        rc = check_owned(o, present, npresent, err);
    free(present);
    if (rc == 0)
        rc = swap_in(o, err);
    if (rc)
        return rc;
    o->committed = true;
    /* The old set now sits under the private name. */
    remove_tree(o->tmp);
    char *parent = NULL, *prefix = NULL;
    split(o->dir, &parent, &prefix);
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd >= 0) {
        fsync(pfd);
        close(pfd);
    }
    free(parent);
    free(prefix);
    return 0;
}

void out_set_end(struct outset *o)
{
    if (!o->committed) {
        if (o->tmp)
            remove_private(o);
        if (o->created && o->lock >= 0)
            rmdir(o->dir); /* only when still empty, and only while ours */
    }
    if (o->lock >= 0)
        close(o->lock); /* and with it the lock */
    if (active == o)
        active = NULL;
    for (size_t k = 0; k < o->n; k++)
        free(o->names[k]);
    free(o->names);
    free(o->tmp);
    free(o->dir);
    free(o->shown);
    *o = (struct outset){.lock = -1};
}
