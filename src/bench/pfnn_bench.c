/* madvise() for the read probe's huge pages. */
#define _DEFAULT_SOURCE
#include "bench/pfnn_bench.h"

#include "bench/bench_time.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#define PFNN_BENCH_X86 1
#include <immintrin.h>
#else
#define PFNN_BENCH_X86 0
#endif

enum {
    PFNN_BENCH_DEFAULT_WARMUP = 50,
    PFNN_BENCH_DEFAULT_REPEATS = 1001,
    PFNN_BENCH_MAX_REPEATS = 1000001,
    /* Distinct input vectors cycled through (and compared against cubic). */
    PFNN_BENCH_INPUTS = 64,
    /* Copy-loop passes; the fastest is kept. */
    PFNN_BENCH_COPY_PASSES = 5,
    PFNN_BENCH_DEFAULT_BATCH_REPEATS = 21
};

#define PFNN_BENCH_DEFAULT_COPY ((size_t)128 << 20)
#define PFNN_BENCH_DEFAULT_COPY_L3 ((size_t)4 << 20)
/* A 1 s locomotion cycle stepped at 60 Hz. */
#define PFNN_BENCH_DEFAULT_STEP (6.2831853f / 60.0f)
#define PFNN_BENCH_DEFAULT_FIXED 0.3f

static float bench_rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return (float)(*s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
}

/* Best of a few memcpy passes; bytes read + written per second. */
static double bench_copy_gb_s(size_t bytes)
{
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return 0.0;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 1e30;
    for (int pass = 0; pass < PFNN_BENCH_COPY_PASSES; pass++) {
        double t0 = bench_now_s();
        memcpy(pass & 1 ? a : b, pass & 1 ? b : a, bytes);
        double t = bench_now_s() - t0;
        if (t < best)
            best = t;
    }
    /* Read a byte so the copies are observable. */
    volatile char sink = a[bytes / 2];
    (void)sink;
    free(a);
    free(b);
    return 2.0 * (double)bytes / best * 1e-9;
}

#if PFNN_BENCH_X86
/* The AVX2 gemv's loads (8 floats, unaligned), four accumulators deep. */
__attribute__((target("avx2,fma"))) static float read_sum_avx2(const float *v, size_t n)
{
    __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t i = 0; i + 32 <= n; i += 32)
        for (int r = 0; r < 4; r++)
            a[r] = _mm256_add_ps(a[r], _mm256_loadu_ps(v + i + 8 * (size_t)r));
    __m256 t = _mm256_add_ps(_mm256_add_ps(a[0], a[1]), _mm256_add_ps(a[2], a[3]));
    float o[8];
    _mm256_storeu_ps(o, t);
    return o[0] + o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7];
}
#endif

/* Sum of v[0..n) (n a multiple of 32), streaming, with the loads the gemv
 * of ISA uses (the scalar sum stands in for SSE2). */
static float read_sum(pfnn_isa_t isa, const float *v, size_t n)
{
#if PFNN_BENCH_X86
    if (isa == PFNN_ISA_AVX2)
        return read_sum_avx2(v, n);
#endif
    (void)isa;
    float a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i + 4 <= n; i += 4)
        for (int r = 0; r < 4; r++)
            a[r] += v[i + (size_t)r];
    return a[0] + a[1] + a[2] + a[3];
}

/* Best of a few passes of one core reading BYTES with the gemv's loads
 * (ISA), from 2 MiB pages as the weights use (network.c); bytes read per
 * second. */
#define PFNN_BENCH_HUGE_PAGE ((size_t)2 << 20)
static double bench_read_gb_s(size_t bytes, pfnn_isa_t isa)
{
    size_t n_bytes = (bytes + PFNN_BENCH_HUGE_PAGE - 1) / PFNN_BENCH_HUGE_PAGE * PFNN_BENCH_HUGE_PAGE;
    float *a = aligned_alloc(PFNN_BENCH_HUGE_PAGE, n_bytes);
    if (!a)
        return 0.0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(a, n_bytes, MADV_HUGEPAGE);
#endif
    size_t n = n_bytes / sizeof(float);
    for (size_t i = 0; i < n; i++)
        a[i] = 1e-6f;
    double best = 1e30;
    float total = 0.0f;
    for (int pass = 0; pass < PFNN_BENCH_COPY_PASSES; pass++) {
        double t0 = bench_now_s();
        total += read_sum(isa, a, n);
        double t = bench_now_s() - t0;
        if (t < best)
            best = t;
    }
    /* Keep the sums observable. */
    volatile float sink = total;
    (void)sink;
    free(a);
    return (double)n_bytes / best * 1e-9;
}

