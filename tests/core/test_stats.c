/* core/stats: the one median and percentile: which element each picks, on
 * odd and even counts, at the ends of the range, and on empty input. */
#include "core/stats.h"

#include "check.h"

#include <math.h>

static void test_median(void)
{
    double d[] = {5.0, 1.0, 4.0, 2.0, 3.0};
    stats_sort_d(d, 5);
    CHECK(d[0] == 1.0 && d[4] == 5.0);
    CHECK(stats_median_d(d, 5) == 3.0);
    /* Even: the mean of the two middle values. */
    CHECK(stats_median_d(d, 4) == 2.5);
    CHECK(stats_median_d(d, 1) == 1.0);
    CHECK(isnan(stats_median_d(d, 0)));
    float f[] = {0.3f, 0.1f, 0.2f, 0.4f};
    stats_sort_f(f, 4);
    CHECK(f[0] == 0.1f && f[3] == 0.4f);
    /* In double, from the float values. */
    CHECK(stats_median_f(f, 4) == 0.5 * ((double)0.2f + (double)0.3f));
    CHECK(stats_median_f(f, 3) == (double)0.2f);
    CHECK(isnan(stats_median_f(f, 0)));
}

static void test_percentile(void)
{
    float v[20];
    for (int i = 0; i < 20; i++)
        v[i] = (float)(i + 1);
    /* Nearest rank: the value at rank ceil(q n). */
    CHECK(stats_percentile(v, 20, 0.95f) == 19.0f);
    CHECK(stats_percentile(v, 20, 0.5f) == 10.0f);
    CHECK(stats_percentile(v, 20, 1.0f) == 20.0f);
    CHECK(stats_percentile(v, 20, 0.0f) == 1.0f);
    CHECK(stats_percentile(v, 19, 0.95f) == 19.0f);
    CHECK(stats_percentile(v, 1, 0.95f) == 1.0f);
    CHECK(stats_percentile(v, 0, 0.95f) == 0.0f);
    CHECK(stats_percentile(v, 20, 0.999f) == 20.0f);
}

int main(void)
{
    test_median();
    test_percentile();
    return check_summary();
}
