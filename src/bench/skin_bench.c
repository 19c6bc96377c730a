#include "bench/skin_bench.h"

#include "anim/pose.h"
#include "bench/bench_time.h"
#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SKIN_BENCH_DEFAULT_VERTICES = 65536,
    SKIN_BENCH_DEFAULT_JOINTS = 32,
    SKIN_BENCH_DEFAULT_WARMUP = 5,
    SKIN_BENCH_DEFAULT_REPEATS = 51,
    SKIN_BENCH_MAX_REPEATS = 100001,
    SKIN_BENCH_MAX_VERTICES = 1 << 26
};

/* Bind-space extent of the synthetic mesh (cm), about a character's size. */
#define SKIN_BENCH_EXTENT_CM 90.0f

typedef struct skin_bench_rng_t {
    uint32_t s;
} skin_bench_rng_t;

static float skin_bench_rnd(skin_bench_rng_t *r, float lo, float hi)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 17;
    r->s ^= r->s << 5;
    return lo + (hi - lo) * (float)(r->s >> 8) * (1.0f / 16777216.0f);
}

static void skin_bench_unit(skin_bench_rng_t *r, float *v)
{
    float len;
    do {
        v[0] = skin_bench_rnd(r, -1, 1);
        v[1] = skin_bench_rnd(r, -1, 1);
        v[2] = skin_bench_rnd(r, -1, 1);
        len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (len < 0.1f || len > 1.0f);
    v[0] /= len;
    v[1] /= len;
    v[2] /= len;
}

static void skin_bench_defaults(skin_bench_desc_t *d)
{
    if (d->mesh) {
        d->vertex_count = d->mesh->vertex_count;
        d->joint_count = d->mesh->joint_count;
    }
    if (d->vertex_count == 0)
        d->vertex_count = SKIN_BENCH_DEFAULT_VERTICES;
    if (d->joint_count == 0)
        d->joint_count = SKIN_BENCH_DEFAULT_JOINTS;
    if (d->influences == 0)
        d->influences = SKIN_MAX_INFLUENCES;
    if (d->threads == 0)
        d->threads = 1;
    if (d->warmup == 0)
        d->warmup = SKIN_BENCH_DEFAULT_WARMUP;
    if (d->repeats == 0)
        d->repeats = SKIN_BENCH_DEFAULT_REPEATS;
    if (d->seed == 0)
        d->seed = 1;
    if (d->tangents)
        d->positions_only = false;
}

/* Everything one benchmark owns; allocated once, freed at the end. */
typedef struct skin_bench_data_t {
    float *pos, *nrm, *tan, *w, *out_pos, *out_nrm, *out_tan, *palette, *dq, *ref_pos, *ref_nrm;
    float *w_given[SKIN_MAX_INFLUENCES]; /* W normalised for 1..4 influences, made when a configuration needs them */
    uint8_t *j8;
    uint16_t *j16;
    double *times;
} skin_bench_data_t;

static void skin_bench_free(skin_bench_data_t *b)
{
    free(b->pos);
    free(b->nrm);
    free(b->tan);
    free(b->w);
    free(b->out_pos);
    free(b->out_nrm);
    free(b->out_tan);
    free(b->palette);
    free(b->dq);
    free(b->j8);
    free(b->j16);
    free(b->times);
    free(b->ref_pos);
    free(b->ref_nrm);
    for (int k = 0; k < SKIN_MAX_INFLUENCES; k++)
        free(b->w_given[k]);
}

static void *skin_bench_alloc(size_t count, size_t elem, bool *ok)
{
    /* 64-byte aligned so that timings do not depend on malloc's luck. */
    size_t bytes = (count * elem + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p)
        *ok = false;
    return p;
}

/* Copies the caller's mesh and pose into the benchmark's aligned arrays. */
static void skin_bench_copy_mesh(const skin_bench_mesh_t *m, skin_bench_data_t *b)
{
    size_t n = (size_t)m->vertex_count;
    memcpy(b->pos, m->positions, n * 3 * sizeof(float));
    memcpy(b->nrm, m->normals, n * 3 * sizeof(float));
    memcpy(b->tan, m->tangents, n * 4 * sizeof(float));
    memcpy(b->w, m->weights, n * 4 * sizeof(float));
    memcpy(b->j16, m->joints, n * 4 * sizeof(uint16_t));
    /* uint8 indices hold every joint: joint_count <= SKIN_MAX_JOINTS = 256. */
    for (size_t k = 0; k < n * 4; k++)
        b->j8[k] = (uint8_t)m->joints[k];
    memcpy(b->palette, m->palette, (size_t)m->joint_count * 12 * sizeof(float));
    memcpy(b->dq, m->dq_palette, (size_t)m->joint_count * 8 * sizeof(float));
}

static void skin_bench_fill(const skin_bench_desc_t *d, skin_bench_data_t *b)
{
    if (d->mesh) {
        skin_bench_copy_mesh(d->mesh, b);
        return;
    }
    skin_bench_rng_t rng = {d->seed};
    int nj = d->joint_count;
    for (int j = 0; j < nj; j++) {
        float axis[3], q[4], t[3];
        skin_bench_unit(&rng, axis);
        pose_quat_axis_angle(axis, skin_bench_rnd(&rng, -1.5f, 1.5f), q);
        for (int i = 0; i < 3; i++)
            t[i] = skin_bench_rnd(&rng, -SKIN_BENCH_EXTENT_CM, SKIN_BENCH_EXTENT_CM);
        pose_mat_from_rt(q, t, b->palette + 12 * (size_t)j);
        pose_dq_from_rt(q, t, b->dq + 8 * (size_t)j);
    }
    for (size_t v = 0; v < (size_t)d->vertex_count; v++) {
        for (int i = 0; i < 3; i++)
            b->pos[3 * v + i] = skin_bench_rnd(&rng, -SKIN_BENCH_EXTENT_CM, SKIN_BENCH_EXTENT_CM);
        skin_bench_unit(&rng, b->nrm + 3 * v);
        skin_bench_unit(&rng, b->tan + 4 * v);
        b->tan[4 * v + 3] = 1.0f;
        /* Meshes are grouped by bone: vertex v belongs to joint v*nj/n, and
         * its other influences are that joint's neighbours. */
        int base = (int)(v * (size_t)nj / (size_t)d->vertex_count);
        float w[4], sum = 0;
        int joint[4];
        for (int i = 0; i < 4; i++) {
            w[i] = skin_bench_rnd(&rng, 0.05f, 1.0f) / (float)(1 + i);
            sum += w[i];
            joint[i] = (base + i) % nj;
        }
        /* Sorted by weight, heaviest first, as skin.h wants them. */
        for (int i = 1; i < 4; i++)
            for (int k = i; k > 0 && w[k] > w[k - 1]; k--) {
                float tw = w[k];
                w[k] = w[k - 1];
                w[k - 1] = tw;
                int tj = joint[k];
                joint[k] = joint[k - 1];
                joint[k - 1] = tj;
            }
        for (int i = 0; i < 4; i++) {
            b->w[4 * v + i] = w[i] / sum;
            b->j8[4 * v + i] = (uint8_t)joint[i];
            b->j16[4 * v + i] = (uint16_t)joint[i];
        }
    }
}

/* Weights normalised for the first K (the others 0), as a prenormalized job
 * expects them: the work ozz's SkinningJob is handed. */
static void skin_bench_normalize_for_count(float *weights, size_t n, int k)
{
    for (size_t v = 0; v < n; v++) {
        float *w = weights + 4 * v, sum = 0.0f;
        for (int i = 0; i < k; i++)
            sum += w[i];
        for (int i = 0; i < 4; i++)
            w[i] = i < k ? w[i] / sum : 0.0f;
    }
}

/* One timed run of JOB, on POOL when it has one. */
static bool skin_bench_once(skin_pool_t *pool, const skin_job_t *job, double *seconds)
{
    double t0 = bench_now_s();
    bool ok = pool ? skin_pool_run(pool, job) : skin_run(job);
    *seconds = bench_now_s() - t0;
    return ok;
}

/* OUT for one thread count, from its TIMES and the outputs of its last run
 * (in B), against the reference in B. */
static void skin_bench_result(const skin_bench_desc_t *d, const skin_job_t *job, const skin_bench_data_t *b,
                              double *times, skin_bench_result_t *out)
{
    size_t n = (size_t)d->vertex_count;
    bool nrm = !d->positions_only;
    memset(out, 0, sizeof *out);
    out->desc = *d;
    out->isa = d->method == SKIN_LBS_POINTS ? SKIN_ISA_SCALAR : d->isa == SKIN_ISA_AUTO ? skin_isa_best() : d->isa;
    skin_kernel_name(job, out->kernel, sizeof out->kernel);
    bench_stats(times, d->repeats, &out->median_s, &out->min_s, &out->max_s);
    out->median_mverts_s = 1e-6 * (double)n / out->median_s;
    out->best_mverts_s = 1e-6 * (double)n / out->min_s;
    /* Chain the checksums so that every output array counts. */
    uint32_t c = file_checksum32(b->out_pos, n * 3 * sizeof(float));
    if (nrm)
        c ^= file_checksum32(b->out_nrm, n * 3 * sizeof(float)) * 31u;
    if (d->tangents)
        c ^= file_checksum32(b->out_tan, n * 4 * sizeof(float)) * 131u;
    out->checksum = c;
    for (size_t k = 0; k < n * 3; k++) {
        /* A NaN anywhere counts as an infinite error. */
        double ep = fabs((double)b->out_pos[k] - (double)b->ref_pos[k]);
        out->max_pos_err_cm = fmax(out->max_pos_err_cm, isfinite(ep) ? ep : INFINITY);
        if (nrm) {
            double en = fabs((double)b->out_nrm[k] - (double)b->ref_nrm[k]);
            out->max_nrm_err = fmax(out->max_nrm_err, isfinite(en) ? en : INFINITY);
        }
    }
}

bool skin_bench_run(const skin_bench_desc_t *desc, skin_bench_result_t *out)
{
    int threads = desc->threads ? desc->threads : 1;
    return skin_bench_run_set(desc, 1, &threads, 1, out);
}

/* Checks DESC (defaults filled in) against the set's first configuration
 * FIRST: its own sizes, and the mesh every configuration shares. */
static bool skin_bench_desc_ok(const skin_bench_desc_t *d, const skin_bench_desc_t *first)
{
    if (d->vertex_count < 1 || d->vertex_count > SKIN_BENCH_MAX_VERTICES || d->joint_count < 1 ||
        d->joint_count > SKIN_MAX_JOINTS || d->warmup < 0 || d->repeats < 1 || d->repeats > SKIN_BENCH_MAX_REPEATS ||
        d->influences < 1 || d->influences > SKIN_MAX_INFLUENCES) {
        log_error("bench skinning: bad sizes (vertices %d, joints %d, influences %d, warmup %d, repeats %d)",
                  d->vertex_count, d->joint_count, d->influences, d->warmup, d->repeats);
        return false;
    }
    if (d->vertex_count != first->vertex_count || d->joint_count != first->joint_count || d->mesh != first->mesh ||
        d->seed != first->seed || d->repeats != first->repeats) {
        log_error("bench skinning: the configurations of one interleaved run must share the mesh, its sizes, the "
                  "seed and the repeats");
        return false;
    }
    return true;
}

/* The weights CONFIG's job reads: the mesh's own, or (prenormalized) the
 * copy normalised for its influence count, made on first use and shared by
 * every configuration with that count. */
static const float *skin_bench_weights_for(const skin_bench_desc_t *d, skin_bench_data_t *b, bool *ok)
{
    if (!d->prenormalized)
        return b->w;
    size_t n = (size_t)d->vertex_count;
    float **wk = &b->w_given[d->influences - 1];
    if (!*wk) {
        *wk = skin_bench_alloc(n * 4, sizeof(float), ok);
        if (!*ok)
            return NULL;
        memcpy(*wk, b->w, n * 4 * sizeof(float));
        skin_bench_normalize_for_count(*wk, n, d->influences);
    }
    return *wk;
}

/* The set's sizes: 1..SKIN_BENCH_MAX_SET configurations at
 * 1..SKIN_BENCH_MAX_THREAD_COUNTS thread counts of 1..SKIN_POOL_MAX_THREADS. */
static bool skin_bench_set_sizes_ok(int count, const int *threads, int nthreads)
{
    if (count < 1 || count > SKIN_BENCH_MAX_SET || nthreads < 1 || nthreads > SKIN_BENCH_MAX_THREAD_COUNTS) {
        log_error("bench skinning: %d configurations (1..%d) at %d thread counts (1..%d)", count, SKIN_BENCH_MAX_SET,
                  nthreads, SKIN_BENCH_MAX_THREAD_COUNTS);
        return false;
    }
    for (int t = 0; t < nthreads; t++)
        if (threads[t] < 1 || threads[t] > SKIN_POOL_MAX_THREADS) {
            log_error("bench skinning: %d threads (1..%d)", threads[t], SKIN_POOL_MAX_THREADS);
            return false;
        }
    return true;
}

/* The mesh of the set (D[0]'s) into B, room for the times of PAIRS
 * (configuration, thread count) pairs, and one job per configuration over
 * it, each checked once: the inputs as skin.h wants them (indices in range,
 * the first N weights of a prenormalized job summing to 1). */
static bool skin_bench_set_jobs(const skin_bench_desc_t *d, int count, size_t pairs, skin_bench_data_t *b,
                                skin_job_t *jobs)
{
    bool ok = true;
    size_t n = (size_t)d[0].vertex_count, repeats = (size_t)d[0].repeats;
    b->pos = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b->nrm = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b->tan = skin_bench_alloc(n * 4, sizeof(float), &ok);
    b->w = skin_bench_alloc(n * 4, sizeof(float), &ok);
    b->out_pos = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b->out_nrm = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b->out_tan = skin_bench_alloc(n * 4, sizeof(float), &ok);
    b->palette = skin_bench_alloc((size_t)d[0].joint_count * 12, sizeof(float), &ok);
    b->dq = skin_bench_alloc((size_t)d[0].joint_count * 8, sizeof(float), &ok);
    b->j8 = skin_bench_alloc(n * 4, 1, &ok);
    b->j16 = skin_bench_alloc(n * 4, 2, &ok);
    b->times = skin_bench_alloc(repeats * pairs, sizeof(double), &ok);
    b->ref_pos = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b->ref_nrm = skin_bench_alloc(n * 3, sizeof(float), &ok);
    if (ok)
        skin_bench_fill(&d[0], b);
    for (int c = 0; ok && c < count; c++) {
        const float *w = skin_bench_weights_for(&d[c], b, &ok);
        bool nrm = !d[c].positions_only;
        jobs[c] = (skin_job_t){.vertex_count = d[c].vertex_count,
                               .influences = d[c].influences,
                               .method = d[c].method,
                               .isa = d[c].isa,
                               .positions = b->pos,
                               .normals = nrm ? b->nrm : NULL,
                               .tangents = d[c].tangents ? b->tan : NULL,
                               .joints_u8 = d[c].u16_indices ? NULL : b->j8,
                               .joints_u16 = d[c].u16_indices ? b->j16 : NULL,
                               .weights = w,
                               .joint_count = d[c].joint_count,
                               .palette = b->palette,
                               .dq_palette = b->dq,
                               .out_positions = b->out_pos,
                               .out_normals = b->out_nrm,
                               .out_tangents = b->out_tan,
                               .prenormalized = d[c].prenormalized};
    }
    if (!ok)
        log_error("bench skinning: out of memory for %d vertices", d[0].vertex_count);
    for (int c = 0; ok && c < count; c++)
        ok = skin_validate(&jobs[c]) && skin_check_vertices(&jobs[c]);
    return ok;
}

/* A pool per thread count above 1 (POOLS[t]; NULL: the caller's thread),
 * and every job's warm-up runs on each. */
static bool skin_bench_set_warm_up(const skin_bench_desc_t *d, const skin_job_t *jobs, int count, const int *threads,
                                   int nthreads, skin_pool_t **pools)
{
    bool ok = true;
    for (int t = 0; ok && t < nthreads; t++)
        if (threads[t] > 1 && !(pools[t] = skin_pool_create(threads[t])))
            ok = false;
    for (int c = 0; ok && c < count; c++)
        for (int t = 0; ok && t < nthreads; t++)
            for (int i = 0; ok && i < d[c].warmup; i++)
                ok = pools[t] ? skin_pool_run(pools[t], &jobs[c]) : skin_run(&jobs[c]);
    return ok;
}

/* Rounds: each (configuration, thread count) pair once per round, in an
 * order that rotates, an untimed run just before its timed one (its
 * pool's workers are then polling for work, as in back-to-back jobs; a
 * pool left idle puts its workers to sleep). A machine whose load drifts
 * during the benchmark then slows every pair alike, so the ratio of any
 * two rows is measured under one condition; a load that changes within
 * a round (a neighbour taking one core of a shared host) still shows.
 * Pair c * NTHREADS + t's times go to B's times from (pair * REPEATS). */
static bool skin_bench_set_rounds(const skin_job_t *jobs, int count, int nthreads, size_t repeats,
                                  skin_pool_t *const *pools, skin_bench_data_t *b)
{
    size_t pairs = (size_t)count * (size_t)nthreads;
    double dummy;
    bool ok = true;
    for (size_t i = 0; ok && i < repeats; i++)
        for (size_t k = 0; ok && k < pairs; k++) {
            size_t pair = (i + k) % pairs;
            int c = (int)(pair / (size_t)nthreads), t = (int)(pair % (size_t)nthreads);
            ok = skin_bench_once(pools[t], &jobs[c], &dummy) &&
                 skin_bench_once(pools[t], &jobs[c], &b->times[pair * repeats + i]);
        }
    return ok;
}

/* Each pair's result from a run of its own, checked against the
 * reference: the same math, scalar, one thread, same inputs. */
static bool skin_bench_set_results(const skin_bench_desc_t *d, const skin_job_t *jobs, int count, const int *threads,
                                   int nthreads, skin_pool_t *const *pools, skin_bench_data_t *b,
                                   skin_bench_result_t *out)
{
    size_t n = (size_t)d[0].vertex_count, repeats = (size_t)d[0].repeats;
    double dummy;
    bool ok = true;
    for (int c = 0; ok && c < count; c++) {
        skin_job_t ref = jobs[c];
        ref.method = d[c].method == SKIN_DQS ? SKIN_DQS : SKIN_LBS_POINTS;
        ref.isa = SKIN_ISA_SCALAR;
        ref.tangents = NULL;
        ref.out_positions = b->ref_pos;
        ref.out_normals = b->ref_nrm;
        ok = skin_run(&ref);
        for (int t = 0; ok && t < nthreads; t++) {
            memset(b->out_pos, 0, n * 3 * sizeof(float));
            memset(b->out_nrm, 0, n * 3 * sizeof(float));
            memset(b->out_tan, 0, n * 4 * sizeof(float));
            ok = skin_bench_once(pools[t], &jobs[c], &dummy);
            skin_bench_desc_t dt = d[c];
            dt.threads = threads[t];
            size_t pair = (size_t)c * (size_t)nthreads + (size_t)t;
            if (ok)
                skin_bench_result(&dt, &jobs[c], b, b->times + pair * repeats, &out[pair]);
        }
    }
    return ok;
}

bool skin_bench_run_set(const skin_bench_desc_t *descs, int count, const int *threads, int nthreads,
                        skin_bench_result_t *out)
{
    if (!skin_bench_set_sizes_ok(count, threads, nthreads))
        return false;
    skin_bench_desc_t *d = calloc((size_t)count, sizeof *d);
    skin_job_t *jobs = calloc((size_t)count, sizeof *jobs);
    bool ok = d && jobs;
    if (!ok)
        log_error("bench skinning: out of memory for %d configurations", count);
    for (int c = 0; ok && c < count; c++) {
        d[c] = descs[c];
        skin_bench_defaults(&d[c]);
        ok = skin_bench_desc_ok(&d[c], &d[0]);
    }
    if (!ok) {
        free(d);
        free(jobs);
        return false;
    }
    size_t pairs = (size_t)count * (size_t)nthreads;
    skin_bench_data_t b = {0};
    skin_pool_t *pools[SKIN_BENCH_MAX_THREAD_COUNTS] = {0};
    ok = skin_bench_set_jobs(d, count, pairs, &b, jobs) &&
         skin_bench_set_warm_up(d, jobs, count, threads, nthreads, pools) &&
         skin_bench_set_rounds(jobs, count, nthreads, (size_t)d[0].repeats, pools, &b) &&
         skin_bench_set_results(d, jobs, count, threads, nthreads, pools, &b, out);
    for (int t = 0; t < nthreads; t++)
        skin_pool_destroy(pools[t]);
    skin_bench_free(&b);
    free(d);
    free(jobs);
    return ok;
}

/* ---- The copy floor, on 1 to SKIN_POOL_MAX_THREADS threads ----
 * The same work split as the skinning pool's (skin_pool.c): chunks of
 * COPY_CHUNK vertices taken from one atomic counter, the calling thread
 * working too. Its speedup over one thread is how far this machine's caches
 * and memory scale for the bytes a kernel moves, so its helpers must be
 * there when a copy starts: they poll for the next one for
 * COPY_HELPER_POLL_S, longer than a round of the alternation takes at
 * benchmark sizes, before they sleep (a sleeping vCPU can take longer to
 * wake than a whole copy). */
enum { COPY_CHUNK = 1024, COPY_SPIN_BEFORE_YIELD = 256 };
static const double COPY_HELPER_POLL_S = 0.005;

typedef struct copy_crew_t {
    const skin_bench_data_t *b;
    size_t n;
    uint32_t chunks;
    int helpers; /* threads besides the caller */
    pthread_t threads[SKIN_POOL_MAX_THREADS];
    /* Read by polling helpers: written once per copy (or at the end). */
    _Alignas(64) _Atomic uint32_t generation; /* bumped per copy; helpers wait for a change */
    _Atomic bool quit;
    _Alignas(64) _Atomic uint32_t next; /* next chunk of the current copy */
    /* Written once per drain, not per chunk: a shared line costs more than a chunk. */
    _Alignas(64) _Atomic uint32_t done; /* chunks finished */
    _Atomic uint32_t sum;               /* joint indices summed over the finished chunks */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
} copy_crew_t;

static void copy_crew_drain(copy_crew_t *c)
{
    uint32_t sum = 0, taken = 0;
    for (;;) {
        uint32_t k = atomic_fetch_add_explicit(&c->next, 1, memory_order_acq_rel);
        if (k >= c->chunks)
            break;
        size_t v0 = (size_t)k * COPY_CHUNK, v1 = v0 + COPY_CHUNK < c->n ? v0 + COPY_CHUNK : c->n;
        memcpy(c->b->out_pos + 3 * v0, c->b->pos + 3 * v0, (v1 - v0) * 3 * sizeof(float));
        memcpy(c->b->out_nrm + 3 * v0, c->b->nrm + 3 * v0, (v1 - v0) * 3 * sizeof(float));
        for (size_t j = 4 * v0; j < 4 * v1; j++)
            sum += c->b->j8[j];
        taken++;
    }
    if (taken) {
        atomic_fetch_add_explicit(&c->sum, sum, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->done, taken, memory_order_release);
    }
}

static void copy_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *copy_crew_helper(void *arg)
{
    copy_crew_t *c = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&c->mutex);
    for (;;) {
        while (!atomic_load(&c->quit) && atomic_load(&c->generation) == seen)
            pthread_cond_wait(&c->wake, &c->mutex);
        if (atomic_load(&c->quit))
            break;
        seen = atomic_load(&c->generation);
        pthread_mutex_unlock(&c->mutex);
        copy_crew_drain(c);
        /* Poll for the next copy before sleeping. */
        for (double since = bench_now_s(); !atomic_load(&c->quit) && bench_now_s() - since < COPY_HELPER_POLL_S;) {
            uint32_t g = atomic_load_explicit(&c->generation, memory_order_acquire);
            if (g != seen) {
                seen = g;
                copy_crew_drain(c);
                since = bench_now_s();
            } else {
                copy_relax();
            }
        }
        pthread_mutex_lock(&c->mutex);
    }
    pthread_mutex_unlock(&c->mutex);
    return NULL;
}

