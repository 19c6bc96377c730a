/* core/pool: every item of a loop runs exactly once, with the blocks the
 * block size makes, on 1, 2, 3 and 8 threads and on no pool; loops come
 * back to back (a late worker must not touch the next one); a count of 0
 * calls nothing. */
#include "core/pool.h"

#include "check.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { ITEMS = 1000, BLOCK = 7, LOOPS = 2000 };

typedef struct visit_t {
    atomic_int hits[ITEMS];
    atomic_int bad_block; /* a call whose bounds are not one block's, or thread index out of range */
    int count, threads;
} visit_t;

static void visit(void *user, int begin, int end, int thread)
{
    visit_t *v = user;
    if (thread < 0 || thread >= v->threads)
        atomic_fetch_add(&v->bad_block, 1);
    if (begin % BLOCK != 0 || end <= begin || end - begin > BLOCK || (end - begin < BLOCK && end != v->count))
        atomic_fetch_add(&v->bad_block, 1);
    for (int i = begin; i < end; i++)
        atomic_fetch_add(&v->hits[i], 1);
}

static void never(void *user, int begin, int end, int thread)
{
    (void)begin;
    (void)end;
    (void)thread;
    *(int *)user += 1;
}

static void run_loops(pool_t *p)
{
    static visit_t v;
    for (int loop = 0; loop < LOOPS; loop++) {
        /* Counts vary so a stale block of the last loop would show. */
        int count = ITEMS - (loop % 13) * 11;
        for (int i = 0; i < ITEMS; i++)
            atomic_store(&v.hits[i], 0);
        atomic_store(&v.bad_block, 0);
        v.count = count;
        v.threads = pool_threads(p);
        pool_for(p, count, BLOCK, visit, &v);
        int wrong = 0;
        for (int i = 0; i < ITEMS; i++)
            wrong += atomic_load(&v.hits[i]) != (i < count ? 1 : 0);
        if (wrong || atomic_load(&v.bad_block)) {
            CHECK(wrong == 0);
            CHECK(atomic_load(&v.bad_block) == 0);
            return;
        }
    }
    int calls = 0;
    pool_for(p, 0, BLOCK, never, &calls);
    CHECK(calls == 0);
}

int main(void)
{
    run_loops(NULL);
    const int threads[] = {1, 2, 3, 8};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        pool_t *p = pool_create(threads[t]);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK(pool_threads(p) == threads[t]);
        run_loops(p);
        pool_destroy(p);
    }
    pool_t *all = pool_create(0);
    CHECK(all != NULL && pool_threads(all) >= 1);
    pool_destroy(all);
    return check_summary();
}
