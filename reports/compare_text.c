/* compare_text.c - the comparison's summary, its billing tables and the
 * cost-against-utilization chart (compare_int.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "report.h"

int compare_headline_run(const struct compare_entry *e, int n)
{
    int h = n > 1 ? 1 : 0;
    for (int i = 2; i < n; i++)
        if (e[i].cost.month_usd < e[h].cost.month_usd)
            h = i;
    return h;
}

const char *compare_slo_clause(char *buf, size_t n, const struct run_stats *a, const struct run_stats *b)
{
    if (a->services == 0 && b->services == 0)
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, ", SLO attainment %.1f %% to %.1f %%, latency SLO met %.2f %% to %.2f %% of the time",
                 100 * a->slo_attainment, 100 * b->slo_attainment, 100 * a->latency_attainment,
                 100 * b->latency_attainment);
    return buf;
}

/* "the same fleet" or "NAME's fleet". */
static const char *whose(char *buf, size_t n, const struct compare_entry *e, int j, int h)
{
    if (j == h)
        snprintf(buf, n, "the same fleet");
    else
        snprintf(buf, n, "%s's fleet", e[j].name);
    return buf;
}

/* " With it: p95 wait 0.05 h (here 0.00 h), ..." for effects x against y. */
static void effects_vs(char *buf, size_t n, const struct bill_effects *x, const struct bill_effects *y, bool spot)
{
    snprintf(buf, n, " With it: p95 wait %.2f h (here %.2f h), mean completion time %.2f h (here %.2f h), %zu "
                     "jobs completed (here %zu)%s%s.",
             x->wait_p95_s / 3600, y->wait_p95_s / 3600, x->jct_mean_s / 3600, y->jct_mean_s / 3600,
             x->completed, y->completed, spot ? "; spot interruptions: " : "",
             spot ? (x->interruptions ? "some, work since the last checkpoint lost" : "none in this run") : "");
}

/* The headline against the cheapest alternative without a multi-year
 * commitment, its side effects, and what would change the conclusion. */
static void headline(const struct doc *d, const struct compare_entry *e, int n, int h)
{
    const struct compare_entry *x = &e[h];
    char a[32], b[32], c[32], who[128], with[400], committed[256] = "";
    int j = h;
    enum bill_line l = x->own;
    double own = x->cost.month_usd, alt = compare_cheapest_other(e, n, h, false, &j, &l);
    if (!isfinite(alt)) {
        doc_para(d, "%s costs %s USD a month, %s; no other way to pay for the work has a price.", x->name,
                 doc_usd(a, own), bill_titles[x->own]);
        return;
    }
    effects_vs(with, sizeof with, &e[j].bill.eff[l],
               &x->bill.eff[x->own == BILL_ELASTIC || x->own == BILL_SPOT ? x->own : BILL_OWNED], l == BILL_SPOT);
    doc_para(d, "%s costs %s USD a month, %s. The cheapest way to pay for the same work without a "
                "multi-year commitment is %s, %s, at %s USD a month: %s %s %.0f %%.%s",
             x->name, doc_usd(a, own), bill_titles[x->own], whose(who, sizeof who, e, j, h), bill_titles[l],
             doc_usd(b, alt), x->name, own > alt ? "costs more, by" : "saves", 100 * fabs(own - alt) / alt, with);
    int jc = h;
    enum bill_line lc = x->own;
    double com = compare_cheapest_other(e, n, h, true, &jc, &lc);
    if (isfinite(com) && com < alt)
        snprintf(committed, sizeof committed, " Bound for years it would cost %s USD a month (%s, %s).",
                 doc_usd(c, com), whose(who, sizeof who, e, jc, h), bill_titles[lc]);
    bool own_hourly = x->own == BILL_ELASTIC || x->own == BILL_SPOT, alt_hourly = l == BILL_ELASTIC || l == BILL_SPOT;
    const char *why = own_hourly == alt_hourly ? ""
                      : "; the work itself matters: more of it raises an hourly bill, not a fixed one (see the "
                        "break-evens)";
    if (own > alt)
        doc_para(d, "What would change this: %s's bill falling by %.0f %%, or the alternative's rising by %.0f %%%s.%s",
                 x->name, 100 * (own - alt) / own, 100 * (own - alt) / alt, why, committed);
    else
        doc_para(d, "What would change this: the alternative getting %.0f %% cheaper, or %s's bill rising by "
                    "%.0f %%%s.%s",
                 100 * (alt - own) / alt, x->name, 100 * (alt - own) / own, why, committed);
}