typedef struct bench_ctx_t {
    const pfnn_network_t *net;
    pfnn_workspace_t ws;
    float *x; /* PFNN_BENCH_INPUTS * n_in */
    float *y;
    double *sorted;
} bench_ctx_t;

/* Times REPEATS inferences; fills median/min/max (ms) and adds to *sum. */
static void bench_pattern(bench_ctx_t *c, pfnn_job_t *job, int warmup, int repeats, bool cycle, float step, float fixed,
                          double out[3], double *sum)
{
    const pfnn_network_t *net = c->net;
    float phase = fixed;
    for (int r = -warmup; r < repeats; r++) {
        job->x = c->x + (size_t)((r + warmup) % PFNN_BENCH_INPUTS) * (size_t)net->n_in;
        if (cycle)
            phase = fmodf(phase + step, 6.2831853f);
        job->phase = phase;
        double t0 = bench_now_s();
        pfnn_run_unchecked(job);
        double t = bench_now_s() - t0;
        if (r >= 0) {
            c->sorted[r] = 1e3 * t;
            for (int o = 0; o < net->n_out; o++)
                *sum += job->y[o];
        }
    }
    bench_stats(c->sorted, repeats, &out[0], &out[1], &out[2]);
}

/* DESC with every zero field at its default. */
static pfnn_bench_desc_t with_defaults(const pfnn_bench_desc_t *desc)
{
    pfnn_bench_desc_t d = desc ? *desc : (pfnn_bench_desc_t){0};
    if (!d.warmup)
        d.warmup = PFNN_BENCH_DEFAULT_WARMUP;
    if (!d.repeats)
        d.repeats = PFNN_BENCH_DEFAULT_REPEATS;
    if (d.phase_step == 0.0f)
        d.phase_step = PFNN_BENCH_DEFAULT_STEP;
    if (d.fixed_phase == 0.0f)
        d.fixed_phase = PFNN_BENCH_DEFAULT_FIXED;
    if (!d.copy_bytes)
        d.copy_bytes = PFNN_BENCH_DEFAULT_COPY;
    if (!d.copy_bytes_l3)
        d.copy_bytes_l3 = PFNN_BENCH_DEFAULT_COPY_L3;
    if (!d.seed)
        d.seed = 1;
    if (!d.batch_repeats)
        d.batch_repeats = PFNN_BENCH_DEFAULT_BATCH_REPEATS;
    if (!d.batch_thread_count) {
        d.batch_threads[0] = 1;
        d.batch_thread_count = 1;
    }
    return d;
}

/* One row (JOB set to its mode, dtype and ISA): the largest error against
 * the cubic fp32 reference REF on the check inputs (in output standard
 * deviations), the cycling and the fixed-phase timings, and the rooflines
 * of OUT's measured bandwidths. */