/* Starts THREADS - 1 helpers; false (nothing left running) if one fails. */
static bool copy_crew_start(copy_crew_t *c, const skin_bench_data_t *b, size_t n, int threads)
{
    memset(c, 0, sizeof *c);
    c->b = b;
    c->n = n;
    c->chunks = (uint32_t)((n + COPY_CHUNK - 1) / COPY_CHUNK);
    pthread_mutex_init(&c->mutex, NULL);
    pthread_cond_init(&c->wake, NULL);
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&c->threads[i], NULL, copy_crew_helper, c) != 0)
            break;
        c->helpers++;
    }
    return c->helpers == threads - 1;
}

static void copy_crew_stop(copy_crew_t *c)
{
    pthread_mutex_lock(&c->mutex);
    atomic_store(&c->quit, true);
    pthread_cond_broadcast(&c->wake);
    pthread_mutex_unlock(&c->mutex);
    for (int i = 0; i < c->helpers; i++)
        pthread_join(c->threads[i], NULL);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->mutex);
}

/* One copy on the crew; returns the sum of the joint indices. The counter
 * of chunks is reset last: a helper that takes a chunk of this copy finds
 * the sum and the count of finished chunks already reset. */
static uint32_t copy_crew_run(copy_crew_t *c)
{
    atomic_store_explicit(&c->sum, 0, memory_order_relaxed);
    atomic_store_explicit(&c->done, 0, memory_order_relaxed);
    atomic_store_explicit(&c->next, 0, memory_order_release);
    if (c->helpers > 0) {
        pthread_mutex_lock(&c->mutex);
        atomic_fetch_add_explicit(&c->generation, 1, memory_order_acq_rel);
        pthread_cond_broadcast(&c->wake);
        pthread_mutex_unlock(&c->mutex);
    }
    copy_crew_drain(c);
    for (int spins = 0; atomic_load_explicit(&c->done, memory_order_acquire) < c->chunks; spins++) {
        if (spins >= COPY_SPIN_BEFORE_YIELD)
            sched_yield();
        else
            copy_relax();
    }
    return atomic_load_explicit(&c->sum, memory_order_relaxed);
}

