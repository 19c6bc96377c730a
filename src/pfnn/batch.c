/* batch: the batched forward pass (batch.h has the interface). The caller
 * turns each character's phase into weighted weight sets once per run
 * (pfnn_phase_terms, as pfnn_run does), orders the characters (by slice in
 * the slice modes), and the threads take blocks of PFNN_BATCH_BLOCK of them
 * through the three layers with pfnn_kern_gemm. */
#include "pfnn/batch.h"

#include "core/log.h"
#include "core/pool.h"
#include "pfnn/kernels.h"
#include "pfnn/network_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Every weight set of a network: control points, then the CONSTANT
     * and LINEAR slices (network.h, pfnn_network_t.sets). */
    BATCH_SETS = PFNN_CONTROL_POINTS + PFNN_CONSTANT_SLICES + PFNN_LINEAR_SLICES,
    BATCH_ALIGN = 64
};

/* One character's terms: the weight sets it sums, in pfnn_run's order. */
typedef struct batch_terms_t {
    int set[PFNN_CONTROL_POINTS];
    float c[PFNN_CONTROL_POINTS];
    int n;
} batch_terms_t;

/* One thread's scratch: a block's rows through the layers, and its GEMM
 * columns grouped by weight set. */
typedef struct batch_ws_t {
    float *xn, *h0, *h1, *yn; /* PFNN_BATCH_BLOCK rows each */
    pfnn_kern_col_t *cols;    /* PFNN_BATCH_BLOCK * PFNN_CONTROL_POINTS */
    void *block;
} batch_ws_t;

struct pfnn_batch_t {
    const pfnn_network_t *net;
    int max_count;
    size_t xn_stride; /* floats per row of ws.xn, ws.h0, ws.h1, ws.yn */
    size_t h0_stride, h1_stride, yn_stride;
    /* The run in progress (written by the caller before the workers see
     * its number, read-only while blocks run). */
    pfnn_batch_job_t job;
    pfnn_isa_t isa;
    int block_count;
    batch_terms_t *terms; /* max_count, per character */
    int *order;           /* max_count: characters in the order blocks take them */
    /* Threads: the caller's pool, or one of our own (thread_count > 1). */
    pool_t *pool;
    pool_t *own_pool;
    int thread_count; /* including the caller */
    batch_ws_t *ws;   /* one per thread */
};

static void *alloc_aligned(size_t bytes)
{
    return aligned_alloc(BATCH_ALIGN, round_up(bytes ? bytes : 1, BATCH_ALIGN));
}

/* ------------------------------------------------------------- one block */

/* Characters order[first .. first + n) of the run through the network. */
static void batch_block(const pfnn_batch_t *b, batch_ws_t *w, int first, int n)
{
    const pfnn_network_t *net = b->net;
    const pfnn_batch_job_t *job = &b->job;
    const size_t xs = job->x_stride ? job->x_stride : (size_t)net->n_in;
    const size_t ys = job->y_stride ? job->y_stride : (size_t)net->n_out;
    const int *chars = b->order + first;

    /* Columns grouped by weight set (counting sort, stable), so each set's
     * GEMM serves every character of the block that uses it. Sets go in
     * increasing index, which is each character's own order in the cubic
     * mode (control points 0..3); a LINEAR character may get its second
     * slice first (slice 9 then 0), and a + b == b + a in IEEE arithmetic,
     * so its sum is pfnn_run's bit for bit. */
    int start[BATCH_SETS + 1];
    memset(start, 0, sizeof start);
    for (int k = 0; k < n; k++) {
        const batch_terms_t *t = &b->terms[chars[k]];
        for (int j = 0; j < t->n; j++)
            if (t->c[j] != 0.0f)
                start[t->set[j] + 1]++;
    }
    for (int s = 0; s < BATCH_SETS; s++)
        start[s + 1] += start[s];
    int fill[BATCH_SETS];
    memcpy(fill, start, sizeof fill);
    for (int k = 0; k < n; k++) {
        const batch_terms_t *t = &b->terms[chars[k]];
        for (int j = 0; j < t->n; j++)
            if (t->c[j] != 0.0f)
                w->cols[fill[t->set[j]]++] = (pfnn_kern_col_t){.row = k, .c = t->c[j]};
    }
    /* The first set applied to a row writes it, the others add. */
    bool written[PFNN_BATCH_BLOCK] = {false};
    for (int j = 0; j < start[BATCH_SETS]; j++) {
        w->cols[j].accumulate = written[w->cols[j].row];
        written[w->cols[j].row] = true;
    }

    for (int k = 0; k < n; k++) {
        const float *x = job->x + (size_t)chars[k] * xs;
        float *xn = w->xn + (size_t)k * b->xn_stride;
        for (int i = 0; i < net->n_in; i++)
            xn[i] = (x[i] - net->x_mean[i]) / net->x_std[i];
    }
    const float *in[PFNN_LAYERS] = {w->xn, w->h0, w->h1};
    float *out[PFNN_LAYERS] = {w->h0, w->h1, w->yn};
    const size_t in_stride[PFNN_LAYERS] = {b->xn_stride, b->h0_stride, b->h1_stride};
    const size_t out_stride[PFNN_LAYERS] = {b->h0_stride, b->h1_stride, b->yn_stride};
    for (int l = 0; l < PFNN_LAYERS; l++) {
        for (int s = 0; s < BATCH_SETS; s++) {
            if (start[s + 1] == start[s])
                continue;
            const pfnn_weights_t *ws = &net->sets[s];
            pfnn_kern_gemm(b->isa, job->dtype, ws->w32[l], ws->w16[l], ws->b[l], net->in[l], net->out_pad[l], in[l],
                           in_stride[l], out[l], out_stride[l], w->cols + start[s], start[s + 1] - start[s]);
        }
        if (l + 1 < PFNN_LAYERS)
            for (int k = 0; k < n; k++)
                pfnn_kern_elu(b->isa, out[l] + (size_t)k * out_stride[l], net->out[l]);
    }
    for (int k = 0; k < n; k++) {
        const float *yn = w->yn + (size_t)k * b->yn_stride;
        float *y = job->y + (size_t)chars[k] * ys;
        for (int o = 0; o < net->n_out; o++)
            y[o] = yn[o] * net->y_std[o] + net->y_mean[o];
    }
}