static void measure_row(bench_ctx_t *c, pfnn_job_t *job, pfnn_bench_row_t *row, const float *ref,
                        const pfnn_bench_desc_t *d, const pfnn_bench_result_t *out)
{
    const size_t n_in = (size_t)c->net->n_in, n_out = (size_t)c->net->n_out;
    job->y = c->y;
    for (int k = 0; k < PFNN_BENCH_INPUTS; k++) {
        job->x = c->x + (size_t)k * n_in;
        job->phase = d->fixed_phase + d->phase_step * (float)k;
        pfnn_run_unchecked(job);
        for (size_t o = 0; o < n_out; o++) {
            double e = fabs((double)c->y[o] - ref[(size_t)k * n_out + o]) / c->net->y_std[o];
            /* NaN compares false: count it as an infinite error. */
            if (!(e <= row->max_err_vs_cubic32))
                row->max_err_vs_cubic32 = isnan(e) ? INFINITY : e;
        }
    }
    double r3[3];
    bench_pattern(c, job, d->warmup, d->repeats, true, d->phase_step, d->fixed_phase, r3, &row->checksum);
    row->median_ms = r3[0];
    row->min_ms = r3[1];
    row->max_ms = r3[2];
    bench_pattern(c, job, d->warmup, d->repeats, false, d->phase_step, d->fixed_phase, r3, &row->checksum);
    row->fixed_median_ms = r3[0];
    row->fixed_min_ms = r3[1];
    row->fixed_max_ms = r3[2];
    row->mode_bytes = pfnn_mode_bytes(c->net, row->mode, row->dtype);
    row->bytes_per_inference = pfnn_bytes_per_inference(c->net, row->mode, row->dtype);
    if (out->copy_gb_s > 0.0) {
        row->roofline_ms = (double)row->bytes_per_inference / (out->copy_gb_s * 1e9) * 1e3;
        row->roofline_ratio = row->median_ms / row->roofline_ms;
    }
    if (out->read_gb_s > 0.0) {
        row->read_roofline_ms = (double)row->bytes_per_inference / (out->read_gb_s * 1e9) * 1e3;
        row->read_roofline_ratio = row->median_ms / row->read_roofline_ms;
    }
    if (out->copy_l3_gb_s > 0.0)
        row->roofline_l3_ratio = row->fixed_median_ms /
                                 ((double)row->bytes_per_inference / (out->copy_l3_gb_s * 1e9) * 1e3);
}

/* Scratch of the batch rows: N characters' inputs, phases and outputs. */
typedef struct batch_ctx_t {
    const pfnn_network_t *net;
    pfnn_workspace_t *ws;
    const float *inputs; /* PFNN_BENCH_INPUTS rows */
    float *x, *y_single, *y_batch, *phase;
    double *t_single, *t_batch[PFNN_BENCH_MAX_BATCH_THREADS];
    pfnn_batch_t *batch[PFNN_BENCH_MAX_BATCH_THREADS];
} batch_ctx_t;

/* The rows of one mode x dtype x batch size N: every repeat times N
 * pfnn_run calls and then one batch run per thread count, interleaved so
 * that a slow moment of the machine hits both. Characters start spread
 * over the cycle and all advance STEP per repeat, as a crowd does. */
