/* bench_time: the one clock and the one statistics helper of every
 * benchmark (the `strider bench` commands, the CPU engines skin_bench and
 * pfnn_bench, the GPU engines in bench/gpu/).
 *
 * Call order: t0 = bench_now_s() -> work -> bench_now_s() - t0 into an
 * array of repeats -> bench_stats() once at the end.
 * The clock is CLOCK_MONOTONIC: wall time for profiling only, never read by
 * the game (the game's clock is platform_now_s, its GPU timers gfx_timer).
 * Does NOT: allocate, warm up, or decide how many repeats are enough.
 */
#ifndef STRIDER_BENCH_BENCH_TIME_H
#define STRIDER_BENCH_BENCH_TIME_H

/* Monotonic clock in seconds. */
double bench_now_s(void);
/* Median (core/stats.h), min and max of v[0..n) (v is sorted in place); an even n gives the
 * mean of the two middle values. n <= 0 gives NaN for all three. */
void bench_stats(double *v, int n, double *median, double *min, double *max);

#endif