/* ---------------------------------------------------------------- threads */

/* A pool loop's blocks are PFNN_BATCH_BLOCK characters each; THREAD picks
 * the scratch. */
static void batch_range(void *user, int begin, int end, int thread)
{
    pfnn_batch_t *b = user;
    batch_block(b, &b->ws[thread], begin, end - begin);
}

/* ------------------------------------------------------------- lifecycle */

pfnn_batch_t *pfnn_batch_create(const pfnn_batch_desc_t *desc)
{
    const int threads = !desc ? 1 : desc->pool ? pool_threads(desc->pool) : desc->thread_count ? desc->thread_count : 1;
    if (!desc || !desc->net || !desc->net->sets) {
        log_error("pfnn batch: needs a loaded network");
        return NULL;
    }
    const int max_threads = desc->pool ? POOL_MAX_THREADS : PFNN_BATCH_MAX_THREADS;
    if (desc->max_count < 1 || desc->max_count > PFNN_BATCH_MAX || threads < 1 || threads > max_threads) {
        log_error("pfnn batch: %d characters (1..%d) on %d threads (1..%d)", desc->max_count, PFNN_BATCH_MAX, threads,
                  max_threads);
        return NULL;
    }
    const pfnn_network_t *net = desc->net;
    pfnn_batch_t *b = alloc_aligned(sizeof *b);
    if (!b) {
        log_error("%s: out of memory for a batch", net->name);
        return NULL;
    }
    memset(b, 0, sizeof *b);
    b->net = net;
    b->max_count = desc->max_count;
    b->thread_count = threads;
    /* Rows padded to whole panels so each starts on a cache line. */
    b->xn_stride = round_up((size_t)net->n_in, PFNN_PANEL_ROWS);
    b->h0_stride = (size_t)net->out_pad[0];
    b->h1_stride = (size_t)net->out_pad[1];
    b->yn_stride = (size_t)net->out_pad[2];
    b->terms = malloc((size_t)b->max_count * sizeof *b->terms);
    b->order = malloc((size_t)b->max_count * sizeof *b->order);
    b->ws = calloc((size_t)threads, sizeof *b->ws);
    bool ok = b->terms && b->order && b->ws;
    const size_t row_floats = b->xn_stride + b->h0_stride + b->h1_stride + b->yn_stride;
    for (int t = 0; ok && t < threads; t++) {
        batch_ws_t *w = &b->ws[t];
        w->block = alloc_aligned(PFNN_BATCH_BLOCK * row_floats * sizeof(float));
        w->cols = malloc(PFNN_BATCH_BLOCK * PFNN_CONTROL_POINTS * sizeof *w->cols);
        ok = w->block && w->cols;
        if (ok) {
            memset(w->block, 0, PFNN_BATCH_BLOCK * row_floats * sizeof(float));
            w->xn = w->block;
            w->h0 = w->xn + PFNN_BATCH_BLOCK * b->xn_stride;
            w->h1 = w->h0 + PFNN_BATCH_BLOCK * b->h0_stride;
            w->yn = w->h1 + PFNN_BATCH_BLOCK * b->h1_stride;
        }
    }
    if (!ok) {
        log_error("%s: out of memory for a batch of %d characters", net->name, b->max_count);
        pfnn_batch_destroy(b);
        return NULL;
    }
    b->pool = desc->pool;
    if (!b->pool && threads > 1) {
        b->pool = b->own_pool = pool_create(threads);
        if (!b->pool) {
            pfnn_batch_destroy(b);
            return NULL;
        }
    }
    return b;
}

