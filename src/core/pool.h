/* pool: a persistent set of worker threads that run one parallel loop at a
 * time over fixed-size blocks of items.
 *
 * pool_for(p, count, block, fn, user) calls fn(user, begin, end, thread) for the
 * blocks [0, block), [block, 2 block), ... of [0, count), each exactly once,
 * on the caller and the workers, and returns when all are done. Blocks are
 * claimed from one atomic counter (a descheduled worker delays only the
 * block it holds). A block's bounds never depend on the thread count, so a
 * loop whose blocks touch disjoint data gives the same bytes on any number
 * of threads.
 * Call order: pool_create(threads) -> pool_for()... -> pool_destroy().
 * pool_for() is not reentrant: one loop at a time, from one thread.
 * Does NOT: allocate in pool_for(), order the blocks, or catch what FN
 * does wrong. Memory: pool_create() allocates the pool and starts
 * THREADS - 1 workers; a pool of 1 thread runs every block on the caller.
 */
#ifndef STRIDER_CORE_POOL_H
#define STRIDER_CORE_POOL_H

enum { POOL_MAX_THREADS = 64 };

typedef struct pool_t pool_t;
/* THREAD: 0 for the caller, 1..threads-1 for the workers: an index into
 * per-thread scratch (no two blocks run on one thread at once). */
typedef void (*pool_fn_t)(void *user, int begin, int end, int thread);

/* THREADS: 1..POOL_MAX_THREADS, or 0 for the CPUs this process may run
 * on. NULL + one logged line when a thread cannot be started. */
pool_t *pool_create(int threads);
void pool_destroy(pool_t *p);
int pool_threads(const pool_t *p);
/* P may be NULL: everything runs on the caller. BLOCK >= 1. */
void pool_for(pool_t *p, int count, int block, pool_fn_t fn, void *user);

#endif
