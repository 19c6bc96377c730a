#include "anim/ik.h"

#include "anim/pose.h"
#include "core/mathx.h"

#include <cglm/cglm.h>
#include <math.h>

/* cglm's glm_vec3_normalize zeroes a zero vector; the solve needs to know,
 * so this one leaves A as it is and says false. */
static bool normalize3(vec3 a)
{
    float l = glm_vec3_norm(a);
    if (!(l > 1e-12f))
        return false;
    glm_vec3_divs(a, l, a);
    return true;
}

/* V less its component along the unit vector DIR. */
static void remove_along(vec3 v, vec3 dir) { glm_vec3_muladds(dir, -glm_vec3_dot(v, dir), v); }

void ik_quat_between(const float a_in[3], const float b_in[3], float out[4])
{
    vec3 a = {a_in[0], a_in[1], a_in[2]}, b = {b_in[0], b_in[1], b_in[2]};
    if (!normalize3(a) || !normalize3(b)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float d = glm_vec3_dot(a, b);
    if (d < -0.999999f) {
        /* Opposite vectors: any axis perpendicular to a works; pick the most
         * stable one. */
        vec3 axis;
        vec3 ref = {fabsf(a[0]) < 0.9f ? 1.0f : 0.0f, fabsf(a[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
        glm_vec3_cross(a, ref, axis);
        normalize3(axis);
        out[0] = axis[0];
        out[1] = axis[1];
        out[2] = axis[2];
        out[3] = 0.0f;
        return;
    }
    /* q = (a x b, 1 + a.b), normalised: the half-angle form avoids acos.
     * (OUT need not be 16-byte aligned, which cglm's versor loads require:
     * the quaternion is built in a versor and copied out.) */
    versor q;
    glm_vec3_cross(a, b, q);
    q[3] = 1.0f + d;
    glm_quat_normalize(q);
    glm_vec4_ucopy(q, out);
}

bool ik_two_joint_run(ik_two_joint_job_t *job)
{
    vec3 upper, lower, to_target;
    glm_vec3_sub(job->mid, job->root, upper);
    glm_vec3_sub(job->end, job->mid, lower);
    glm_vec3_sub(job->target, job->root, to_target);
    float l1 = glm_vec3_norm(upper), l2 = glm_vec3_norm(lower), d = glm_vec3_norm(to_target);
    if (!(l1 > 1e-6f) || !(l2 > 1e-6f) || !isfinite(d))
        return false;

    float max_ext = job->max_extension > 0.0f && job->max_extension <= 1.0f ? job->max_extension : 0.999f;
    float reach_max = (l1 + l2) * max_ext;
    float reach_min = fabsf(l1 - l2) + 1e-3f * (l1 + l2);
    job->reached = d <= reach_max && d >= reach_min;
    float dc = clampf(d, reach_min, reach_max);

    /* Direction to the target; if the target sits on the root, keep the
     * current end direction. */
    vec3 dir;
    glm_vec3_copy(to_target, dir);
    if (!normalize3(dir)) {
        glm_vec3_sub(job->end, job->root, dir);
        if (!normalize3(dir))
            return false;
    }
    /* Bend plane: the pole with its component along dir removed. If the pole
     * is parallel to dir, fall back to the current knee direction. */
    vec3 perp;
    glm_vec3_copy(job->pole, perp);
    remove_along(perp, dir);
    if (!normalize3(perp)) {
        glm_vec3_copy(upper, perp);
        remove_along(perp, dir);
        if (!normalize3(perp))
            return false;
    }

    /* Law of cosines: angle at the root between dir and the upper bone.
     * new_mid = root + l1 (cos_a dir + sin_a perp); new_end = root + dc dir. */
    float cos_a = clampf((l1 * l1 + dc * dc - l2 * l2) / (2.0f * l1 * dc), -1.0f, 1.0f);
    float sin_a = sqrtf(1.0f - cos_a * cos_a);
    glm_vec3_copy(job->root, job->new_mid);
    glm_vec3_muladds(dir, l1 * cos_a, job->new_mid);
    glm_vec3_muladds(perp, l1 * sin_a, job->new_mid);
    glm_vec3_copy(job->root, job->new_end);
    glm_vec3_muladds(dir, dc, job->new_end);

    vec3 new_upper, new_lower, rotated_lower;
    glm_vec3_sub(job->new_mid, job->root, new_upper);
    glm_vec3_sub(job->new_end, job->new_mid, new_lower);
    ik_quat_between(upper, new_upper, job->d_upper);
    pose_quat_rotate(job->d_upper, lower, rotated_lower);
    ik_quat_between(rotated_lower, new_lower, job->d_lower);
    return true;
}

void ik_align_to_normal(const float up[3], const float n[3], float weight, float out[4])
{
    versor full, q;
    ik_quat_between(up, n, full);
    /* Scale the rotation angle by weight (nlerp towards identity is enough
     * for the small tilts of walkable ground; FULL's w >= 0, so no sign
     * flip). */
    versor id = GLM_QUAT_IDENTITY_INIT;
    glm_quat_nlerp(id, full, clampf(weight, 0.0f, 1.0f), q);
    glm_vec4_ucopy(q, out);
}
