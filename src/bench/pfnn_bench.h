/* pfnn_bench: the network benchmark behind `strider bench pfnn`.
 *
 * Call order: load a network (with pfnn_load_desc.fp16 to time fp16 too) ->
 * fill a pfnn_bench_desc_t (zero fields take the defaults below) ->
 * pfnn_bench_run() -> pfnn_bench_format() to print.
 * For every prepared mode x dtype it warms up, then times REPEATS single
 * inferences with a monotonic clock in two phase patterns: "cycle" (the
 * phase advances PHASE_STEP per inference, as in a walk, so the constant and
 * linear modes move between slices) and "fixed" (one phase, weights hot in
 * cache). It reports median/min/max ms, memory per mode, weight bytes read
 * per inference, the max deviation from fp32 cubic (in output std units),
 * and a checksum of every output. A copy loop in the same run measures
 * memory bandwidth (DRAM-sized and L3-sized buffers) for the roofline ratio
 * measured time / (bytes per inference / copy bandwidth), and a read-only
 * pass over the DRAM-sized buffer gives the read roofline (the floor of an
 * inference whose weights come from DRAM: the constant mode's 50 fp32
 * slices, 106 MiB, do not fit a 32 MiB L3).
 * Batch rows: for each batch size N and thread count, every repeat runs N
 * characters (each at its own phase, all advancing PHASE_STEP per repeat)
 * through N pfnn_run() calls and through one pfnn_batch_run() per thread
 * count, interleaved, and reports the median ms per character of each and
 * their ratio (the batch's speedup), plus whether the batch's outputs equal
 * the single runs' bit for bit (batch.h promises they do).
 * Wall-clock time is used here for profiling only.
 * Does NOT: load files, print, or keep memory after it returns.
 */
#ifndef STRIDER_BENCH_PFNN_BENCH_H
#define STRIDER_BENCH_PFNN_BENCH_H

#include "pfnn/batch.h"
#include "pfnn/network.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { PFNN_BENCH_MAX_BATCH_SIZES = 8, PFNN_BENCH_MAX_BATCH_THREADS = 4 };

typedef struct pfnn_bench_desc_t {
    int warmup;           /* 0: 50 untimed inferences per row */
    int repeats;          /* 0: 1001 timed inferences per row and pattern */
    float phase_step;     /* rad per inference in the cycle pattern; 0: 2 pi / 60 (1 s cycle at 60 Hz) */
    float fixed_phase;    /* phase of the fixed pattern; 0: 0.3 rad (all 4 control points weigh in) */
    pfnn_isa_t isa;       /* 0: AUTO */
    size_t copy_bytes;    /* DRAM copy buffer; 0: 128 MiB (4x a 32 MiB L3) */
    size_t copy_bytes_l3; /* cache copy buffer; 0: 4 MiB */
    uint32_t seed;        /* inputs; 0: 1 */
    /* Batch rows: sizes (1..PFNN_BATCH_MAX) and thread counts; none: no batch rows. */
    int batch_sizes[PFNN_BENCH_MAX_BATCH_SIZES];
    int batch_size_count;
    int batch_threads[PFNN_BENCH_MAX_BATCH_THREADS]; /* none: 1 */
    int batch_thread_count;
    int batch_repeats; /* 0: 21 */
} pfnn_bench_desc_t;

typedef struct pfnn_bench_row_t {
    pfnn_mode_t mode;
    pfnn_dtype_t dtype;
    pfnn_isa_t isa;                   /* what AUTO resolved to */
    double median_ms, min_ms, max_ms; /* cycle pattern */
    double fixed_median_ms, fixed_min_ms, fixed_max_ms;
    size_t mode_bytes;          /* memory held for the mode */
    size_t bytes_per_inference; /* weights + biases read by one inference */
    double roofline_ms;         /* bytes_per_inference / DRAM copy bandwidth */
    double roofline_ratio;      /* median_ms / roofline_ms */
    double roofline_l3_ratio;   /* fixed_median_ms / (bytes / L3 copy bandwidth) */
    double read_roofline_ms;    /* bytes_per_inference / DRAM read bandwidth: the floor when
                                        every inference streams its weights from DRAM */
    double read_roofline_ratio; /* median_ms / read_roofline_ms */
    double max_err_vs_cubic32;  /* max |y - y_cubic_fp32| / Ystd over the check inputs */
    double checksum;            /* sum of every output of the timed runs */
} pfnn_bench_row_t;

enum {
    PFNN_BENCH_MAX_ROWS = PFNN_PHASE_MODE_COUNT * PFNN_DTYPE_COUNT,
    PFNN_BENCH_MAX_BATCH_ROWS = PFNN_BENCH_MAX_ROWS * PFNN_BENCH_MAX_BATCH_SIZES * PFNN_BENCH_MAX_BATCH_THREADS
};

/* One batch size x thread count of one mode and dtype. */
typedef struct pfnn_bench_batch_row_t {
    pfnn_mode_t mode;
    pfnn_dtype_t dtype;
    pfnn_isa_t isa;
    int batch, threads;
    double single_ms;    /* median over repeats of (N pfnn_run calls) / N */
    double batch_ms;     /* median over repeats of (one pfnn_batch_run) / N */
    double batch_min_ms; /* per character */
    double batch_max_ms; /* per character */
    double speedup;      /* single_ms / batch_ms */
    bool identical;      /* every batch output == pfnn_run's, bit for bit */
    double checksum;     /* sum of the batch outputs of the timed runs */
} pfnn_bench_batch_row_t;

typedef struct pfnn_bench_result_t {
    pfnn_bench_desc_t desc; /* with the defaults filled in */
    int n_in, h0, h1, n_out;
    /* memcpy bandwidth counting bytes read + bytes written (STREAM "copy"
     * convention); the weights are only read, so a ratio below 1 is possible. */
    double copy_gb_s;    /* DRAM-sized buffer */
    double copy_l3_gb_s; /* L3-sized buffer */
    /* One core streaming reads through the DRAM-sized buffer (what a gemv
     * over weights that are not in cache does), bytes read per second. */
    double read_gb_s;
    int row_count;
    pfnn_bench_row_t rows[PFNN_BENCH_MAX_ROWS];
    int batch_row_count;
    pfnn_bench_batch_row_t batch_rows[PFNN_BENCH_MAX_BATCH_ROWS];
} pfnn_bench_result_t;

bool pfnn_bench_run(const pfnn_network_t *net, const pfnn_bench_desc_t *desc, pfnn_bench_result_t *out);
/* An aligned table, one line per row plus a header line with sizes and bandwidth. */
void pfnn_bench_format(const pfnn_bench_result_t *r, char *buf, size_t size);

#endif
