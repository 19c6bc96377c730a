#include "anim/pose.h"

#include "core/log.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* A local rotation whose squared norm is below this is not a rotation. */
#define POSE_QUAT_MIN_NORM2 1.0e-12f

void pose_quat_mul(const float a[4], const float b[4], float out[4])
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

void pose_quat_axis_angle(const float axis[3], float angle_rad, float out[4])
{
    float s = sinf(0.5f * angle_rad);
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cosf(0.5f * angle_rad);
}

void pose_quat_rotate(const float q[4], const float v[3], float out[3])
{
    /* v' = v + 2 u x (u x v + w v), u = q.xyz */
    float cx = q[1] * v[2] - q[2] * v[1] + q[3] * v[0];
    float cy = q[2] * v[0] - q[0] * v[2] + q[3] * v[1];
    float cz = q[0] * v[1] - q[1] * v[0] + q[3] * v[2];
    float x = v[0] + 2.0f * (q[1] * cz - q[2] * cy);
    float y = v[1] + 2.0f * (q[2] * cx - q[0] * cz);
    float z = v[2] + 2.0f * (q[0] * cy - q[1] * cx);
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void pose_mat_from_rt(const float q[4], const float t[3], float m[POSE_MAT_FLOATS])
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    m[0] = 1.0f - 2.0f * (y * y + z * z);
    m[1] = 2.0f * (x * y - z * w);
    m[2] = 2.0f * (x * z + y * w);
    m[3] = t[0];
    m[4] = 2.0f * (x * y + z * w);
    m[5] = 1.0f - 2.0f * (x * x + z * z);
    m[6] = 2.0f * (y * z - x * w);
    m[7] = t[1];
    m[8] = 2.0f * (x * z - y * w);
    m[9] = 2.0f * (y * z + x * w);
    m[10] = 1.0f - 2.0f * (x * x + y * y);
    m[11] = t[2];
}

void pose_dq_from_rt(const float q[4], const float t[3], float dq[POSE_DQ_FLOATS])
{
    /* dual = 0.5 * (t, 0) * q */
    const float tq[4] = {t[0], t[1], t[2], 0.0f};
    float d[4];
    pose_quat_mul(tq, q, d);
    for (int i = 0; i < 4; i++) {
        dq[i] = q[i];
        dq[4 + i] = 0.5f * d[i];
    }
}

/* out = a * b for affine 3x4 matrices (out may not alias). */
static void pose_mat_mul(const float a[POSE_MAT_FLOATS], const float b[POSE_MAT_FLOATS], float out[POSE_MAT_FLOATS])
{
    for (int r = 0; r < 3; r++) {
        const float *ar = a + 4 * r;
        for (int c = 0; c < 4; c++)
            out[4 * r + c] = ar[0] * b[c] + ar[1] * b[4 + c] + ar[2] * b[8 + c];
        out[4 * r + 3] += ar[3];
    }
}

/* General affine inverse (cofactors); the bind pose may carry any linear part. */
static void pose_mat_inverse(const float m[POSE_MAT_FLOATS], float out[POSE_MAT_FLOATS])
{
    float a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
    float c00 = e * i - f * h, c01 = c * h - b * i, c02 = b * f - c * e;
    float c10 = f * g - d * i, c11 = a * i - c * g, c12 = c * d - a * f;
    float c20 = d * h - e * g, c21 = b * g - a * h, c22 = a * e - b * d;
    float det = a * c00 + b * c10 + c * c20;
    float inv = 1.0f / det;
    const float r[9] = {c00 * inv, c01 * inv, c02 * inv, c10 * inv, c11 * inv,
                        c12 * inv, c20 * inv, c21 * inv, c22 * inv};
    for (int row = 0; row < 3; row++) {
        out[4 * row + 0] = r[3 * row + 0];
        out[4 * row + 1] = r[3 * row + 1];
        out[4 * row + 2] = r[3 * row + 2];
        out[4 * row + 3] = -(r[3 * row + 0] * m[3] + r[3 * row + 1] * m[7] + r[3 * row + 2] * m[11]);
    }
}

void pose_rest(const skel_t *s, pose_t *out)
{
    out->joint_count = s->joint_count;
    for (int j = 0; j < s->joint_count; j++) {
        out->rot[j][0] = out->rot[j][1] = out->rot[j][2] = 0.0f;
        out->rot[j][3] = 1.0f;
        memcpy(out->trans[j], s->joint_offset[j], sizeof out->trans[j]);
    }
}

