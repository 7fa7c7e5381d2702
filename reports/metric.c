/* metric.c - the metric table (metric.h): one getter per row, generated
 * from the row's expression. */
#include "metric.h"

#include <math.h>
#include <string.h>

/* The test build (FS_METRIC_TEST_ROW, tests/metric/run.sh) adds one row
 * here and nowhere else, to show every output picks it up. */
#ifdef FS_METRIC_TEST_ROW
#define METRIC_TEST_ROWS(X) \
    X(TEST_ROW, "test_jobs_started", "jobs", +1, 0, 0.5, 0, \
      "a test-only row: submitted jobs that started", \
      (double)(r->st.submitted - r->st.not_started))
#else
#define METRIC_TEST_ROWS(X)
#endif

#define METRIC_GETTER(id, name, unit, better, rel, abs, trend, def, expr) \
    static double get_##id(const struct run_result *r) { return (expr); }
METRIC_ROWS(METRIC_GETTER)
METRIC_TEST_ROWS(METRIC_GETTER)
#undef METRIC_GETTER

#define METRIC_DEF(id, name, unit, better, rel, abs, trend, def, expr) \
    {name, unit, better, rel, abs, trend, def, get_##id},
const struct metric_def metric_table[] = {METRIC_ROWS(METRIC_DEF) METRIC_TEST_ROWS(METRIC_DEF)};
#undef METRIC_DEF

const int metric_count = (int)(sizeof metric_table / sizeof *metric_table);

_Static_assert(sizeof metric_table / sizeof *metric_table <= METRIC_MAX, "METRIC_MAX is too small");

const struct metric_def *metric_find(const char *name, int *k)
{
    for (int i = 0; i < metric_count; i++)
        if (strcmp(metric_table[i].name, name) == 0) {
            if (k)
                *k = i;
            return &metric_table[i];
        }
    return NULL;
}

void metric_values(const struct run_result *r, double v[METRIC_MAX])
{
    for (int k = 0; k < metric_count; k++)
        v[k] = metric_table[k].get(r);
}
