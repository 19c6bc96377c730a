#include "anim/ik.h"

#include "anim/pose.h"
#include "core/mathx.h"

#include <math.h>

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void sub3(const float a[3], const float b[3], float out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] - b[i];
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static float len3(const float a[3]) { return sqrtf(dot3(a, a)); }

static bool normalize3(float a[3])
{
    float l = len3(a);
    if (!(l > 1e-12f))
        return false;
    for (int i = 0; i < 3; i++)
        a[i] /= l;
    return true;
}

void ik_quat_between(const float a_in[3], const float b_in[3], float out[4])
{
    float a[3] = {a_in[0], a_in[1], a_in[2]}, b[3] = {b_in[0], b_in[1], b_in[2]};
    if (!normalize3(a) || !normalize3(b)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float d = dot3(a, b);
    if (d < -0.999999f) {
        /* Opposite vectors: any axis perpendicular to a works; pick the most
         * stable one. */
        float axis[3];
        float ref[3] = {fabsf(a[0]) < 0.9f ? 1.0f : 0.0f, fabsf(a[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
        cross3(a, ref, axis);
        normalize3(axis);
        out[0] = axis[0];
        out[1] = axis[1];
        out[2] = axis[2];
        out[3] = 0.0f;
        return;
    }
    /* q = (a x b, 1 + a.b), normalised: the half-angle form avoids acos. */
    float c[3];
    cross3(a, b, c);
    float q[4] = {c[0], c[1], c[2], 1.0f + d};
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        out[i] = q[i] / l;
}

bool ik_two_joint_run(ik_two_joint_job_t *job)
{
    float upper[3], lower[3], to_target[3];
    sub3(job->mid, job->root, upper);
    sub3(job->end, job->mid, lower);
    sub3(job->target, job->root, to_target);
    float l1 = len3(upper), l2 = len3(lower), d = len3(to_target);
    if (!(l1 > 1e-6f) || !(l2 > 1e-6f) || !isfinite(d))
        return false;

    float max_ext = job->max_extension > 0.0f && job->max_extension <= 1.0f ? job->max_extension : 0.999f;
    float reach_max = (l1 + l2) * max_ext;
    float reach_min = fabsf(l1 - l2) + 1e-3f * (l1 + l2);
    job->reached = d <= reach_max && d >= reach_min;
    float dc = clampf(d, reach_min, reach_max);

    /* Direction to the target; if the target sits on the root, keep the
     * current end direction. */
    float dir[3] = {to_target[0], to_target[1], to_target[2]};
    if (!normalize3(dir)) {
        sub3(job->end, job->root, dir);
        if (!normalize3(dir))
            return false;
    }
    /* Bend plane: the pole with its component along dir removed. If the pole
     * is parallel to dir, fall back to the current knee direction. */
    float perp[3] = {job->pole[0], job->pole[1], job->pole[2]};
    float along = dot3(perp, dir);
    for (int i = 0; i < 3; i++)
        perp[i] -= along * dir[i];
    if (!normalize3(perp)) {
        float knee[3];
        sub3(job->mid, job->root, knee);
        float k = dot3(knee, dir);
        for (int i = 0; i < 3; i++)
            perp[i] = knee[i] - k * dir[i];
        if (!normalize3(perp))
            return false;
    }

    /* Law of cosines: angle at the root between dir and the upper bone. */
    float cos_a = clampf((l1 * l1 + dc * dc - l2 * l2) / (2.0f * l1 * dc), -1.0f, 1.0f);
    float sin_a = sqrtf(1.0f - cos_a * cos_a);
    for (int i = 0; i < 3; i++) {
        job->new_mid[i] = job->root[i] + l1 * (cos_a * dir[i] + sin_a * perp[i]);
        job->new_end[i] = job->root[i] + dc * dir[i];
    }

    float new_upper[3], new_lower[3], rotated_lower[3];
    sub3(job->new_mid, job->root, new_upper);
    sub3(job->new_end, job->new_mid, new_lower);
    ik_quat_between(upper, new_upper, job->d_upper);
    pose_quat_rotate(job->d_upper, lower, rotated_lower);
    ik_quat_between(rotated_lower, new_lower, job->d_lower);
    return true;
}

void ik_align_to_normal(const float up[3], const float n[3], float weight, float out[4])
{
    float full[4];
    ik_quat_between(up, n, full);
    /* Scale the rotation angle by weight (nlerp towards identity is enough
     * for the small tilts of walkable ground). */
    float w = clampf(weight, 0.0f, 1.0f);
    float q[4] = {full[0] * w, full[1] * w, full[2] * w, full[3] * w + (1.0f - w)};
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        out[i] = q[i] / l;
}