static void measure_batch(batch_ctx_t *c, const pfnn_bench_desc_t *d, pfnn_mode_t mode, pfnn_dtype_t dtype,
                          pfnn_isa_t isa, int n, pfnn_bench_result_t *out)
{
    const pfnn_network_t *net = c->net;
    const size_t n_in = (size_t)net->n_in, n_out = (size_t)net->n_out;
    for (int k = 0; k < n; k++) {
        memcpy(c->x + (size_t)k * n_in, c->inputs + (size_t)(k % PFNN_BENCH_INPUTS) * n_in, n_in * sizeof(float));
        /* The golden angle spreads any count of characters over the cycle. */
        c->phase[k] = fmodf(d->fixed_phase + 2.39996323f * (float)k, 6.2831853f);
    }
    pfnn_job_t job = {.net = net, .ws = c->ws, .mode = mode, .dtype = dtype, .isa = isa};
    pfnn_batch_job_t bj = {
        .mode = mode, .dtype = dtype, .isa = isa, .count = n, .phase = c->phase, .x = c->x, .y = c->y_batch};
    const int nt = d->batch_thread_count;
    double checksum[PFNN_BENCH_MAX_BATCH_THREADS] = {0};
    bool identical[PFNN_BENCH_MAX_BATCH_THREADS];
    for (int t = 0; t < nt; t++)
        identical[t] = true;
    const int warmup = d->warmup < 2 ? d->warmup : 2;
    for (int r = -warmup; r < d->batch_repeats; r++) {
        double t0 = bench_now_s();
        for (int k = 0; k < n; k++) {
            job.phase = c->phase[k];
            job.x = c->x + (size_t)k * n_in;
            job.y = c->y_single + (size_t)k * n_out;
            pfnn_run_unchecked(&job);
        }
        double t_single = bench_now_s() - t0;
        if (r >= 0)
            c->t_single[r] = 1e3 * t_single / n;
        for (int t = 0; t < nt; t++) {
            bj.batch = c->batch[t];
            t0 = bench_now_s();
            pfnn_batch_run_unchecked(&bj);
            double t_batch = bench_now_s() - t0;
            if (r < 0)
                continue;
            c->t_batch[t][r] = 1e3 * t_batch / n;
            identical[t] = identical[t] && memcmp(c->y_single, c->y_batch, (size_t)n * n_out * sizeof(float)) == 0;
            for (size_t o = 0; o < (size_t)n * n_out; o++)
                checksum[t] += c->y_batch[o];
        }
        for (int k = 0; k < n; k++)
            c->phase[k] = fmodf(c->phase[k] + d->phase_step, 6.2831853f);
    }
    double single[3];
    bench_stats(c->t_single, d->batch_repeats, &single[0], &single[1], &single[2]);
    for (int t = 0; t < nt && out->batch_row_count < PFNN_BENCH_MAX_BATCH_ROWS; t++) {
        pfnn_bench_batch_row_t *row = &out->batch_rows[out->batch_row_count++];
        double b3[3];
        bench_stats(c->t_batch[t], d->batch_repeats, &b3[0], &b3[1], &b3[2]);
        *row = (pfnn_bench_batch_row_t){.mode = mode,
                                        .dtype = dtype,
                                        .isa = isa,
                                        .batch = n,
                                        .threads = d->batch_threads[t],
                                        .single_ms = single[0],
                                        .batch_ms = b3[0],
                                        .batch_min_ms = b3[1],
                                        .batch_max_ms = b3[2],
                                        .speedup = b3[0] > 0.0 ? single[0] / b3[0] : 0.0,
                                        .identical = identical[t],
                                        .checksum = checksum[t]};
    }
}

/* Every batch row: prepared modes x dtypes x D's sizes x thread counts. */
static bool measure_batches(const pfnn_network_t *net, pfnn_workspace_t *ws, const float *inputs,
                            const pfnn_bench_desc_t *d, pfnn_bench_result_t *out)
{
    int max_n = 0;
    for (int i = 0; i < d->batch_size_count; i++)
        max_n = d->batch_sizes[i] > max_n ? d->batch_sizes[i] : max_n;
    if (max_n == 0)
        return true;
    const size_t n_in = (size_t)net->n_in, n_out = (size_t)net->n_out;
    batch_ctx_t c = {.net = net, .ws = ws, .inputs = inputs};
    c.x = malloc((size_t)max_n * n_in * sizeof(float));
    c.y_single = malloc((size_t)max_n * n_out * sizeof(float));
    c.y_batch = malloc((size_t)max_n * n_out * sizeof(float));
    c.phase = malloc((size_t)max_n * sizeof(float));
    c.t_single = malloc((size_t)d->batch_repeats * sizeof(double));
    bool ok = c.x && c.y_single && c.y_batch && c.phase && c.t_single;
    for (int t = 0; ok && t < d->batch_thread_count; t++) {
        c.t_batch[t] = malloc((size_t)d->batch_repeats * sizeof(double));
        c.batch[t] = pfnn_batch_create(
            &(pfnn_batch_desc_t){.net = net, .max_count = max_n, .thread_count = d->batch_threads[t]});
        ok = c.t_batch[t] && c.batch[t];
    }
    if (!ok)
        log_error("pfnn bench: out of memory (or threads) for batches of %d", max_n);
    for (int m = 0; ok && m < PFNN_PHASE_MODE_COUNT; m++)
        for (int t = 0; t < PFNN_DTYPE_COUNT; t++) {
            const pfnn_mode_t mode = (pfnn_mode_t)m;
            const pfnn_dtype_t dtype = (pfnn_dtype_t)t;
            if (!pfnn_has_mode(net, mode, dtype) || !pfnn_isa_supported(d->isa, dtype))
                continue;
            pfnn_isa_t isa = d->isa;
            if (isa == PFNN_ISA_AUTO)
                isa = pfnn_isa_supported(PFNN_ISA_AVX2, dtype) ? PFNN_ISA_AVX2 : pfnn_isa_best();
            for (int i = 0; i < d->batch_size_count; i++)
                measure_batch(&c, d, mode, dtype, isa, d->batch_sizes[i], out);
        }
    for (int t = 0; t < PFNN_BENCH_MAX_BATCH_THREADS; t++) {
        pfnn_batch_destroy(c.batch[t]);
        free(c.t_batch[t]);
    }
    free(c.x);
    free(c.y_single);
    free(c.y_batch);
    free(c.phase);
    free(c.t_single);
    return ok;
}

