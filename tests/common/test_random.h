/* test_random: reproducible random inputs for tests. A test_rng_t is a 32-bit
 * linear congruential generator (Numerical Recipes' constants): enough for
 * test inputs, the same sequence on every machine, and seeded per test so a
 * failure replays exactly. test_random_pose() turns every joint of the rest
 * pose by a random angle about a random axis. */
#ifndef STRIDER_TESTS_TEST_RANDOM_H
#define STRIDER_TESTS_TEST_RANDOM_H

#include "anim/pose.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct test_rng_t {
    uint32_t state;
} test_rng_t;

/* Uniform in [0, 1), 24 bits. */
static inline float test_rand01(test_rng_t *r)
{
    r->state = r->state * 1664525u + 1013904223u;
    return (float)(r->state >> 8) / 16777216.0f;
}

/* The rest pose of S with every joint turned by up to MAX_RAD (either way)
 * about a random axis. */
static inline void test_random_pose(test_rng_t *r, const skel_t *s, float max_rad, pose_t *out)
{
    pose_rest(s, out);
    for (int j = 0; j < out->joint_count; j++) {
        float a[3] = {test_rand01(r) - 0.5f, test_rand01(r) - 0.5f, test_rand01(r) - 0.5f};
        float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (len < 1e-3f)
            continue;
        for (int k = 0; k < 3; k++)
            a[k] /= len;
        float q[4], rot[4];
        pose_quat_axis_angle(a, (test_rand01(r) * 2.0f - 1.0f) * max_rad, q);
        pose_quat_mul(out->rot[j], q, rot);
        memcpy(out->rot[j], rot, sizeof rot);
    }
}

#endif
