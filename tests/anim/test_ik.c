/* Two-joint IK: reaches reachable targets exactly, keeps bone lengths,
 * bends towards the pole, clamps unreachable targets, and the delta
 * rotations reproduce the solved positions. */
#include "anim/ik.h"
#include "anim/pose.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static float dist(const float a[3], const float b[3])
{
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static uint32_t rng = 12345u;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

/* A leg like the skeleton's: thigh 36.8 cm, shin 45.1 cm, hanging down. */
static void make_leg(ik_two_joint_job_t *j)
{
    *j = (ik_two_joint_job_t){.root = {10, 90, 0},
                              .mid = {10, 53.2f, 0.7f},
                              .end = {10, 8.1f, -4.4f},
                              .pole = {0, 0, 1},
                              .max_extension = 0.999f};
}

int main(void)
{
    ik_two_joint_job_t j;
    float l1, l2;
    for (int trial = 0; trial < 2000; trial++) {
        make_leg(&j);
        l1 = dist(j.root, j.mid);
        l2 = dist(j.mid, j.end);
        float r = frand(0.2f, 1.2f) * (l1 + l2);
        float th = frand(0.0f, 6.2831853f), ph = frand(-1.4f, 1.4f);
        j.target[0] = j.root[0] + r * cosf(ph) * sinf(th);
        j.target[1] = j.root[1] - r * fabsf(cosf(ph) * cosf(th)) - 1.0f;
        j.target[2] = j.root[2] + r * sinf(ph);
        j.pole[0] = frand(-1, 1);
        j.pole[1] = frand(-1, 1);
        j.pole[2] = frand(-1, 1);
        if (!ik_two_joint_run(&j)) {
            CHECK(0);
            continue;
        }
        /* Bone lengths are preserved. */
        CHECK(fabsf(dist(j.root, j.new_mid) - l1) < 1e-3f);
        CHECK(fabsf(dist(j.new_mid, j.new_end) - l2) < 1e-3f);
        float d = dist(j.root, j.target);
        if (j.reached)
            CHECK(dist(j.new_end, j.target) < 1e-3f);
        else
            CHECK(d > 0.999f * (l1 + l2) - 1e-3f || d < fabsf(l1 - l2) + 0.1f);
        /* The delta rotations move the original bones onto the solution. */
        float upper[3] = {j.mid[0] - j.root[0], j.mid[1] - j.root[1], j.mid[2] - j.root[2]};
        float lower[3] = {j.end[0] - j.mid[0], j.end[1] - j.mid[1], j.end[2] - j.mid[2]};
        float u2[3], l2v[3], l3v[3];
        pose_quat_rotate(j.d_upper, upper, u2);
        pose_quat_rotate(j.d_upper, lower, l2v);
        pose_quat_rotate(j.d_lower, l2v, l3v);
        float mid2[3] = {j.root[0] + u2[0], j.root[1] + u2[1], j.root[2] + u2[2]};
        float end2[3] = {mid2[0] + l3v[0], mid2[1] + l3v[1], mid2[2] + l3v[2]};
        CHECK(dist(mid2, j.new_mid) < 1e-3f);
        CHECK(dist(end2, j.new_end) < 1e-3f);
    }

    /* The knee bends towards the pole (forward, +Z) when the foot is raised. */
    make_leg(&j);
    j.target[0] = 10;
    j.target[1] = 30;
    j.target[2] = 0;
    CHECK(ik_two_joint_run(&j));
    CHECK(j.new_mid[2] > 10.0f);
    j.pole[2] = -1;
    CHECK(ik_two_joint_run(&j));
    CHECK(j.new_mid[2] < -10.0f);

    /* Far out of reach: clamped, knee not fully straight, pointing at target. */
    make_leg(&j);
    j.target[0] = 10;
    j.target[1] = -500;
    j.target[2] = 0;
    CHECK(ik_two_joint_run(&j));
    CHECK(!j.reached);
    CHECK(fabsf(j.new_end[0] - 10.0f) < 1e-3f && fabsf(j.new_end[2]) < 1e-3f);

    /* Degenerate input fails cleanly. */
    make_leg(&j);
    j.mid[0] = j.root[0];
    j.mid[1] = j.root[1];
    j.mid[2] = j.root[2];
    CHECK(!ik_two_joint_run(&j));

    /* Alignment: full weight maps up onto the normal, zero weight is identity. */
    float up[3] = {0, 1, 0}, n[3] = {0.3f, 0.9f, 0.1f}, q[4], r[3];
    float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    ik_align_to_normal(up, n, 1.0f, q);
    pose_quat_rotate(q, up, r);
    CHECK(fabsf(r[0] - n[0] / nl) < 1e-5f && fabsf(r[1] - n[1] / nl) < 1e-5f);
    ik_align_to_normal(up, n, 0.0f, q);
    CHECK(fabsf(q[3] - 1.0f) < 1e-6f);
    /* Opposite vectors give a 180 degree turn, not NaN. */
    float down[3] = {0, -1, 0};
    ik_quat_between(up, down, q);
    pose_quat_rotate(q, up, r);
    CHECK(fabsf(r[1] + 1.0f) < 1e-5f && isfinite(r[0]));

    return check_summary();
}