bool skin_bench_copy_floor_threads(const skin_bench_desc_t *desc, const int *threads, int count,
                                   skin_bench_result_t *out)
{
    skin_bench_desc_t d = *desc;
    skin_bench_defaults(&d);
    bool counts_ok = count >= 1 && count <= SKIN_BENCH_MAX_THREAD_COUNTS;
    for (int t = 0; counts_ok && t < count; t++)
        counts_ok = threads[t] >= 1 && threads[t] <= SKIN_POOL_MAX_THREADS;
    if (d.vertex_count < 1 || d.vertex_count > SKIN_BENCH_MAX_VERTICES || d.warmup < 0 || d.repeats < 1 ||
        d.repeats > SKIN_BENCH_MAX_REPEATS || !counts_ok) {
        log_error("bench skinning: bad sizes (vertices %d, repeats %d, %d thread counts, first %d)", d.vertex_count,
                  d.repeats, count, count > 0 ? threads[0] : 0);
        return false;
    }
    size_t n = (size_t)d.vertex_count;
    bool ok = true;
    skin_bench_data_t b = {0};
    b.pos = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b.nrm = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b.out_pos = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b.out_nrm = skin_bench_alloc(n * 3, sizeof(float), &ok);
    b.j8 = skin_bench_alloc(n * 4, 1, &ok);
    b.times = skin_bench_alloc((size_t)d.repeats * (size_t)count, sizeof(double), &ok);
    if (!ok) {
        log_error("bench skinning: out of memory for %d vertices", d.vertex_count);
        skin_bench_free(&b);
        return false;
    }
    skin_bench_rng_t rng = {d.seed};
    for (size_t k = 0; k < n * 3; k++) {
        b.pos[k] = skin_bench_rnd(&rng, -SKIN_BENCH_EXTENT_CM, SKIN_BENCH_EXTENT_CM);
        b.nrm[k] = skin_bench_rnd(&rng, -1.0f, 1.0f);
    }
    for (size_t k = 0; k < n * 4; k++)
        b.j8[k] = (uint8_t)(k % 251);
    uint32_t expect = 0;
    for (size_t k = 0; k < n * 4; k++)
        expect += b.j8[k];

    copy_crew_t crews[SKIN_BENCH_MAX_THREAD_COUNTS];
    int started = 0;
    while (ok && started < count) {
        if (copy_crew_start(&crews[started], &b, n, threads[started])) {
            started++;
            continue;
        }
        log_error("bench skinning: could not start %d copy threads", threads[started]);
        copy_crew_stop(&crews[started]);
        ok = false;
    }
    /* Every copy's index sum is checked, so the reads are not optimised away. */
    for (int t = 0; ok && t < count; t++)
        for (int i = 0; ok && i < d.warmup; i++)
            ok = copy_crew_run(&crews[t]) == expect;
    /* Rounds in alternation, as skin_bench_run_set(). */
    for (int i = 0; ok && i < d.repeats; i++)
        for (int k = 0; ok && k < count; k++) {
            int t = (i + k) % count;
            ok = copy_crew_run(&crews[t]) == expect;
            double t0 = bench_now_s();
            uint32_t sum = copy_crew_run(&crews[t]);
            b.times[(size_t)t * (size_t)d.repeats + (size_t)i] = bench_now_s() - t0;
            ok = ok && sum == expect;
        }
    for (int t = 0; ok && t < count; t++) {
        /* Each count's output from a copy of its own, into cleared arrays:
         * a count that skipped chunks checksums differently. */
        memset(b.out_pos, 0, n * 3 * sizeof(float));
        memset(b.out_nrm, 0, n * 3 * sizeof(float));
        ok = copy_crew_run(&crews[t]) == expect;
        skin_bench_result_t *r = &out[t];
        memset(r, 0, sizeof *r);
        r->desc = d;
        r->desc.threads = threads[t];
        r->isa = SKIN_ISA_AUTO;
        bench_stats(b.times + (size_t)t * (size_t)d.repeats, d.repeats, &r->median_s, &r->min_s, &r->max_s);
        r->median_mverts_s = 1e-6 * (double)n / r->median_s;
        r->best_mverts_s = 1e-6 * (double)n / r->min_s;
        r->checksum = file_checksum32(b.out_pos, n * 3 * sizeof(float)) ^
                      file_checksum32(b.out_nrm, n * 3 * sizeof(float)) * 31u;
        snprintf(r->kernel, sizeof r->kernel, "memcpy of positions and normals, sum of joint indices");
    }
    if (!ok && started == count)
        log_error("bench skinning: a copy's sum of joint indices came out wrong");
    for (int t = 0; t < started; t++)
        copy_crew_stop(&crews[t]);
    skin_bench_free(&b);
    return ok;
}

