/* batch: the batched forward pass (batch.h has the interface). The caller
 * turns each character's phase into weighted weight sets once per run
 * (pfnn_phase_terms, as pfnn_run does), orders the characters (by slice in
 * the slice modes), and the threads take blocks of PFNN_BATCH_BLOCK of them
 * through the three layers with pfnn_kern_gemm. */
#include "pfnn/batch.h"

#include "core/log.h"
#include "pfnn/kernels.h"
#include "pfnn/network_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Every weight set of a network: control points, then the CONSTANT
     * and LINEAR slices (network.h, pfnn_network_t.sets). */
    BATCH_SETS = PFNN_CONTROL_POINTS + PFNN_CONSTANT_SLICES + PFNN_LINEAR_SLICES,
    BATCH_ALIGN = 64,
    /* Polls of a worker for the next run before it sleeps on the condition
     * variable (about 0.1 ms): runs come back to back in a benchmark, and a
     * sleeping worker wakes tens of microseconds after the broadcast. */
    BATCH_WORKER_POLLS = 2000,
    /* Spins of the waiting caller before it yields its core. */
    BATCH_SPIN_BEFORE_YIELD = 256
};

/* next = run:32 | block count:16 | next block:16; a worker that wakes late
 * for run N can never take a block of run N + 1. */
#define BATCH_FIELD_BITS 16
#define BATCH_FIELD_MASK ((1u << BATCH_FIELD_BITS) - 1u)
_Static_assert((PFNN_BATCH_MAX + PFNN_BATCH_BLOCK - 1) / PFNN_BATCH_BLOCK <= (int)BATCH_FIELD_MASK,
               "block count must fit its field");

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

typedef struct batch_worker_t {
    struct pfnn_batch_t *batch;
    int index; /* its scratch: ws[index] (0 is the caller's) */
} batch_worker_t;