void pose_bind_from_rest(const skel_t *s, pose_bind_t *out)
{
    float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float rot[SKEL_MAX_JOINTS][4];
    pose_t rest;
    pose_rest(s, &rest);
    pose_model_job_t job = {
        .skel = s, .local = &rest, .capacity = SKEL_MAX_JOINTS, .model_mat = model, .model_rot = rot};
    out->joint_count = s->joint_count;
    /* The rest pose always validates: it comes from a loaded skeleton. */
    if (!pose_model_run(&job)) {
        out->joint_count = 0;
        return;
    }
    for (int j = 0; j < s->joint_count; j++) {
        pose_mat_inverse(model[j], out->inv_mat[j]);
        /* Conjugate = inverse for a unit quaternion. */
        out->inv_rot[j][0] = -rot[j][0];
        out->inv_rot[j][1] = -rot[j][1];
        out->inv_rot[j][2] = -rot[j][2];
        out->inv_rot[j][3] = rot[j][3];
    }
}

static bool pose_finite(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

bool pose_model_validate(const pose_model_job_t *job)
{
    if (!job || !job->skel || !job->local || !job->model_mat) {
        log_error("pose: model job: missing skeleton, pose or output span");
        return false;
    }
    int n = job->skel->joint_count;
    if (n < 1 || n > SKEL_MAX_JOINTS || job->local->joint_count != n) {
        log_error("pose: model job: pose has %d joints, skeleton %d", job->local->joint_count, n);
        return false;
    }
    if (job->capacity < n) {
        log_error("pose: model job: output holds %d joints, need %d", job->capacity, n);
        return false;
    }
    for (int j = 0; j < n; j++) {
        int p = job->skel->joint_parent[j];
        if (p >= j || (p < 0 && j != 0) || (j == 0 && p != -1)) {
            log_error("pose: model job: joint %d has parent %d (parents must come first)", j, p);
            return false;
        }
        const float *q = job->local->rot[j];
        if (!pose_finite(q, 4) || !pose_finite(job->local->trans[j], 3) ||
            q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < POSE_QUAT_MIN_NORM2) {
            log_error("pose: model job: joint %d ('%s') has a non-finite or zero transform", j,
                      job->skel->joint_name[j]);
            return false;
        }
    }
    return true;
}

bool pose_model_run(const pose_model_job_t *job)
{
    if (!pose_model_validate(job))
        return false;
    const skel_t *s = job->skel;
    /* Model rotations are needed for every parent even when not requested. */
    float rot[SKEL_MAX_JOINTS][4];
    float pos[SKEL_MAX_JOINTS][3];
    for (int j = 0; j < s->joint_count; j++) {
        const float *lq = job->local->rot[j];
        const float *lt = job->local->trans[j];
        /* Renormalise: network and interpolated rotations drift off unit length. */
        float inv = 1.0f / sqrtf(lq[0] * lq[0] + lq[1] * lq[1] + lq[2] * lq[2] + lq[3] * lq[3]);
        const float q[4] = {lq[0] * inv, lq[1] * inv, lq[2] * inv, lq[3] * inv};
        int p = s->joint_parent[j];
        if (p < 0) {
            memcpy(rot[j], q, sizeof q);
            memcpy(pos[j], lt, sizeof pos[j]);
        } else {
            float d[3];
            pose_quat_mul(rot[p], q, rot[j]);
            pose_quat_rotate(rot[p], lt, d);
            pos[j][0] = pos[p][0] + d[0];
            pos[j][1] = pos[p][1] + d[1];
            pos[j][2] = pos[p][2] + d[2];
        }
        pose_mat_from_rt(rot[j], pos[j], job->model_mat[j]);
        if (job->model_rot)
            memcpy(job->model_rot[j], rot[j], sizeof rot[j]);
    }
    return true;
}

bool pose_palette_validate(const pose_palette_job_t *job)
{
    if (!job || !job->bind || !job->model_mat || (!job->palette && !job->dq)) {
        log_error("pose: palette job: missing bind pose, model matrices or output span");
        return false;
    }
    if (job->joint_count < 1 || job->joint_count != job->bind->joint_count) {
        log_error("pose: palette job: %d joints, bind pose has %d", job->joint_count, job->bind->joint_count);
        return false;
    }
    if (job->dq && !job->model_rot) {
        log_error("pose: palette job: dual quaternions need the model rotations");
        return false;
    }
    return true;
}

bool pose_palette_run(const pose_palette_job_t *job)
{
    if (!pose_palette_validate(job))
        return false;
    for (int j = 0; j < job->joint_count; j++) {
        float m[POSE_MAT_FLOATS];
        pose_mat_mul(job->model_mat[j], job->bind->inv_mat[j], m);
        if (job->palette)
            memcpy(job->palette[j], m, sizeof m);
        if (job->dq) {
            /* Same rigid motion as M: rotation model * bind^-1, M's translation. */
            float q[4];
            const float t[3] = {m[3], m[7], m[11]};
            pose_quat_mul(job->model_rot[j], job->bind->inv_rot[j], q);
            pose_dq_from_rt(q, t, job->dq[j]);
        }
    }
    return true;
}
