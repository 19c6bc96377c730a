/* ik: analytic two-joint inverse kinematics (thigh - shin - foot) with a
 * pole vector, and the foot-to-ground alignment the controller uses to plant
 * feet on slopes and steps.
 *
 * Call order: fill an ik_two_joint_job_t from model-space joint positions ->
 * ik_two_joint_run() -> apply the two world-space delta rotations to the
 * upper and lower joints' model rotations (upper first: new_upper =
 * d_upper * upper, new_lower = d_lower * d_upper * lower) and re-derive the
 * local rotations. ik_align_to_normal() gives the extra rotation that tilts a
 * foot onto the ground.
 * The solve is closed-form (law of cosines): no iterations, no allocation.
 * Targets out of reach are clamped just short of full extension, so the
 * knee never snaps straight; targets too close are pushed out to the
 * minimum reach. Does NOT: decide targets (that is the controller's
 * contact locking) or touch the pose hierarchy itself.
 */
#ifndef STRIDER_ANIM_IK_H
#define STRIDER_ANIM_IK_H

#include <stdbool.h>

typedef struct ik_two_joint_job_t {
    float root[3];   /* upper joint (hip/thigh) position, model space */
    float mid[3];    /* middle joint (knee) */
    float end[3];    /* end joint (ankle) */
    float target[3]; /* where the end joint should go */
    float pole[3];   /* direction the middle joint should bend towards (need not be unit) */
    /* Fraction of full extension the solve may use, e.g. 0.999. */
    float max_extension;
    /* out */
    float d_upper[4]; /* world-space delta rotation for the upper joint (x y z w) */
    float d_lower[4]; /* world-space delta rotation for the lower joint, after d_upper */
    float new_mid[3];
    float new_end[3];
    bool reached; /* false if the target had to be clamped */
} ik_two_joint_job_t;

bool ik_two_joint_run(ik_two_joint_job_t *job);

/* Shortest-arc rotation taking unit-or-not vector a onto b (x y z w). */
void ik_quat_between(const float a[3], const float b[3], float out[4]);

/* Rotation that tilts 'up' (the foot's current up axis) onto the ground
 * normal n, scaled by weight in [0, 1] (0 = identity). */
void ik_align_to_normal(const float up[3], const float n[3], float weight, float out[4]);

#endif