bool pfnn_bench_run(const pfnn_network_t *net, const pfnn_bench_desc_t *desc, pfnn_bench_result_t *out)
{
    memset(out, 0, sizeof *out);
    pfnn_bench_desc_t d = with_defaults(desc);
    bool batch_ok = d.batch_size_count >= 0 && d.batch_size_count <= PFNN_BENCH_MAX_BATCH_SIZES &&
                    d.batch_thread_count <= PFNN_BENCH_MAX_BATCH_THREADS && d.batch_repeats >= 1 &&
                    d.batch_repeats <= PFNN_BENCH_MAX_REPEATS;
    for (int i = 0; batch_ok && i < d.batch_size_count; i++)
        batch_ok = d.batch_sizes[i] >= 1 && d.batch_sizes[i] <= PFNN_BATCH_MAX;
    for (int i = 0; batch_ok && i < d.batch_thread_count; i++)
        batch_ok = d.batch_threads[i] >= 1 && d.batch_threads[i] <= PFNN_BATCH_MAX_THREADS;
    if (!net || !net->sets || d.warmup < 0 || d.repeats < 1 || d.repeats > PFNN_BENCH_MAX_REPEATS ||
        !isfinite(d.phase_step) || !isfinite(d.fixed_phase) || !batch_ok) {
        log_error("pfnn bench: needs a loaded network, 1..%d repeats, a finite phase step, batch sizes 1..%d and "
                  "1..%d threads",
                  PFNN_BENCH_MAX_REPEATS, PFNN_BATCH_MAX, PFNN_BATCH_MAX_THREADS);
        return false;
    }
    out->desc = d;
    out->n_in = net->n_in;
    out->h0 = net->h0;
    out->h1 = net->h1;
    out->n_out = net->n_out;

    bench_ctx_t c = {.net = net};
    const size_t n_in = (size_t)net->n_in, n_out = (size_t)net->n_out;
    c.x = malloc(PFNN_BENCH_INPUTS * n_in * sizeof(float));
    c.y = malloc(n_out * sizeof(float));
    float *ref = malloc(PFNN_BENCH_INPUTS * n_out * sizeof(float));
    c.sorted = malloc((size_t)d.repeats * sizeof(double));
    bool ok = c.x && c.y && ref && c.sorted && pfnn_workspace_init(&c.ws, net);
    if (!ok) {
        log_error("pfnn bench: out of memory");
        goto done;
    }
    /* Inputs spread about the training mean by one std. */
    uint32_t s = d.seed;
    for (size_t k = 0; k < PFNN_BENCH_INPUTS; k++)
        for (size_t i = 0; i < n_in; i++)
            c.x[k * n_in + i] = net->x_mean[i] + net->x_std[i] * bench_rnd(&s);

    /* Cubic fp32 on the check inputs (phases of the cycle pattern). */
    pfnn_job_t job = {
        .net = net, .ws = &c.ws, .mode = PFNN_PHASE_CUBIC, .dtype = PFNN_F32, .isa = d.isa, .x = c.x, .y = ref};
    if (!pfnn_validate(&job)) {
        ok = false;
        goto done;
    }
    for (int k = 0; k < PFNN_BENCH_INPUTS; k++) {
        job.x = c.x + (size_t)k * n_in;
        job.phase = d.fixed_phase + d.phase_step * (float)k;
        job.y = ref + (size_t)k * n_out;
        pfnn_run_unchecked(&job);
    }

    out->copy_gb_s = bench_copy_gb_s(d.copy_bytes);
    out->copy_l3_gb_s = bench_copy_gb_s(d.copy_bytes_l3);
    out->read_gb_s = bench_read_gb_s(d.copy_bytes, pfnn_isa_best());

    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++) {
        for (int t = 0; t < PFNN_DTYPE_COUNT; t++) {
            if (!pfnn_has_mode(net, (pfnn_mode_t)m, (pfnn_dtype_t)t) || !pfnn_isa_supported(d.isa, (pfnn_dtype_t)t))
                continue;
            pfnn_bench_row_t *row = &out->rows[out->row_count++];
            row->mode = (pfnn_mode_t)m;
            row->dtype = (pfnn_dtype_t)t;
            row->isa = d.isa;
            if (row->isa == PFNN_ISA_AUTO)
                row->isa = pfnn_isa_supported(PFNN_ISA_AVX2, row->dtype) ? PFNN_ISA_AVX2 : pfnn_isa_best();
            job.mode = row->mode;
            job.dtype = row->dtype;
            job.isa = row->isa;
            measure_row(&c, &job, row, ref, &d, out);
        }
    }
    ok = measure_batches(net, &c.ws, c.x, &d, out);
