/* pdf.h - report.pdf from report.html through headless Chromium (--pdf on
 * fleetsim run and compare).  Chromium is found as $FLEETSIM_CHROMIUM, or
 * chromium, chromium-browser or google-chrome on $PATH
 * (tools/install-deps.sh --with-browser installs it).  It prints the page
 * as a browser would, charts embedded, with no header or footer, to a
 * temporary name in the folder that is renamed to report.pdf once Chromium
 * exits 0 with a non-empty file; otherwise nothing is left. */
#ifndef FS_REPORTS_PDF_H
#define FS_REPORTS_PDF_H

#include "../base/base.h"

/* The Chromium to print with.  RET: its path (a static buffer), or NULL
 * with err filled: FS_EUNAVAILABLE "--pdf needs Chromium ...". */
const char *pdf_chromium(struct fs_err *err);

/* Print dir/report.html to dir/report.pdf with chromium (pdf_chromium).
 * RET: 0, or FS_ECANTCREAT with err filled (Chromium failed, timed out
 * after two minutes or wrote nothing). */
int pdf_write(const char *chromium, const char *dir, struct fs_err *err);

#endif
