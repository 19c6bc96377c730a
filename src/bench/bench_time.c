/* clock_gettime is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench_time.h"

#include "core/stats.h"

#include <math.h>
#include <time.h>

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_stats(double *v, int n, double *median, double *min, double *max)
{
    if (n <= 0) {
        *median = *min = *max = NAN;
        return;
    }
    stats_sort_d(v, n);
    *min = v[0];
    *max = v[n - 1];
    *median = stats_median_d(v, n);
}
