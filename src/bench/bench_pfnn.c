/* `strider bench pfnn`: one forward pass of the phase-functioned network
 * per phase mode (constant, linear, cubic) and weight type (fp32, fp16),
 * with the memory held per mode and the roofline: the weight bytes one
 * inference streams, divided by the copy bandwidth measured in the same run,
 * and the read roofline: those bytes over one core's DRAM read bandwidth.
 * Then the batch rows (path "batch"): per --batch size and --threads count,
 * ms per character of one pfnn_batch_run() against N pfnn_run() calls in
 * the same repeats, their ratio, and whether the outputs are bit-identical. */
#include "bench/bench_internal.h"

#include "bench/pfnn_bench.h"
#include "core/paths.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Agreement with exact cubic fp32, as the largest error over all outputs in
 * units of that output's std: cubic fp32 must match itself to rounding and
 * fp16 weights lose about three digits. The constant (50 slices) and linear
 * (10 slices) modes approximate the phase function by design; on the shipped
 * network their worst output is off by 0.29 and 1.07 std (the tests bound
 * them relative to a quarter-cycle change), so here they only have to pass a
 * gross-error check: a broken mode is off by many std. */
#define PFNN_AGREE_CUBIC 1e-5
#define PFNN_AGREE_F16 2e-2
#define PFNN_AGREE_APPROX 3.0

/* One pfnn_run row; returns 1 when it disagrees with exact cubic fp32. */
static int add_single_row(report_table_t *t, const pfnn_bench_row_t *w, const pfnn_bench_result_t *r)
{
    int failures = 0;
    double bound = w->mode != PFNN_PHASE_CUBIC ? PFNN_AGREE_APPROX
                   : w->dtype == PFNN_F16      ? PFNN_AGREE_F16
                                               : PFNN_AGREE_CUBIC;
    if (!(w->max_err_vs_cubic32 <= bound) || !isfinite(w->checksum)) {
        fprintf(stderr, "strider bench pfnn: %s %s disagrees with exact cubic fp32: %.3g std (bound %.3g)\n",
                pfnn_mode_name(w->mode), pfnn_dtype_name(w->dtype), w->max_err_vs_cubic32, bound);
        failures++;
    }
    if (!report_table_row_begin(t))
        return failures;
    report_table_str(t, pfnn_mode_name(w->mode));
    report_table_str(t, pfnn_dtype_name(w->dtype));
    report_table_str(t, pfnn_isa_name(w->isa));
    report_table_num(t, w->median_ms, 4);
    report_table_num(t, w->min_ms, 4);
    report_table_num(t, w->max_ms, 4);
    report_table_num(t, w->fixed_median_ms, 4);
    report_table_num(t, (double)w->mode_bytes / (1024.0 * 1024.0), 2);
    report_table_num(t, (double)w->bytes_per_inference, 0);
    report_table_num(t, w->roofline_ms, 4);
    report_table_num(t, w->roofline_ratio, 2);
    report_table_num(t, w->max_err_vs_cubic32, 6);
    report_table_num(t, r->copy_gb_s, 2);
    report_table_num(t, r->read_gb_s, 2);
    report_table_num(t, w->read_roofline_ms, 4);
    report_table_num(t, w->read_roofline_ratio, 2);
    report_table_str(t, "single");
    report_table_num(t, 1, 0);
    report_table_num(t, 1, 0);
    report_table_num(t, w->median_ms, 4);
    report_table_num(t, NAN, 2);
    report_table_str(t, "-");
    return failures;
}

/* One batch row: the times are ms per character; what only the single
 * rows measure is left empty ("-"). Returns 1 when it differs from pfnn_run. */
static int add_batch_row(report_table_t *t, const pfnn_bench_batch_row_t *w)
{
    int failures = 0;
    if (!w->identical || !isfinite(w->checksum)) {
        fprintf(stderr, "strider bench pfnn: batch of %d on %d threads (%s %s) differs from pfnn_run\n", w->batch,
                w->threads, pfnn_mode_name(w->mode), pfnn_dtype_name(w->dtype));
        failures++;
    }
    if (!report_table_row_begin(t))
        return failures;
    report_table_str(t, pfnn_mode_name(w->mode));
    report_table_str(t, pfnn_dtype_name(w->dtype));
    report_table_str(t, pfnn_isa_name(w->isa));
    report_table_num(t, w->batch_ms, 4);
    report_table_num(t, w->batch_min_ms, 4);
    report_table_num(t, w->batch_max_ms, 4);
    for (int k = 0; k < 10; k++)
        report_table_num(t, NAN, 2);
    report_table_str(t, "batch");
    report_table_num(t, w->batch, 0);
    report_table_num(t, w->threads, 0);
    report_table_num(t, w->single_ms, 4);
    report_table_num(t, w->speedup, 2);
    report_table_str(t, w->identical ? "yes" : "no");
    return failures;
}

/* D's batch rows: the --batch sizes and --threads counts, or the defaults
 * (smaller sizes for --smoke). */
static void batch_desc(pfnn_bench_desc_t *d, const int *sizes, int size_count, const int *threads, int thread_count,
                       bool smoke)
{
    static const int default_sizes[] = {1, 10, 100}, smoke_sizes[] = {1, 7, 30}, default_threads[] = {1, 2};
    if (size_count == 0) {
        sizes = smoke ? smoke_sizes : default_sizes;
        size_count = 3;
    }
    if (thread_count == 0) {
        threads = default_threads;
        thread_count = 2;
    }
    d->batch_size_count = size_count;
    memcpy(d->batch_sizes, sizes, (size_t)size_count * sizeof(int));
    d->batch_thread_count = thread_count;
    memcpy(d->batch_threads, threads, (size_t)thread_count * sizeof(int));
}

