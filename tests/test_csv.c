/* test_csv.c - RFC 4180 CSV: the one tokenizer every CSV reader uses
 * (base/csv.h, io/readers_int.h rd_csv_next), the writers' quoting, and
 * round trips through the writers and the readers. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/csv.h"
#include "../io/readers_int.h"
#include "../reports/summary.h"
#include "testutil.h"
#include "wl_util.h"

/* csv_split on a copy of rec: nf fields equal to want[], or error e at
 * field bad. */
static void split_ok(const char *rec, int nf, const char *const *want)
{
    char buf[256], *f[8];
    int n = -1, bad = -1;
    snprintf(buf, sizeof buf, "%s", rec);
    CU_ASSERT_EQUAL_FATAL(csv_split(buf, f, 8, &n, &bad), CSV_OK);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL_FATAL(n, nf);
    for (int i = 0; i < nf; i++)
        CU_ASSERT_STRING_EQUAL(f[i], want[i]);
}

static void split_bad(const char *rec, enum csv_error e, int field)
{
    char buf[256], *f[8];
    int n, bad = 0;
    snprintf(buf, sizeof buf, "%s", rec);
    CU_ASSERT_EQUAL(csv_split(buf, f, 8, &n, &bad), e);
    CU_ASSERT_EQUAL(bad, field);
}

static void test_split(void)
{
    split_ok("a,b,c", 3, (const char *[]){"a", "b", "c"});
    split_ok("", 1, (const char *[]){""});
    split_ok(",,", 3, (const char *[]){"", "", ""});
    split_ok("\"a,b\",c", 2, (const char *[]){"a,b", "c"});
    split_ok("\"say \"\"hi\"\"\",x", 2, (const char *[]){"say \"hi\"", "x"});
    split_ok("\"two\nlines\",\"\"", 2, (const char *[]){"two\nlines", ""});
    split_ok("\"\"\"\"", 1, (const char *[]){"\""});
    split_ok(" a , b ", 2, (const char *[]){" a ", " b "}); /* blanks are data */
    split_ok("x,\"\"", 2, (const char *[]){"x", ""});
    split_bad("a,\"b", CSV_OPEN_QUOTE, 2);
    split_bad("\"a\"b,c", CSV_AFTER_QUOTE, 1);
    split_ok("a,b\"c", 2, (const char *[]){"a", "b\"c"}); /* kept as text */
    /* More fields than room: counted, not stored past max. */
    char buf[] = "1,2,3,4,5,6,7,8,9,10";
    char *f[8];
    int n;
    CU_ASSERT_EQUAL(csv_split(buf, f, 8, &n, NULL), CSV_OK);
    CU_ASSERT_EQUAL(n, 10);
    CU_ASSERT_STRING_EQUAL(f[7], "8");
    CU_ASSERT(!csv_open_quote("a,\"b,\"\"c\"\",d\""));
    CU_ASSERT(csv_open_quote("a,\"b,\"\"c"));
    CU_ASSERT(!csv_open_quote("a,b\"c")); /* stray, not an opening quote */
}

/* csv_put's bytes for s. */
static const char *put(const char *s)
{
    static char out[256];
    memset(out, 0, sizeof out);
    FILE *f = fmemopen(out, sizeof out, "w");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(csv_put(f, s), 0);
    fclose(f);
    return out;
}

static void test_put(void)
{
    /* Only where needed: plain fields come out as they are. */
    CU_ASSERT_STRING_EQUAL(put("research"), "research");
    CU_ASSERT_STRING_EQUAL(put("h100-sxm|rtx4090"), "h100-sxm|rtx4090");
    CU_ASSERT_STRING_EQUAL(put(""), "");
    CU_ASSERT_STRING_EQUAL(put("a,b"), "\"a,b\"");
    CU_ASSERT_STRING_EQUAL(put("say \"hi\""), "\"say \"\"hi\"\"\"");
    CU_ASSERT_STRING_EQUAL(put("two\nlines"), "\"two\nlines\"");
    CU_ASSERT_STRING_EQUAL(put("cr\r"), "\"cr\r\"");
    CU_ASSERT_STRING_EQUAL(put(" lead"), "\" lead\"");
}

