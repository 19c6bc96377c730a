/* Tests for pose: FK of the rest pose reproduces skel_rest_positions, the
 * palette is the identity at the bind pose, and for random poses the matrix
 * and dual-quaternion palettes move bind-space points to the same place. */
#include "anim/pose.h"
#include "anim/skel.h"
#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t g_rng = 12345u;

/* xorshift32: deterministic across platforms. */
static float rnd(float lo, float hi)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return lo + (hi - lo) * (float)(g_rng >> 8) * (1.0f / 16777216.0f);
}

static void random_quat(float q[4])
{
    float axis[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-6f;
    for (int i = 0; i < 3; i++)
        axis[i] /= len;
    pose_quat_axis_angle(axis, rnd(-3.1f, 3.1f), q);
}

static void xform(const float m[12], const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

/* Applies dual quaternion DQ (unit) to P. */
static void dq_xform(const float dq[8], const float p[3], float out[3])
{
    const float *r = dq, *d = dq + 4;
    float rp[3];
    pose_quat_rotate(r, p, rp);
    out[0] = rp[0] + 2.0f * (r[3] * d[0] - d[3] * r[0] + r[1] * d[2] - r[2] * d[1]);
    out[1] = rp[1] + 2.0f * (r[3] * d[1] - d[3] * r[1] + r[2] * d[0] - r[0] * d[2]);
    out[2] = rp[2] + 2.0f * (r[3] * d[2] - d[3] * r[2] + r[0] * d[1] - r[1] * d[0]);
}

static float dist3(const float a[3], const float b[3])
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static skel_t g_skel;
static pose_bind_t g_bind;

static void test_rest_fk(void)
{
    static pose_t rest;
    float model[SKEL_MAX_JOINTS][12], rot[SKEL_MAX_JOINTS][4], expect[SKEL_MAX_JOINTS][3];
    pose_rest(&g_skel, &rest);
    pose_model_job_t job = {
        .skel = &g_skel, .local = &rest, .capacity = SKEL_MAX_JOINTS, .model_mat = model, .model_rot = rot};
    CHECK(pose_model_run(&job));
    skel_rest_positions(&g_skel, expect);
    for (int j = 0; j < g_skel.joint_count; j++) {
        const float t[3] = {model[j][3], model[j][7], model[j][11]};
        CHECK(dist3(t, expect[j]) < 1e-4f);
        CHECK(model[j][0] == 1.0f && model[j][5] == 1.0f && model[j][10] == 1.0f);
        CHECK(rot[j][3] == 1.0f);
    }

    float pal[SKEL_MAX_JOINTS][12], dq[SKEL_MAX_JOINTS][8];
    pose_palette_job_t pj = {.bind = &g_bind,
                             .joint_count = g_skel.joint_count,
                             .model_mat = (const float(*)[12])model,
                             .model_rot = (const float(*)[4])rot,
                             .palette = pal,
                             .dq = dq};
    CHECK(pose_palette_run(&pj));
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    static const float dq_identity[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    for (int j = 0; j < g_skel.joint_count; j++) {
        for (int e = 0; e < 12; e++)
            CHECK(fabsf(pal[j][e] - identity[e]) <= 1e-6f);
        for (int e = 0; e < 8; e++)
            CHECK(fabsf(dq[j][e] - dq_identity[e]) <= 1e-6f);
    }
}

static void test_random_poses(void)
{
    static pose_t pose;
    float rest_pos[SKEL_MAX_JOINTS][3];
    skel_rest_positions(&g_skel, rest_pos);
    for (int iter = 0; iter < 50; iter++) {
        pose_rest(&g_skel, &pose);
        for (int j = 0; j < g_skel.joint_count; j++)
            random_quat(pose.rot[j]);
        pose.trans[0][0] = rnd(-500, 500);
        pose.trans[0][1] = rnd(0, 100);
        pose.trans[0][2] = rnd(-500, 500);
        float model[SKEL_MAX_JOINTS][12], rot[SKEL_MAX_JOINTS][4];
        float pal[SKEL_MAX_JOINTS][12], dq[SKEL_MAX_JOINTS][8];
        pose_model_job_t job = {
            .skel = &g_skel, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model, .model_rot = rot};
        CHECK(pose_model_run(&job));
        pose_palette_job_t pj = {.bind = &g_bind,
                                 .joint_count = g_skel.joint_count,
                                 .model_mat = (const float(*)[12])model,
                                 .model_rot = (const float(*)[4])rot,
                                 .palette = pal,
                                 .dq = dq};
        CHECK(pose_palette_run(&pj));
        for (int j = 0; j < g_skel.joint_count; j++) {
            /* The palette moves the joint's bind position onto its posed position. */
            float moved[3], by_dq[3];
            const float posed[3] = {model[j][3], model[j][7], model[j][11]};
            xform(pal[j], rest_pos[j], moved);
            CHECK(dist3(moved, posed) < 1e-3f);
            /* Matrix and dual quaternion agree on an arbitrary point. */
            const float p[3] = {rnd(-100, 100), rnd(-100, 100), rnd(-100, 100)};
            xform(pal[j], p, moved);
            dq_xform(dq[j], p, by_dq);
            CHECK(dist3(moved, by_dq) < 2e-3f);
            /* Child position = parent position + parent rotation * offset. */
            int par = g_skel.joint_parent[j];
            if (par >= 0) {
                float d[3];
                pose_quat_rotate(rot[par], pose.trans[j], d);
                const float expect[3] = {model[par][3] + d[0], model[par][7] + d[1], model[par][11] + d[2]};
                CHECK(dist3(posed, expect) < 1e-3f);
            }
        }
    }
}

static void test_validation(void)
{
    static pose_t pose;
    float model[SKEL_MAX_JOINTS][12];
    pose_rest(&g_skel, &pose);
    pose_model_job_t job = {.skel = &g_skel, .local = &pose, .capacity = 3, .model_mat = model};
    CHECK(!pose_model_run(&job));
    job.capacity = SKEL_MAX_JOINTS;
    CHECK(pose_model_run(&job));
    pose.rot[4][0] = NAN;
    CHECK(!pose_model_run(&job));
    pose_rest(&g_skel, &pose);
    pose.rot[2][3] = 0.0f;
    CHECK(!pose_model_run(&job));
    pose_rest(&g_skel, &pose);
    pose.joint_count = 3;
    CHECK(!pose_model_run(&job));

    float pal[SKEL_MAX_JOINTS][12], dq[SKEL_MAX_JOINTS][8];
    pose_palette_job_t pj = {.bind = &g_bind,
                             .joint_count = g_skel.joint_count,
                             .model_mat = (const float(*)[12])model,
                             .palette = pal,
                             .dq = dq};
    /* Dual quaternions without model rotations. */
    CHECK(!pose_palette_run(&pj));
    pj.dq = NULL;
    CHECK(pose_palette_run(&pj));
    pj.joint_count = g_skel.joint_count + 1;
    CHECK(!pose_palette_run(&pj));
}

int main(void)
{
    log_set_level(LOG_QUIET);
    if (!skel_load(&g_skel, "assets/skeleton/cmu21.skel")) {
        fprintf(stderr, "test_pose: cannot load the skeleton\n");
        return 1;
    }
    pose_bind_from_rest(&g_skel, &g_bind);
    CHECK(g_bind.joint_count == g_skel.joint_count);
    test_rest_fk();
    test_random_poses();
    test_validation();
    return check_summary();
}
