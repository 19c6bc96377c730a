/* skin_pool: skinning jobs on a persistent pool of threads (skin.h has the
 * interface). The arithmetic is skin.c's: a job is bound once (skin_bind) and
 * its kernel runs on chunks of vertices, so results are bit-exact with
 * skin_run(). */
#include "anim/skin.h"
#include "anim/skin_internal.h"

#include "core/log.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The pool hands out chunks of SKIN_CHUNK vertices from one atomic counter
 * (dynamic scheduling): on a busy machine a descheduled worker costs at most
 * the chunk it holds, instead of a fixed half of the mesh. Chunks start on
 * multiples of SKIN_CHUNK (a multiple of SKIN_BLOCK), and every vertex runs
 * the same arithmetic wherever it falls, so results are bit-exact with
 * skin_run() whatever thread takes which chunk. */
#define SKIN_CHUNK 1024
/* Spins of the waiting caller before it yields its core to the workers. */
#define SKIN_SPIN_BEFORE_YIELD 256
/* Polls of a worker for the next job before it sleeps on the condition
 * variable (about 0.1 ms on a Xeon, where a pause takes ~140 cycles; less
 * on CPUs with a shorter pause). Jobs often come back to back
 * (one mesh after another, a benchmark's repeats), and a sleeping worker
 * wakes tens of microseconds after the broadcast: a fifth of a 90k-vertex
 * job on two threads. */
#define SKIN_WORKER_POLLS 2000
/* next = job:24 | chunk count:20 | next chunk:20 (2^20 chunks of 1024
 * vertices cover every vertex count skin_validate() accepts). */
#define SKIN_STATE_BITS 20
#define SKIN_STATE_MASK ((1u << SKIN_STATE_BITS) - 1u)
#define SKIN_GEN_MASK 0xFFFFFFu

typedef struct skin_worker_t {
    struct skin_pool_t *pool;
} skin_worker_t;

