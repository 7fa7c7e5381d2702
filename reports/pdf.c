/* pdf.c - report.pdf through headless Chromium (pdf.h). */
#include "pdf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *pdf_chromium(struct fs_err *err)
{
    static char buf[4096];
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome"};
    const char *env = getenv("FLEETSIM_CHROMIUM");
    if (env && *env) {
        if (access(env, X_OK) == 0)
            return env;
        fs_fail(err, FS_EUNAVAILABLE, "--pdf: FLEETSIM_CHROMIUM=%s is not an executable; report.pdf needs "
                "headless Chromium", env);
        return NULL;
    }
    for (size_t i = 0; i < FS_ARRAY_LEN(names); i++)
        if (fs_which(names[i], buf, sizeof buf))
            return buf;
    fs_fail(err, FS_EUNAVAILABLE, "--pdf: needs Chromium (chromium, chromium-browser or google-chrome on "
            "PATH, or FLEETSIM_CHROMIUM) to print report.html to report.pdf; install it with "
            "tools/install-deps.sh --with-browser, or drop --pdf");
    return NULL;
}

/* Wait for pid at most limit_s seconds; kill it after that.  RET: its exit
 * status, or -1 (killed, or not exited normally). */
static int wait_limited(pid_t pid, int limit_s)
{
    struct timespec tick = {0, 50 * 1000 * 1000};
    for (int k = 0; k < limit_s * 20; k++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (r < 0 && errno != EINTR)
            return -1;
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return -1;
}

int pdf_write(const char *chromium, const char *dir, struct fs_err *err)
{
    char abs[4096], html[4200], url[4300], tmp[4200], out[4200], prof[4200], arg[4300];
    if (!realpath(dir, abs))
        return fs_fail(err, FS_ECANTCREAT, "%s: %s", dir, strerror(errno));
    snprintf(html, sizeof html, "%s/report.html", abs);
    snprintf(url, sizeof url, "file://%s", html);
    snprintf(tmp, sizeof tmp, "%s/.report.pdf.XXXXXX", abs);
    snprintf(out, sizeof out, "%s/report.pdf", abs);
    snprintf(prof, sizeof prof, "%s/.chromium.XXXXXX", abs);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot create a temporary file: %s", dir, strerror(errno));
    mode_t mask = umask(022); /* read the umask, then put it back */
    umask(mask);
    int bad = fchmod(fd, 0666 & ~mask);
    close(fd);
    if (bad) {
        unlink(tmp);
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot set the mode of report.pdf: %s", dir, strerror(errno));
    }
    if (!mkdtemp(prof)) {
        unlink(tmp);
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot create a temporary folder: %s", dir, strerror(errno));
    }
    snprintf(arg, sizeof arg, "--print-to-pdf=%s", tmp);
    char profarg[4300];
    snprintf(profarg, sizeof profarg, "--user-data-dir=%s", prof);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { /* Chromium's chatter is not ours to print */
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        char *argv[] = {(char *)chromium, (char *)"--headless", (char *)"--no-sandbox", (char *)"--disable-gpu",
                        (char *)"--no-pdf-header-footer", (char *)"--allow-file-access-from-files",
                        profarg, arg, url, NULL};
        execv(chromium, argv);
        _exit(127);
    }
    int status = pid < 0 ? -1 : wait_limited(pid, 120);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", prof); /* Chromium's profile: ours, a fresh mkdtemp name */
    if (system(cmd) != 0)
        fprintf(stderr, "fleetsim: warning: could not remove %s\n", prof);
    struct stat sb;
    if (status != 0 || stat(tmp, &sb) != 0 || sb.st_size == 0) {
        unlink(tmp);
        return fs_fail(err, FS_ECANTCREAT, "%s: Chromium (%s) could not print report.html to PDF (%s)", dir,
                       chromium, status < 0 ? "it crashed or ran over two minutes" : "it wrote nothing");
    }
    if (rename(tmp, out) != 0) {
        unlink(tmp);
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot rename to report.pdf: %s", dir, strerror(errno));
    }
    return 0;
}
