/* check: the smallest test harness that does the job, shared by every C
 * test. CHECK() records a failure with file:line and the condition and goes
 * on; CHECKF() adds a printf-style message (the values that failed);
 * CHECK_NEAR() prints both sides and the tolerance. check_failed counts the
 * failures so far; check_summary() prints the closing line ctest users know
 * ("N passed, N failed") and returns the exit code, which is non-zero when a
 * check failed or when none ran. Each test program is one translation unit,
 * so the counters are static here. */
#ifndef STRIDER_TESTS_CHECK_H
#define STRIDER_TESTS_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

static int check_passed, check_failed;

/* Counts one check; on failure prints "file:line: check failed: COND" and
 * ends the line, or leaves it open for CHECKF's message when MORE is set. */
static inline bool check_record_(bool ok, const char *file, int line, const char *cond, bool more)
{
    if (ok) {
        check_passed++;
        return true;
    }
    check_failed++;
    fprintf(stderr, "%s:%d: check failed: %s%s", file, line, cond, more ? ": " : "\n");
    return false;
}

#define CHECK(cond) ((void)check_record_((cond) ? true : false, __FILE__, __LINE__, #cond, false))

#define CHECKF(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!check_record_((cond) ? true : false, __FILE__, __LINE__, #cond, true)) {                                  \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double check_a_ = (double)(a), check_b_ = (double)(b);                                                         \
        if (!check_record_(fabs(check_a_ - check_b_) <= (double)(tol), __FILE__, __LINE__, #a " ~ " #b, true))         \
            fprintf(stderr, "%s = %.9g, expected %s = %.9g (tolerance %g)\n", #a, check_a_, #b, check_b_,              \
                    (double)(tol));                                                                                    \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 && check_passed > 0 ? 0 : 1;
}

#endif
