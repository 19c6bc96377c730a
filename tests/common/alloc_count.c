/* alloc_count: the wrapped allocators (see alloc_count.h). */
#include "alloc_count.h"

#include <stddef.h>

volatile long alloc_count_calls;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t s);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    alloc_count_calls++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t s)
{
    alloc_count_calls++;
    return __real_calloc(n, s);
}

void *__wrap_realloc(void *p, size_t n)
{
    alloc_count_calls++;
    return __real_realloc(p, n);
}