int bench_pfnn(int argc, char **argv, const report_env_t *env)
{
    bench_common_t c = {.repeats = 1001, .warmup = 50};
    const char *path = NULL;
    bool no_fp16 = false;
    int batch_sizes[BENCH_LIST_MAX], batch_count = 0, threads[BENCH_LIST_MAX], thread_count = 0, batch_repeats = 0;
    const args_opt_t opts[] = {
        BENCH_COMMON_OPTS(&c),
        {.name = "--network",
         .kind = ARGS_PATH,
         .dest = &path,
         .arg = "PATH",
         .help = "weights (default assets/network/pfnn.bin)"},
        {.name = "--no-fp16", .kind = ARGS_FLAG, .dest = &no_fp16, .help = "skip the fp16 rows"},
        {.name = "--batch",
         .kind = ARGS_INT_LIST,
         .dest = batch_sizes,
         .count = &batch_count,
         .lo = 1,
         .hi = PFNN_BATCH_MAX,
         .arg = "LIST",
         .help = "characters per batch run, default 1,10,100 (at most 8 sizes)"},
        {.name = "--threads",
         .kind = ARGS_INT_LIST,
         .dest = threads,
         .count = &thread_count,
         .lo = 1,
         .hi = PFNN_BATCH_MAX_THREADS,
         .arg = "LIST",
         .help = "threads per batch run (counting the caller), default 1,2 (at most 4 counts)"},
        {.name = "--batch-repeats",
         .kind = ARGS_INT,
         .dest = &batch_repeats,
         .lo = 3,
         .hi = 100000,
         .arg = "N",
         .help = "timed repeats of each batch row, default 21"},
        {.kind = ARGS_TEXT, .help = BENCH_COMMON_HELP},
    };
    args_spec_t spec = bench_args_spec("strider bench pfnn", "usage: strider bench pfnn [options]\n", opts,
                                       (int)(sizeof opts / sizeof opts[0]));
    int parsed = bench_parse_args(&spec, argc, argv);
    if (parsed >= 0)
        return parsed;
    if (batch_count > PFNN_BENCH_MAX_BATCH_SIZES || thread_count > PFNN_BENCH_MAX_BATCH_THREADS) {
        fprintf(stderr, "strider bench pfnn: at most %d --batch sizes and %d --threads counts\n",
                PFNN_BENCH_MAX_BATCH_SIZES, PFNN_BENCH_MAX_BATCH_THREADS);
        return BENCH_EXIT_USAGE;
    }
    bool fp16 = !no_fp16;
    char default_path[PATHS_MAX];
    if (!path) {
        if (!paths_join("assets/network/pfnn.bin", default_path, sizeof default_path))
            return BENCH_EXIT_RUNTIME;
        path = default_path;
    }
    if (c.smoke) {
        c.repeats = 5;
        c.warmup = 1;
    }
    pfnn_network_t net;
    pfnn_load_desc_t ld = {.fp16 = fp16, .any_dims = true};
    if (!pfnn_load_ex(&net, path, &ld))
        return BENCH_EXIT_RUNTIME;
    pfnn_bench_desc_t d = {.warmup = c.warmup, .repeats = c.repeats, .batch_repeats = batch_repeats};
    batch_desc(&d, batch_sizes, batch_count, threads, thread_count, c.smoke);
    if (c.smoke) {
        /* Small copy buffers: the smoke run checks plumbing, not bandwidth. */
        d.copy_bytes = 1u << 20;
        d.copy_bytes_l3 = 1u << 16;
        if (!batch_repeats)
            d.batch_repeats = 3;
    }
    pfnn_bench_result_t r;
    bool ok = pfnn_bench_run(&net, &d, &r);
    pfnn_free(&net);
    if (!ok)
        return BENCH_EXIT_RUNTIME;

    report_env_print(env, stdout);
    printf("# network: %s (%d -> %d -> %d -> %d)\n", path, r.n_in, r.h0, r.h1, r.n_out);
    printf("# copy bandwidth (read + write): %.2f GB/s DRAM-sized buffer, %.2f GB/s cache-sized\n", r.copy_gb_s,
           r.copy_l3_gb_s);
    printf("# read bandwidth (one core, DRAM-sized buffer): %.2f GB/s; read_roofline_ms = bytes_per_inference / "
           "that, the floor when the weights come from DRAM\n",
           r.read_gb_s);
    static const char *const cols[] = {"mode",
                                       "dtype",
                                       "isa",
                                       "median_ms",
                                       "min_ms",
                                       "max_ms",
                                       "fixed_phase_ms",
                                       "memory_mb",
                                       "bytes_per_inference",
                                       "roofline_ms",
                                       "roofline_ratio",
                                       "max_err_vs_cubic_fp32_std",
                                       "copy_gb_s",
                                       "read_gb_s",
                                       "read_roofline_ms",
                                       "read_roofline_ratio",
                                       "path",
                                       "batch",
                                       "threads",
                                       "single_ms_per_char",
                                       "batch_speedup",
                                       "bit_identical"};
    report_table_t t;
    report_table_init(&t, "pfnn: ms per inference (phase advancing through the cycle)",
                      (int)(sizeof cols / sizeof cols[0]), cols);
    int failures = 0;
    for (int i = 0; i < r.row_count; i++)
        failures += add_single_row(&t, &r.rows[i], &r);
    for (int i = 0; i < r.batch_row_count; i++)
        failures += add_batch_row(&t, &r.batch_rows[i]);
    return bench_finish(&t, env, &c, failures);
}