struct pfnn_batch_t {
    _Alignas(BATCH_ALIGN) _Atomic uint64_t next;
    _Alignas(BATCH_ALIGN) _Atomic uint32_t blocks_done;
    _Alignas(BATCH_ALIGN) const pfnn_network_t *net;
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
    batch_ws_t ws[PFNN_BATCH_MAX_THREADS];
    /* Threads. */
    int thread_count; /* including the caller */
    int started;      /* worker threads running */
    pthread_t threads[PFNN_BATCH_MAX_THREADS];
    batch_worker_t workers[PFNN_BATCH_MAX_THREADS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    uint32_t generation; /* run number, bumped once per threaded run */
    bool quit;
    bool sync_made; /* mutex and wake exist */
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

/* Takes and runs blocks of run GEN on scratch W until none are left. */
static void batch_drain(pfnn_batch_t *b, batch_ws_t *w, uint32_t gen)
{
    uint64_t v = atomic_load_explicit(&b->next, memory_order_acquire);
    for (;;) {
        const uint32_t idx = (uint32_t)v & BATCH_FIELD_MASK;
        const uint32_t count = (uint32_t)(v >> BATCH_FIELD_BITS) & BATCH_FIELD_MASK;
        if ((uint32_t)(v >> (2 * BATCH_FIELD_BITS)) != gen || idx >= count)
            return;
        if (!atomic_compare_exchange_weak_explicit(&b->next, &v, v + 1, memory_order_acq_rel, memory_order_acquire))
            continue;
        const int first = (int)idx * PFNN_BATCH_BLOCK;
        const int left = b->job.count - first;
        batch_block(b, w, first, left < PFNN_BATCH_BLOCK ? left : PFNN_BATCH_BLOCK);
        atomic_fetch_add_explicit(&b->blocks_done, 1, memory_order_release);
        v = atomic_load_explicit(&b->next, memory_order_acquire);
    }
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *batch_worker_main(void *arg)
{
    batch_worker_t *wk = arg;
    pfnn_batch_t *b = wk->batch;
    batch_ws_t *w = &b->ws[wk->index];
    /* Runs are numbered from 1; one posted before this thread got here
     * still counts as new. */
    uint32_t seen = 0;
    pthread_mutex_lock(&b->mutex);
    for (;;) {
        while (!b->quit && b->generation == seen)
            pthread_cond_wait(&b->wake, &b->mutex);
        if (b->quit)
            break;
        seen = b->generation;
        pthread_mutex_unlock(&b->mutex);
        batch_drain(b, w, seen);
        /* Poll for the next run before sleeping; one found here is drained
         * at once (the wait above then finds its blocks gone). */
        for (int polls = 0; polls < BATCH_WORKER_POLLS; polls++) {
            uint32_t gen = (uint32_t)(atomic_load_explicit(&b->next, memory_order_acquire) >> (2 * BATCH_FIELD_BITS));
            if (gen != seen) {
                batch_drain(b, w, gen);
                seen = gen;
                polls = 0;
            } else {
                cpu_relax();
            }
        }
        pthread_mutex_lock(&b->mutex);
    }
    pthread_mutex_unlock(&b->mutex);
    return NULL;
}

static void batch_stop(pfnn_batch_t *b)
{
    pthread_mutex_lock(&b->mutex);
    b->quit = true;
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->mutex);
    for (int i = 0; i < b->started; i++)
        pthread_join(b->threads[i], NULL);
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->mutex);
}

/* ------------------------------------------------------------- lifecycle */

pfnn_batch_t *pfnn_batch_create(const pfnn_batch_desc_t *desc)
{
    const int threads = desc && desc->thread_count ? desc->thread_count : 1;
    if (!desc || !desc->net || !desc->net->sets) {
        log_error("pfnn batch: needs a loaded network");
        return NULL;
    }
    if (desc->max_count < 1 || desc->max_count > PFNN_BATCH_MAX || threads < 1 || threads > PFNN_BATCH_MAX_THREADS) {
        log_error("pfnn batch: %d characters (1..%d) on %d threads (1..%d)", desc->max_count, PFNN_BATCH_MAX, threads,
                  PFNN_BATCH_MAX_THREADS);
        return NULL;
    }
    const pfnn_network_t *net = desc->net;
    pfnn_batch_t *b = alloc_aligned(sizeof *b);
    if (!b) {
        log_error("%s: out of memory for a batch", net->name);
        return NULL;
    }
    memset(b, 0, sizeof *b);
    atomic_init(&b->next, 0);
    atomic_init(&b->blocks_done, 0);
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
    bool ok = b->terms && b->order;
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
    pthread_mutex_init(&b->mutex, NULL);
    pthread_cond_init(&b->wake, NULL);
    b->sync_made = true;
    for (int i = 1; i < threads; i++) {
        b->workers[i] = (batch_worker_t){.batch = b, .index = i};
        if (pthread_create(&b->threads[b->started], NULL, batch_worker_main, &b->workers[i]) != 0) {
            log_error("pfnn batch: could not start thread %d of %d", i + 1, threads);
            pfnn_batch_destroy(b);
            return NULL;
        }
        b->started++;
    }
    return b;
}

void pfnn_batch_destroy(pfnn_batch_t *batch)
{
    if (!batch)
        return;
    if (batch->sync_made)
        batch_stop(batch);
    for (int t = 0; t < PFNN_BATCH_MAX_THREADS; t++) {
        free(batch->ws[t].block);
        free(batch->ws[t].cols);
    }
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
    /* One block, or no workers: all of it on this thread. */
    if (b->started == 0 || b->block_count == 1) {
        for (int first = 0; first < job->count; first += PFNN_BATCH_BLOCK) {
            const int left = job->count - first;
            batch_block(b, &b->ws[0], first, left < PFNN_BATCH_BLOCK ? left : PFNN_BATCH_BLOCK);
        }
        return;
    }
    atomic_store_explicit(&b->blocks_done, 0, memory_order_relaxed);
    pthread_mutex_lock(&b->mutex);
    /* Run numbers skip 0, the workers' "none seen yet". */
    if (++b->generation == 0)
        b->generation = 1;
    const uint32_t gen = b->generation;
    atomic_store_explicit(
        &b->next, ((uint64_t)gen << (2 * BATCH_FIELD_BITS)) | ((uint64_t)(uint32_t)b->block_count << BATCH_FIELD_BITS),
        memory_order_release);
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->mutex);
    batch_drain(b, &b->ws[0], gen);
    /* Every block is taken; wait for those still running on workers. */
    for (int spins = 0; atomic_load_explicit(&b->blocks_done, memory_order_acquire) < (uint32_t)b->block_count;
         spins++) {
        if (spins >= BATCH_SPIN_BEFORE_YIELD)
            sched_yield();
    }
}

bool pfnn_batch_run(const pfnn_batch_job_t *job)
{
    if (!pfnn_batch_validate(job))
        return false;
    pfnn_batch_run_unchecked(job);
    return true;
}
