/* report_cost.h - the cost sections the run report and the comparison
 * share (reports/costing.h computes the figures). */
#ifndef FS_REPORTS_REPORT_COST_H
#define FS_REPORTS_REPORT_COST_H

#include "doc.h"
#include "metrics.h"

/* "Cost": the bill under the scenario's billing, per GPU type, the same
 * fleet billed every other way, per team, the forecast, the assumptions. */
void report_cost(const struct doc *d, const struct sim *s, const struct metrics *m);

/* "Assumptions": month, PUE, amortization, maintenance, electricity,
 * commitments, every GPU price and every source with its date. */
void report_assumptions(const struct doc *d, const struct scenario *sc);

#endif
