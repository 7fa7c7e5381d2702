/* compare_int.h - what compare.c and compare_text.c share (private to
 * reports/). */
#ifndef FS_REPORTS_COMPARE_INT_H
#define FS_REPORTS_COMPARE_INT_H

#include "compare.h"
#include "doc.h"

/* The run the summary is about: the cheapest of the runs after the
 * baseline (the baseline when it is alone). */
int compare_headline_run(const struct compare_entry *e, int n);

/* ", SLO attainment 99.0 % to 100.0 %, latency SLO met ..." from a to b;
 * "" when neither run has services (both figures would be a vacuous 100 %). */
const char *compare_slo_clause(char *buf, size_t n, const struct run_stats *a, const struct run_stats *b);

/* The summary a customer reads in one screen (<section id="summary">):
 * the headline against the cheapest alternative, the side effects next
 * to it, the break-evens, what would change the conclusion, and the chart
 * of cost against utilization (png, or a note when not drawn). */
void compare_summary(const struct doc *d, const struct compare_entry *e, int n, bool drawn, const char *png);

/* "Every way to pay": each run's lines, break-evens and the elastic and
 * spot runs' side effects. */
void compare_billing_tables(const struct doc *d, const struct compare_entry *e, int n);

/* The chart data: run h's lines against utilization (index 0) and every
 * run's own bill at its utilization (index 1); and its gnuplot script. */
void compare_billing_chart(FILE *csv, FILE *gp, const struct compare_entry *e, int n);

#endif
