/* pool: workers sleep on a condition variable between loops and spin a
 * little before sleeping, because a game's loops come back to back (one
 * per fixed step, a few per step). */
#define _GNU_SOURCE
#include "core/pool.h"

#include "core/log.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Polls of a worker for the next loop before it sleeps. */
#define POOL_WORKER_POLLS 4000

struct pool_t {
    int threads;
    pthread_t worker[POOL_MAX_THREADS];
    struct pool_worker_t *arg; /* per worker: the pool and its thread index */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    /* The current loop: read only by a thread holding one of its blocks,
     * so never while the caller writes the next loop's. */
    pool_fn_t fn;
    void *user;
    int count, block;
    /* loop:16 | blocks:24 | next block:24. A claim is a compare-and-swap
     * that names the loop, so a worker that wakes late for a loop already
     * done claims nothing of the next one. */
    _Atomic uint64_t state;
    atomic_int done;        /* blocks of the current loop finished */
    atomic_uint generation; /* bumped per loop; sleeping workers wait for it */
    atomic_bool quit;
};

#define POOL_FIELD_BITS 24
#define POOL_FIELD_MASK ((1u << POOL_FIELD_BITS) - 1u)

static void run_blocks(pool_t *p, uint64_t loop, int thread)
{
    uint64_t s = atomic_load_explicit(&p->state, memory_order_acquire);
    for (;;) {
        uint64_t blocks = (s >> POOL_FIELD_BITS) & POOL_FIELD_MASK, b = s & POOL_FIELD_MASK;
        if ((s >> (2 * POOL_FIELD_BITS)) != loop || b >= blocks)
            return;
        if (!atomic_compare_exchange_weak_explicit(&p->state, &s, s + 1, memory_order_acquire, memory_order_acquire))
            continue;
        int begin = (int)b * p->block;
        int end = begin + p->block < p->count ? begin + p->block : p->count;
        p->fn(p->user, begin, end, thread);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
        s = atomic_load_explicit(&p->state, memory_order_acquire);
    }
}

typedef struct pool_worker_t {
    pool_t *pool;
    int thread;
} pool_worker_t;

static void *worker_main(void *arg)
{
    pool_worker_t *w = arg;
    pool_t *p = w->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        for (int i = 0; gen == seen && i < POOL_WORKER_POLLS; i++) {
            sched_yield();
            gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (gen == seen) {
            pthread_mutex_lock(&p->mutex);
            while ((gen = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen && !atomic_load(&p->quit))
                pthread_cond_wait(&p->wake, &p->mutex);
            pthread_mutex_unlock(&p->mutex);
        }
        if (atomic_load(&p->quit))
            return NULL;
        seen = gen;
        run_blocks(p, atomic_load_explicit(&p->state, memory_order_acquire) >> (2 * POOL_FIELD_BITS), w->thread);
    }
}

pool_t *pool_create(int threads)
{
    if (threads <= 0) {
        cpu_set_t set;
        threads = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    if (threads > POOL_MAX_THREADS)
        threads = POOL_MAX_THREADS;
    pool_t *p = calloc(1, sizeof *p);
    if (!p) {
        log_error("pool: out of memory");
        return NULL;
    }
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->threads = 1;
    p->arg = calloc(POOL_MAX_THREADS, sizeof *p->arg);
    if (!p->arg) {
        log_error("pool: out of memory");
        pool_destroy(p);
        return NULL;
    }
    for (int i = 0; i < threads - 1; i++) {
        p->arg[i].pool = p;
        p->arg[i].thread = i + 1;
        if (pthread_create(&p->worker[i], NULL, worker_main, &p->arg[i]) != 0) {
            log_error("pool: cannot start worker thread %d of %d", i + 1, threads - 1);
            pool_destroy(p);
            return NULL;
        }
        p->threads++;
    }
    return p;
}

void pool_destroy(pool_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mutex);
    atomic_store(&p->quit, true);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 0; i < p->threads - 1; i++)
        pthread_join(p->worker[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    free(p->arg);
    free(p);
}

int pool_threads(const pool_t *p) { return p ? p->threads : 1; }

void pool_for(pool_t *p, int count, int block, pool_fn_t fn, void *user)
{
    if (count <= 0)
        return;
    if (block < 1)
        block = 1;
    int blocks = (count + block - 1) / block;
    if (!p || p->threads == 1 || blocks == 1 || blocks > (int)POOL_FIELD_MASK) {
        for (int b = 0; b < blocks; b++) {
            int begin = b * block;
            fn(user, begin, begin + block < count ? begin + block : count, 0);
        }
        return;
    }
    p->fn = fn;
    p->user = user;
    p->count = count;
    p->block = block;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    uint64_t loop = ((atomic_load_explicit(&p->state, memory_order_relaxed) >> (2 * POOL_FIELD_BITS)) + 1) & 0xFFFFu;
    atomic_store_explicit(&p->state, loop << (2 * POOL_FIELD_BITS) | (uint64_t)blocks << POOL_FIELD_BITS,
                          memory_order_release);
    pthread_mutex_lock(&p->mutex);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    run_blocks(p, loop, 0);
    while (atomic_load_explicit(&p->done, memory_order_acquire) < blocks)
        sched_yield();
}
