#include "core/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort_f(float *v, int n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_float);
}

void stats_sort_d(double *v, int n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_double);
}

double stats_median_f(const float *sorted, int n)
{
    if (n <= 0)
        return NAN;
    return n % 2 ? (double)sorted[n / 2] : 0.5 * ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]);
}

double stats_median_d(const double *sorted, int n)
{
    if (n <= 0)
        return NAN;
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

float stats_percentile(const float *sorted, int n, float q)
{
    if (n <= 0)
        return 0.0f;
    int k = (int)ceilf(q * (float)n) - 1;
    return sorted[k < 0 ? 0 : (k >= n ? n - 1 : k)];
}
