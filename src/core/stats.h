/* stats: the one median and the one percentile of the project, so that a
 * number called "p95" or "median" means the same in the benchmarks, the
 * motion evaluation, the report and the menu.
 *
 *   median: of n sorted values, the middle one; an even n gives the mean of
 *           the two middle ones (in double).
 *   percentile q (0..1): nearest rank, the value at rank ceil(q n) (1-based)
 *           of the sorted values: an observed value, never an interpolation;
 *           q = 0.5 gives the lower middle value.
 * Call order: stats_sort_*() (or sort yourself) -> stats_median_*() /
 * stats_percentile() on the sorted array.
 * Does NOT: allocate, or skip NaN (sort finite values).
 */
#ifndef STRIDER_CORE_STATS_H
#define STRIDER_CORE_STATS_H

/* Ascending, in place. */
void stats_sort_f(float *v, int n);
void stats_sort_d(double *v, int n);
/* The median of the sorted V[0..n); NaN when n <= 0. */
double stats_median_f(const float *sorted, int n);
double stats_median_d(const double *sorted, int n);
/* The nearest-rank Q-percentile of the sorted V[0..n); 0 when n <= 0. */
float stats_percentile(const float *sorted, int n, float q);

#endif