void pfnn_batch_destroy(pfnn_batch_t *batch)
{
    if (!batch)
        return;
    pool_destroy(batch->own_pool);
    for (int t = 0; batch->ws && t < batch->thread_count; t++) {
        free(batch->ws[t].block);
        free(batch->ws[t].cols);
    }
    free(batch->ws);
    free(batch->terms);
    free(batch->order);
    free(batch);
}

int pfnn_batch_thread_count(const pfnn_batch_t *batch) { return batch ? batch->thread_count : 0; }

int pfnn_batch_max_count(const pfnn_batch_t *batch) { return batch ? batch->max_count : 0; }

/* ------------------------------------------------------------------- run */

bool pfnn_batch_validate(const pfnn_batch_job_t *job)
{
    if (!job || !job->batch) {
        log_error("pfnn batch: job needs a batch");
        return false;
    }
    const pfnn_batch_t *b = job->batch;
    const pfnn_network_t *net = b->net;
    if (job->count < 0 || job->count > b->max_count) {
        log_error("pfnn batch: %d characters, the batch holds 0..%d", job->count, b->max_count);
        return false;
    }
    if (job->count > 0 && (!job->phase || !job->x || !job->y)) {
        log_error("pfnn batch: job needs phase, x and y");
        return false;
    }
    const size_t xs = job->x_stride ? job->x_stride : (size_t)net->n_in;
    const size_t ys = job->y_stride ? job->y_stride : (size_t)net->n_out;
    if (xs < (size_t)net->n_in || ys < (size_t)net->n_out || xs > PFNN_MAX_FILE_BYTES || ys > PFNN_MAX_FILE_BYTES) {
        log_error("pfnn batch: strides %zu and %zu floats, under the rows of %d and %d (or absurd)", xs, ys, net->n_in,
                  net->n_out);
        return false;
    }
    if (job->count > 0) {
        /* Byte ranges of x and y must be disjoint (no run in place). */
        const uintptr_t x0 = (uintptr_t)job->x, y0 = (uintptr_t)job->y;
        const uintptr_t x1 = x0 + ((size_t)(job->count - 1) * xs + (size_t)net->n_in) * sizeof(float);
        const uintptr_t y1 = y0 + ((size_t)(job->count - 1) * ys + (size_t)net->n_out) * sizeof(float);
        if (x0 < y1 && y0 < x1) {
            log_error("pfnn batch: x and y overlap");
            return false;
        }
    }
    if (!net->sets || !pfnn_has_mode(net, job->mode, job->dtype)) {
        log_error("%s: phase mode %d (%s) in %s is not prepared", net->name, (int)job->mode, pfnn_mode_name(job->mode),
                  pfnn_dtype_name(job->dtype));
        return false;
    }
    if (!pfnn_isa_supported(job->isa, job->dtype)) {
        log_error("pfnn batch: ISA %s (%s weights) does not run on this CPU", pfnn_isa_name(job->isa),
                  pfnn_dtype_name(job->dtype));
        return false;
    }
    return true;
}

/* Every character's terms, and the order blocks take the characters in:
 * as given in the cubic mode (every character uses all control points),
 * sorted by first slice (stable) in the slice modes so a block holds few
 * slices. */
static void batch_plan(pfnn_batch_t *b)
{
    const pfnn_batch_job_t *job = &b->job;
    int count[BATCH_SETS + 1];
    memset(count, 0, sizeof count);
    for (int i = 0; i < job->count; i++) {
        batch_terms_t *t = &b->terms[i];
        t->n = pfnn_phase_terms(b->net, job->mode, job->phase[i], t->set, t->c);
        count[t->set[0] + 1]++;
    }
    if (job->mode == PFNN_PHASE_CUBIC) {
        for (int i = 0; i < job->count; i++)
            b->order[i] = i;
        return;
    }
    for (int s = 0; s < BATCH_SETS; s++)
        count[s + 1] += count[s];
    for (int i = 0; i < job->count; i++)
        b->order[count[b->terms[i].set[0]]++] = i;
}

void pfnn_batch_run_unchecked(const pfnn_batch_job_t *job)
{
    pfnn_batch_t *b = job->batch;
    if (job->count == 0)
        return;
    b->job = *job;
    b->isa = pfnn_isa_resolve(job->isa, job->dtype);
    b->block_count = (job->count + PFNN_BATCH_BLOCK - 1) / PFNN_BATCH_BLOCK;
    batch_plan(b);
    pool_for(b->pool, job->count, PFNN_BATCH_BLOCK, batch_range, b);
}

bool pfnn_batch_run(const pfnn_batch_job_t *job)
{
    if (!pfnn_batch_validate(job))
        return false;
    pfnn_batch_run_unchecked(job);
    return true;
}