done:
    pfnn_workspace_free(&c.ws);
    free(c.x);
    free(c.y);
    free(ref);
    free(c.sorted);
    return ok;
}

void pfnn_bench_format(const pfnn_bench_result_t *r, char *buf, size_t size)
{
    size_t n = 0;
#define PFNN_BENCH_PUT(...)                                                                                            \
    do {                                                                                                               \
        if (n < size) {                                                                                                \
            int put_ = snprintf(buf + n, size - n, __VA_ARGS__);                                                       \
            n += put_ > 0 ? (size_t)put_ : 0;                                                                          \
        }                                                                                                              \
    } while (0)
    if (size)
        buf[0] = '\0';
    PFNN_BENCH_PUT("pfnn %d-%d-%d-%d  repeats %d  warmup %d  cycle step %.4f rad  fixed phase %.3f rad  "
                   "copy bandwidth %.1f GB/s (%zu MiB)  %.1f GB/s (%zu MiB, cache)\n",
                   r->n_in, r->h0, r->h1, r->n_out, r->desc.repeats, r->desc.warmup, (double)r->desc.phase_step,
                   (double)r->desc.fixed_phase, r->copy_gb_s, r->desc.copy_bytes >> 20, r->copy_l3_gb_s,
                   r->desc.copy_bytes_l3 >> 20);
    PFNN_BENCH_PUT("%-8s %-4s %-6s %9s %9s %9s %9s %9s %9s %8s %8s %7s %7s %9s %13s\n", "mode", "type", "isa",
                   "cyc_med", "cyc_min", "cyc_max", "fix_med", "fix_min", "fix_max", "mem_MB", "MB/inf", "roof_x",
                   "l3_x", "max_err", "checksum");
    for (int i = 0; i < r->row_count; i++) {
        const pfnn_bench_row_t *w = &r->rows[i];
        PFNN_BENCH_PUT("%-8s %-4s %-6s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %8.1f %8.3f %7.2f %7.2f %9.2e %13.6e\n",
                       pfnn_mode_name(w->mode), pfnn_dtype_name(w->dtype), pfnn_isa_name(w->isa), w->median_ms,
                       w->min_ms, w->max_ms, w->fixed_median_ms, w->fixed_min_ms, w->fixed_max_ms,
                       (double)w->mode_bytes * 1e-6, (double)w->bytes_per_inference * 1e-6, w->roofline_ratio,
                       w->roofline_l3_ratio, w->max_err_vs_cubic32, w->checksum);
    }
#undef PFNN_BENCH_PUT
}