struct skin_pool_t {
    skin_prepared_t prep; /* first member: keeps its 64-byte alignment */
    skin_ctx_t ctx;
    skin_range_fn_t fn;
    int vertex_count;
    uint32_t chunk_count;
    /* Job number, chunk count and next chunk in one word (SKIN_STATE): a
     * worker that wakes late for job N can never take a chunk of job N + 1,
     * and reads nothing else before it owns a chunk. */
    _Alignas(64) _Atomic uint64_t next;
    _Alignas(64) _Atomic uint32_t chunks_done;
    int thread_count; /* including the calling thread */
    int started;      /* worker threads running */
    pthread_t threads[SKIN_POOL_MAX_THREADS];
    skin_worker_t workers[SKIN_POOL_MAX_THREADS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    uint32_t generation; /* job number, bumped once per job */
    bool quit;
};

/* Takes and skins chunks of job GEN until none are left. */
static void skin_pool_drain(skin_pool_t *pool, uint32_t gen)
{
    uint64_t x = atomic_load_explicit(&pool->next, memory_order_acquire);
    for (;;) {
        uint32_t idx = (uint32_t)x & SKIN_STATE_MASK;
        uint32_t count = (uint32_t)(x >> SKIN_STATE_BITS) & SKIN_STATE_MASK;
        if ((uint32_t)(x >> (2 * SKIN_STATE_BITS)) != (gen & SKIN_GEN_MASK) || idx >= count)
            return;
        if (!atomic_compare_exchange_weak_explicit(&pool->next, &x, x + 1, memory_order_acq_rel, memory_order_acquire))
            continue;
        int b = (int)idx * SKIN_CHUNK;
        int e = b + SKIN_CHUNK < pool->vertex_count ? b + SKIN_CHUNK : pool->vertex_count;
        pool->fn(&pool->ctx, b, e);
        atomic_fetch_add_explicit(&pool->chunks_done, 1, memory_order_release);
        x = atomic_load_explicit(&pool->next, memory_order_acquire);
    }
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *skin_worker_main(void *arg)
{
    skin_worker_t *w = arg;
    skin_pool_t *pool = w->pool;
    /* Jobs are numbered from 1; a job posted before this thread got here
     * still counts as new. */
    uint32_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->mutex);
        if (pool->quit)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->mutex);
        skin_pool_drain(pool, seen);
        /* Poll for the next job before sleeping; one found here is drained
         * at once (the wait below then finds its chunks gone). */
        uint32_t last = seen & SKIN_GEN_MASK;
        for (int polls = 0; polls < SKIN_WORKER_POLLS; polls++) {
            uint32_t gen = (uint32_t)(atomic_load_explicit(&pool->next, memory_order_acquire) >> (2 * SKIN_STATE_BITS));
            if (gen != last) {
                skin_pool_drain(pool, gen);
                last = gen;
                polls = 0;
            } else {
                cpu_relax();
            }
        }
        pthread_mutex_lock(&pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

static void skin_pool_stop(skin_pool_t *pool)
{
    pthread_mutex_lock(&pool->mutex);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
}

skin_pool_t *skin_pool_create(int thread_count)
{
    if (thread_count < 1 || thread_count > SKIN_POOL_MAX_THREADS) {
        log_error("skin: pool of %d threads (1..%d)", thread_count, SKIN_POOL_MAX_THREADS);
        return NULL;
    }
    size_t size = (sizeof(skin_pool_t) + 63) / 64 * 64;
    skin_pool_t *pool = aligned_alloc(64, size);
    if (!pool) {
        log_error("skin: out of memory for the thread pool");
        return NULL;
    }
    memset(pool, 0, sizeof *pool);
    atomic_init(&pool->next, 0);
    atomic_init(&pool->chunks_done, 0);
    pool->thread_count = thread_count;
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    for (int i = 0; i + 1 < thread_count; i++) {
        pool->workers[i] = (skin_worker_t){.pool = pool};
        if (pthread_create(&pool->threads[i], NULL, skin_worker_main, &pool->workers[i]) != 0) {
            log_error("skin: could not start skinning thread %d of %d", i + 1, thread_count);
            skin_pool_stop(pool);
            free(pool);
            return NULL;
        }
        pool->started++;
    }
    return pool;
}

void skin_pool_destroy(skin_pool_t *pool)
{
    if (!pool)
        return;
    skin_pool_stop(pool);
    free(pool);
}

int skin_pool_thread_count(const skin_pool_t *pool) { return pool ? pool->thread_count : 0; }

bool skin_pool_run(skin_pool_t *pool, const skin_job_t *job)
{
    if (!pool) {
        log_error("skin: no pool");
        return false;
    }
    if (!skin_validate(job))
        return false;
    int n = job->vertex_count;
    if (n == 0)
        return true;
    pool->fn = skin_bind(job, &pool->prep, &pool->ctx);
    pool->vertex_count = n;
    pool->chunk_count = (uint32_t)((n + SKIN_CHUNK - 1) / SKIN_CHUNK);
    atomic_store_explicit(&pool->chunks_done, 0, memory_order_relaxed);
    /* Small meshes, or no workers: one range on this thread. */
    if (pool->started == 0 || pool->chunk_count == 1) {
        pool->fn(&pool->ctx, 0, n);
        return true;
    }
    pthread_mutex_lock(&pool->mutex);
    uint32_t gen = ++pool->generation;
    atomic_store_explicit(&pool->next,
                          ((uint64_t)(gen & SKIN_GEN_MASK) << (2 * SKIN_STATE_BITS)) |
                              ((uint64_t)pool->chunk_count << SKIN_STATE_BITS),
                          memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    skin_pool_drain(pool, gen);
    /* Every chunk is taken; wait for those still running on workers. */
    for (int spins = 0; atomic_load_explicit(&pool->chunks_done, memory_order_acquire) < pool->chunk_count; spins++) {
        if (spins >= SKIN_SPIN_BEFORE_YIELD)
            sched_yield();
    }
    return true;
}