/* Against the baseline as billed, with the side effects, and the
 * break-evens of run h's fleet, in one paragraph. */
static void against_base(const struct doc *d, const struct compare_entry *e, int h)
{
    const struct compare_entry *x = &e[h], *b = &e[0];
    const struct billing *bl = &x->bill;
    char a[32], c[32], base_txt[800] = "", be[300], slo[160];
    double base = b->cost.month_usd, diff = base - x->cost.month_usd;
    double jct = b->st.jct_mean > 0 ? 100 * (x->st.jct_mean - b->st.jct_mean) / b->st.jct_mean : 0;
    if (h > 0 && b->cost.ok)
        snprintf(base_txt, sizeof base_txt,
                 "Against the baseline %s as billed (%s, %s USD a month) it is %s %.0f %% (%s USD a month); "
                 "p95 wait %.2f h to %.2f h, mean completion time %.2f h to %.2f h (%+.0f %%), jobs completed "
                 "%zu to %zu%s. ",
                 b->name, bill_titles[b->own], doc_usd(a, base), diff >= 0 ? "cheaper by" : "dearer by",
                 base > 0 ? 100 * fabs(diff) / base : 0.0, doc_usd(c, fabs(diff)), b->st.wait_p95 / 3600,
                 x->st.wait_p95 / 3600, b->st.jct_mean / 3600, x->st.jct_mean / 3600, jct, b->st.completed,
                 x->st.completed, compare_slo_clause(slo, sizeof slo, &b->st, &x->st));
    if (isfinite(bl->break_even[BE_LEASED_ELASTIC]))
        snprintf(be, sizeof be, "Leasing its fleet beats elastic cloud above %.0f %% utilization; it runs at "
                 "%.0f %%, so leasing %s", 100 * bl->break_even[BE_LEASED_ELASTIC], 100 * bl->util,
                 bl->util > bl->break_even[BE_LEASED_ELASTIC] ? "wins" : "loses");
    else
        snprintf(be, sizeof be, "Leased against elastic cloud: %s (it runs at %.0f %%)",
                 bl->be_why[BE_LEASED_ELASTIC], 100 * bl->util);
    doc_para(d, "%s%s. Owned against leased: %s.", base_txt, be, bl->be_why[BE_OWNED_LEASED]);
}

void compare_summary(const struct doc *d, const struct compare_entry *e, int n, bool drawn, const char *png)
{
    int h = compare_headline_run(e, n);
    doc_section(d, "summary");
    doc_heading(d, 2, "Summary");
    if (!e[h].cost.ok) {
        doc_para(d, "%s has no cost: %s.", e[h].name, e[h].cost.why);
    } else {
        headline(d, e, n, h);
        against_base(d, e, h);
    }
    doc_section_end(d);
    /* The chart follows the summary rather than sitting in it, so the
     * summary's text stays within the first screen whatever the fonts. */
    if (drawn)
        doc_image(d, "Monthly cost against utilization, each billing model (lines), each run as billed (points)",
                  "billing", png);
    else
        doc_para(d, "[chart not rendered: billing.png; gnuplot was not found or failed. Render it with: "
                    "gnuplot billing.gp]");
}

