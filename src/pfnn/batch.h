/* batch (pfnn_batch_): one forward pass of the phase-functioned network for
 * many characters at once. pfnn_run() streams every weight it uses once per
 * character (8.9 MB in the cubic mode); a batch reads each weight panel once
 * per block of PFNN_BATCH_BLOCK characters and applies it to all of them
 * (a panel GEMM: 16 output rows x 3 characters in registers per pass).
 * Call order: pfnn_load*() -> pfnn_batch_create(desc) (sizes every scratch
 * buffer for desc.max_count characters and per thread; runs on desc.pool,
 * or on a core/pool of desc.thread_count threads it makes) -> per step: fill a pfnn_batch_job_t (count characters,
 * each with its phase, input row and output row), pfnn_batch_run(), then
 * pfnn_output_is_finite() per output row -> pfnn_batch_destroy() -> pfnn_free().
 * Modes: CUBIC evaluates the 4 control points as 4 GEMMs and blends each
 * character with its own Catmull-Rom coefficients (a zero coefficient drops
 * that character from that control point's GEMM); CONSTANT and LINEAR sort
 * the characters by slice (stable counting sort) and run one GEMM per slice
 * present in a block (LINEAR: each character's two neighbouring slices).
 * Results: every output element goes through exactly the operations
 * pfnn_run() applies to it (same kernels, chains and order; sums of two
 * terms are commutative), so a batch's row equals pfnn_run() on that row
 * bit for bit, on the same ISA, whatever the count, the position in the
 * batch, the block size or the thread count (tests/pfnn/test_batch.c).
 * Threads: one core/pool loop over blocks of PFNN_BATCH_BLOCK characters
 * (the caller's pool, so a crowd's controllers and its network share one
 * set of threads); a run returns when every block is done. One run at a
 * time per batch (not reentrant).
 * Memory: allocated by create, owned by the batch; the caller owns x, y and
 * phase. pfnn_batch_run() never allocates and never locks on the calling
 * thread's data path except to wake the workers.
 * Does NOT: build or interpret x/y (the controller does), prepare phase
 * modes (pfnn_prepare_mode), pin
 * threads to cores, balance work finer than a block, or run in place (x and y
 * must not overlap). The network must outlive the batch and keep its dims.
 */
#ifndef STRIDER_PFNN_BATCH_H
#define STRIDER_PFNN_BATCH_H

#include "pfnn/network.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    /* Largest max_count a batch accepts. */
    PFNN_BATCH_MAX = 4096,
    /* Threads per batch made without a pool, counting the caller. */
    PFNN_BATCH_MAX_THREADS = 16,
    /* Characters per block: the unit of work of one thread, and how many
     * characters one pass over the weights serves. */
    PFNN_BATCH_BLOCK = 24
};

typedef struct pfnn_batch_t pfnn_batch_t;

typedef struct pfnn_batch_desc_t {
    const pfnn_network_t *net; /* loaded; its dims size the scratch */
    int max_count;             /* characters per run, 1..PFNN_BATCH_MAX */
    int thread_count;          /* without a pool: threads that run blocks, counting the caller; 0: 1 */
    struct pool_t *pool;       /* borrowed (core/pool.h): run on its threads, shared with the caller's other loops */
} pfnn_batch_desc_t;

typedef struct pfnn_batch_job_t {
    pfnn_batch_t *batch;
    pfnn_mode_t mode;
    pfnn_dtype_t dtype;
    pfnn_isa_t isa;
    int count;          /* characters, 0..max_count */
    const float *phase; /* count phases, radians, any real value */
    const float *x;     /* character c's raw input: x + c * x_stride, n_in floats */
    size_t x_stride;    /* floats; 0: n_in */
    float *y;           /* character c's raw output: y + c * y_stride, n_out floats */
    size_t y_stride;    /* floats; 0: n_out */
} pfnn_batch_job_t;

/* NULL + one logged line on a bad desc, out of memory, or a thread that
 * would not start. */
pfnn_batch_t *pfnn_batch_create(const pfnn_batch_desc_t *desc);
void pfnn_batch_destroy(pfnn_batch_t *batch);
int pfnn_batch_thread_count(const pfnn_batch_t *batch);
int pfnn_batch_max_count(const pfnn_batch_t *batch);

/* O(1) checks: pointers, count, strides, x/y overlap, mode prepared in
 * dtype, ISA runs here; one logged line on failure. */
bool pfnn_batch_validate(const pfnn_batch_job_t *job);
/* Validates, then computes every y. A non-finite x or phase gives that
 * character non-finite outputs (propagated, never hidden) and touches no
 * other character's. */
bool pfnn_batch_run(const pfnn_batch_job_t *job);
/* Same without pfnn_batch_validate() (for callers that validated once). */
void pfnn_batch_run_unchecked(const pfnn_batch_job_t *job);

#endif
