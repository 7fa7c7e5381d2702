/* test_quantity.c - Kubernetes quantities as fleetsim serve reads them
 * (serve/quantity.h): values worked out by hand from the suffix tables,
 * and malformed ones refused without touching the result. */
#include <stdio.h>
#include <string.h>

#include "../serve/quantity.h"
#include "testutil.h"

static void test_quantity(void)
{
    /* Expected values worked out by hand from the suffix tables. */
    static const struct {
        const char *s;
        int64_t milli;
    } ok[] = {
        {"12", 12000},
        {"500m", 500},
        {"16Gi", 16LL * 1073741824 * 1000},
        {"30517Mi", 30517LL * 1048576 * 1000},
        {"8k", 8000000},
        {"1.5", 1500},
        {"1.5Gi", 1610612736000LL},
        {".5", 500},
        {"1e3", 1000000},
        {"1E3", 1000000},
        {"2e-3", 2},
        {"0.0001", 1},      /* rounded up to a whole milli */
        {"100n", 1},
        {"-2", -2000},
        {"+7", 7000},
        {"-0.0001", 0},     /* rounded up: towards +infinity */
        {"0", 0},
        {"007", 7000},
        {"1Ki", 1024000},
        {"5P", 5000000000000000000LL},
        {"123456789012345678m", 123456789012345678LL},
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(ok); i++) {
        int64_t v = -42;
        struct fs_err err = {0};
        int rc = quantity_milli(ok[i].s, &v, &err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_EQUAL(v, ok[i].milli);
        if (rc || v != ok[i].milli)
            fprintf(stderr, "quantity \"%s\": rc %d, %lld (%s)\n", ok[i].s, rc, (long long)v, err.msg);
    }
    static const char *const bad[] = {
        "", "Gi", "12Gb", "1.2.3", "1e", "1e999", "12 ", " 12", "0x10", "1234567890123456789",
        "10E", "9Ei", "m", "-", "1e3k", "1.5.Gi", "--1",
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(bad); i++) {
        int64_t v = -42;
        struct fs_err err = {0};
        CU_ASSERT_EQUAL(quantity_milli(bad[i], &v, &err), FS_EDATA);
        CU_ASSERT_EQUAL(v, -42);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "\""));
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"Kubernetes quantities", test_quantity},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"quantity", NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_quantity", suites);
}