/* Fields of random text from an alphabet heavy in what CSV must quote,
 * written with csv_put and read back by rd_csv_next: the same fields, and
 * each record starts on the line rd_csv_next says. */
static void test_round_trip_tokenizer(void)
{
    enum { RECS = 300, FIELDS = 5 };
    static const char alphabet[] = "ab,\"\n \r1";
    static char text[RECS][FIELDS][12];
    unsigned seed = 2024;
    char path[] = "/tmp/fleetsim-csv-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    long long line = 1, starts[RECS];
    for (int r = 0; r < RECS; r++) {
        starts[r] = line;
        for (int k = 0; k < FIELDS; k++) {
            int len = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 11;
            for (int i = 0; i < len; i++)
                text[r][k][i] = alphabet[((seed = seed * 1103515245u + 12345u) >> 16) % 8];
            text[r][k][len] = '\0';
            /* A CR at a line end is the line end's: the reader drops it. */
            for (char *p = text[r][k]; (p = strchr(p, '\r'));)
                *p = 'c';
            if (k == 0 && len == 0)
                strcpy(text[r][k], "x"); /* not a blank line */
            if (k)
                fputc(',', f);
            csv_put(f, text[r][k]);
            for (const char *p = text[r][k]; *p; p++)
                line += *p == '\n';
        }
        fputs("\r\n", f);
        line++;
    }
    fclose(f);
    struct rd_lines in;
    struct fs_err e = {0};
    CU_ASSERT_EQUAL_FATAL(rd_open(&in, path, &e), 0);
    char *fl[FIELDS + 1];
    int nf, r = 0, same = 0;
    while (rd_csv_next(&in, fl, FIELDS + 1, &nf, &e) == 1 && r < RECS) {
        int ok = nf == FIELDS && in.record == starts[r];
        for (int k = 0; ok && k < FIELDS; k++)
            ok = strcmp(fl[k], text[r][k]) == 0;
        same += ok;
        r++;
    }
    CU_ASSERT_EQUAL(r, RECS);
    CU_ASSERT_EQUAL(same, RECS);
    rd_close(&in);
    unlink(path);
}

/* rd_csv_next's errors name the file and the line the record began on. */
static void test_tokenizer_errors(void)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"a,b\n\"open,\nstill\n", ":2: a quoted field is not closed"},
        {"a,b\nc,\"d\"e\n", ":2: field 2: text after a closing quote"},
        {"a,b\n\n\"c\"\"d,e\n", ":3: a quoted field is not closed"},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(cases); i++) {
        const char *path = tu_tmpfile(".csv", cases[i].text);
        struct rd_lines in;
        struct fs_err e = {0};
        char *f[4];
        int nf, rc;
        CU_ASSERT_EQUAL_FATAL(rd_open(&in, path, &e), 0);
        while ((rc = rd_csv_next(&in, f, 4, &nf, &e)) == 1)
            ;
        CU_ASSERT_EQUAL(rc, FS_EDATA);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, path));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, cases[i].msg));
        if (!strstr(e.msg, cases[i].msg))
            fprintf(stderr, "got: %s\n", e.msg);
        rd_close(&in);
    }
}

#define HDR "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"

/* Team names with commas and quotes survive the native writer and reader;
 * the rows without them are written unquoted. */
