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
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double check_a_ = (double)(a), check_b_ = (double)(b);                                     \
        if (fabs(check_a_ - check_b_) <= (double)(tol)) {                                          \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g (tolerance %g)\n", __FILE__,     \
                    __LINE__, #a, check_a_, #b, check_b_, (double)(tol));                          \
        }                                                                                          \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 && check_passed > 0 ? 0 : 1;
}

#endif