void compare_billing_tables(const struct doc *d, const struct compare_entry *e, int n)
{
    char h[BILL_LINES + 1][64] = {"Run (USD per month)", "owned", "leased", "cloud on demand", "cloud elastic",
                                  "cloud spot", "cloud 1-year", "cloud 3-year"};
    doc_heading(d, 2, "Every way to pay");
    doc_para(d, "The same work priced every way: the fixed fleet owned, leased or kept all month in the "
                "cloud; the same scenario run again with its fleet as an elastic cloud pool (instances "
                "held while jobs need them, a provisioning delay jobs wait through) and on spot instances "
                "(a discount, and interruptions that send jobs back to their last checkpoint). "
                "Elastic and spot terms: models/data/prices.json.");
    doc_row(d, true, BILL_LINES + 1, h);
    for (int i = 0; i < n; i++) {
        char row[BILL_LINES * 34] = "", v[32];
        for (int l = 0; l < BILL_LINES; l++)
            snprintf(row + strlen(row), sizeof row - strlen(row), "%s%s%s", l ? " | " : "",
                     doc_usd(v, e[i].bill.usd_month[l]), l == (int)e[i].own ? " (own)" : "");
        doc_kv(d, e[i].name, "%s", row);
    }
    doc_table_end(d);
    char b[4][64] = {"Run", "utilization (%)", "leased vs elastic", "owned vs leased"};
    doc_row(d, true, 4, b);
    for (int i = 0; i < n; i++)
        doc_kv(d, e[i].name, "%.1f | %.63s | %.63s", 100 * e[i].bill.util, e[i].bill.be_why[BE_LEASED_ELASTIC],
               e[i].bill.be_why[BE_OWNED_LEASED]);
    doc_table_end(d);
    char s[6][64] = {"Run", "elastic: p95 wait (h)", "elastic: jobs completed", "spot: p95 wait (h)",
                     "spot: jobs completed", "spot: GPU-h lost"};
    doc_row(d, true, 6, s);
    for (int i = 0; i < n; i++) {
        const struct bill_effects *el = &e[i].bill.eff[BILL_ELASTIC], *sp = &e[i].bill.eff[BILL_SPOT];
        doc_kv(d, e[i].name, "%.2f | %zu | %.2f | %zu | %.1f", el->wait_p95_s / 3600, el->completed,
               sp->wait_p95_s / 3600, sp->completed, sp->lost_gpu_h);
    }
    doc_table_end(d);
}

void compare_billing_chart(FILE *csv, FILE *gp, const struct compare_entry *e, int n)
{
    int h = compare_headline_run(e, n);
    const struct billing *b = &e[h].bill;
    fputs("utilization", csv);
    for (int l = 0; l < BILL_LINES; l++)
        fprintf(csv, ",%s", bill_keys[l]);
    fputs("\n", csv);
    for (int k = 0; k <= 100; k++) {
        double u = k / 100.0;
        fprintf(csv, "%d", k);
        for (int l = 0; l < BILL_LINES; l++) {
            double v = billing_at(b, (enum bill_line)l, u);
            if (isfinite(v))
                fprintf(csv, ",%.2f", v);
            else
                fputs(",NaN", csv);
        }
        fputs("\n", csv);
    }
    fputs("\n\n", csv);
    for (int i = 0; i < n; i++)
        fprintf(csv, "%s (%s),%.2f,%.2f\n", e[i].name, bill_keys[e[i].own], 100 * e[i].bill.util,
                e[i].cost.month_usd);
    char title[256];
    snprintf(title, sizeof title, "Monthly cost against utilization: the fleet of %s, each billing model", e[h].name);
    charts_gp_head(gp, "billing", title);
    fprintf(gp, "set xlabel 'utilization of the fleet: share of its GPU time the work allocates (%%)'\n"
                "set ylabel 'USD per 730-h month'\nset xrange [0:100]\nset yrange [0:*]\n"
                "set key outside right top\n"
                "plot for [c=2:%d] datafile index 0 using 1:c with lines lw 2 title columnhead(c), \\\n"
                "     for [c=%d:%d] datafile index 0 using 1:c with lines lw 2 dt 2 title columnhead(c), \\\n"
                "     datafile index 1 using 2:3 with points pt 7 ps 1.6 lc rgb 'black' title 'runs as billed', \\\n"
                "     datafile index 1 using 2:3:1 with labels left offset 1,0.6 notitle\n",
            BILL_COMMIT_1Y + 1, BILL_COMMIT_1Y + 2, BILL_LINES + 1);
}