static void test_native_round_trip(void)
{
    const char *text = HDR "1,0,train,\"ml, research\",1,0,,10,h100-sxm\n"
                           "\"2\",5,batch,\"say \"\"hi\"\"\",2,0,\"h100-sxm|rtx4090\",20,rtx4090\n"
                           "3,6,infer,plain,1,0,,30,h100-sxm\n";
    struct workload w, back;
    struct fs_err e = {0};
    char out[2048];
    workload_init(&w);
    workload_init(&back);
    CU_ASSERT_EQUAL_FATAL(read_text(text, &w, &e), 0);
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[0].team], "ml, research");
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[1].team], "say \"hi\"");
    CU_ASSERT_EQUAL(w.jobs[1].id, 2);
    CU_ASSERT_EQUAL_FATAL(write_and_read(&wl_cat, &w, &back, out, sizeof out), 0);
    CU_ASSERT_EQUAL(count_diffs(&w, &back), 0);
    CU_ASSERT_STRING_EQUAL(back.teams[back.jobs[0].team], "ml, research");
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1,0.000000,train,\"ml, research\",1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, ",\"say \"\"hi\"\"\",2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n3,6.000000,infer,plain,1,0,,30,h100-sxm\n"));
    workload_free(&w);
    workload_free(&back);
    /* A quoted header is the same header; a control character in a team is not. */
    workload_init(&w);
    CU_ASSERT_EQUAL(read_text("\"id\",submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,"
                              "work_gpu_s,\"ref_type\"\n1,0,train,a,1,0,,10,h100-sxm\n", &w, &e), 0);
    CU_ASSERT_EQUAL(w.n, 1);
    workload_free(&w);
    workload_init(&w);
    CU_ASSERT_EQUAL(read_text(HDR "1,0,train,\"two\nlines\",1,0,,10,h100-sxm\n", &w, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, ":2: column team: team name holds a control character"));
    CU_ASSERT_EQUAL(w.n, 0);
    workload_free(&w);
}

/* A trace whose teams need quotes, run: jobs.csv reads back through the
 * tokenizer with every record of the header's width and the teams whole;
 * a Philly trace's quoted cluster field is read the same way. */
static void test_jobs_csv_and_philly(void)
{
    const char *trace = tu_tmpfile(".csv", HDR "1,0,train,\"ml, research\",1,0,,3600,h100-sxm\n"
                                              "2,10,batch,\"q\"\"t\",2,0,,7200,h100-sxm\n");
    char scen[512];
    snprintf(scen, sizeof scen, "{\"name\": \"csv\", \"seed\": 1, \"fleet\": [{\"gpu\": "
             "\"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8}], \"workload\": {\"trace\": "
             "\"%s\"}, \"scheduler\": {\"policy\": \"fifo\"}}", trace);
    struct run_result r;
    tu_sim_run(&r, tu_tmpfile(".json", scen), NULL);
    char path[] = "/tmp/fleetsim-jobs-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    summary_write_jobs(f, r.s);
    fclose(f);
    run_result_free(&r);
    struct rd_lines in;
    struct fs_err e = {0};
    char *fl[20];
    int nf, rows = 0, width = 0;
    CU_ASSERT_EQUAL_FATAL(rd_open(&in, path, &e), 0);
    CU_ASSERT_EQUAL_FATAL(rd_csv_next(&in, fl, 20, &width, &e), 1);
    CU_ASSERT_STRING_EQUAL(fl[2], "team");
    while (rd_csv_next(&in, fl, 20, &nf, &e) == 1) {
        CU_ASSERT_EQUAL(nf, width);
        CU_ASSERT_STRING_EQUAL(fl[2], rows ? "q\"t" : "ml, research");
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 2);
    rd_close(&in);
    unlink(path);

    const char *philly = tu_tmpfile(".csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                            "2017-10-09 07:01:55,100,2,200,\"6,a\"\n"
                                            "\"2017-10-09 07:02:55\",50,1,50,\"\"\n");
    struct workload w;
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(trace_reader_find("philly")->read(philly, &(struct reader_options){.ref_type = 0}, &wl_cat, &w, NULL, &e), 0);
    CU_ASSERT_EQUAL_FATAL(w.n, 2);
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[0].team], "vc6,a");
    CU_ASSERT_STRING_EQUAL(w.teams[w.jobs[1].team], "philly");
    CU_ASSERT_EQUAL(w.jobs[1].submit, 60 * FS_USEC);
    workload_free(&w);
}

static CU_TestInfo tests[] = {
    {"csv_split: quotes, commas, line ends, errors", test_split},
    {"csv_put quotes only where needed", test_put},
    {"csv_put then rd_csv_next: same fields, record lines", test_round_trip_tokenizer},
    {"rd_csv_next errors name file and line", test_tokenizer_errors},
    {"native CSV: quoted teams round trip", test_native_round_trip},
    {"jobs.csv and a Philly trace through the tokenizer", test_jobs_csv_and_philly},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"csv", wl_setup, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_csv", suites);
}
