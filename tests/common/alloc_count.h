/* alloc_count: counts the calls of malloc, calloc and realloc made by
 * everything a test links, for the "no allocation per step" checks. A test
 * links strider_test_alloc (tests/CMakeLists.txt), which wraps the three
 * with the linker's --wrap and counts into alloc_count_calls.
 * Does NOT: count frees or bytes, or see allocations of code that is not
 * linked statically (Mesa's, the C library's own). */
#ifndef STRIDER_TESTS_ALLOC_COUNT_H
#define STRIDER_TESTS_ALLOC_COUNT_H

extern volatile long alloc_count_calls;

#endif