void skin_bench_format(const skin_bench_result_t *r, char *buf, size_t size)
{
    const skin_bench_desc_t *d = &r->desc;
    snprintf(buf, size,
             "%-10s %-6s threads %d  verts %d  infl %d  %s%s  median %.1f us  min %.1f  max %.1f"
             "  %.1f M verts/s (best %.1f, %.1f per thread)  checksum %08x",
             skin_method_name(d->method), skin_isa_name(r->isa), d->threads, d->vertex_count, d->influences,
             d->positions_only ? "pos" : "pos+nrm", d->tangents ? "+tan" : "", 1e6 * r->median_s, 1e6 * r->min_s,
             1e6 * r->max_s, r->median_mverts_s, r->best_mverts_s, r->median_mverts_s / d->threads,
             (unsigned)r->checksum);
}

int skin_bench_influence_count(const float w[4])
{
    int k = 0;
    for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
        k += w[i] > 0.0f;
    return k > 0 ? k : 1;
}

void skin_bench_bin_influences(int vertex_count, const float *weights, int max_influences, int *out_order,
                               skin_bench_bins_t *out)
{
    memset(out, 0, sizeof *out);
    int cap = max_influences < 1 ? 1 : max_influences > SKIN_MAX_INFLUENCES ? SKIN_MAX_INFLUENCES : max_influences;
    for (int v = 0; v < vertex_count; v++) {
        int k = skin_bench_influence_count(weights + 4 * (size_t)v);
        out->count[(k < cap ? k : cap) - 1]++;
    }
    int next[SKIN_MAX_INFLUENCES];
    for (int b = 0, at = 0; b < SKIN_MAX_INFLUENCES; b++) {
        out->first[b] = next[b] = at;
        at += out->count[b];
    }
    /* A stable counting sort keeps each bin in mesh order (vertex cache). */
    for (int v = 0; v < vertex_count; v++) {
        int k = skin_bench_influence_count(weights + 4 * (size_t)v);
        out_order[next[(k < cap ? k : cap) - 1]++] = v;
    }
}
