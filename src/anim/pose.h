/* pose: local joint transforms of a skel_t, forward kinematics (local ->
 * model) and the skinning palettes (matrix and dual quaternion).
 *
 * Call order: once per character, pose_bind_from_rest(); per frame, fill a
 * pose_t (pose_rest(), a BVH frame, the network...) -> pose_model_run()
 * -> pose_palette_run() -> hand the palette to skin_ or the renderer.
 * Conventions: quaternions are (x, y, z, w) unit quaternions; matrices are
 * 3x4 row-major affine (12 floats: row r = R[r][0..2], t[r]), p' = M (p, 1);
 * dual quaternions are 8 floats (real x y z w, dual x y z w); lengths in cm.
 * The bind pose is the rest skeleton (T-pose): identity rotations, rest offsets.
 * Jobs: plain structs of inputs and caller-owned output spans; *_validate()
 * checks counts and pointers (one logged line on failure); *_run() validates
 * and then computes. Does NOT: allocate, read files, blend clips, or call GL.
 */
#ifndef STRIDER_ANIM_POSE_H
#define STRIDER_ANIM_POSE_H

#include "anim/skel.h"

#include <stdbool.h>

enum {
    POSE_MAT_FLOATS = 12, /* 3x4 row-major affine matrix */
    POSE_DQ_FLOATS = 8    /* dual quaternion: real xyzw, dual xyzw */
};

/* Local (parent-relative) transforms, one per skeleton joint. */
typedef struct pose_t {
    int joint_count;
    float rot[SKEL_MAX_JOINTS][4];   /* unit quaternion x y z w */
    float trans[SKEL_MAX_JOINTS][3]; /* translation from the parent joint, cm */
} pose_t;

/* Inverse bind (rest) transforms, computed once per skeleton. */
typedef struct pose_bind_t {
    int joint_count;
    float inv_mat[SKEL_MAX_JOINTS][POSE_MAT_FLOATS]; /* inverse of the bind model matrix */
    float inv_rot[SKEL_MAX_JOINTS][4];               /* inverse of the bind model rotation */
} pose_bind_t;

/* Local -> model space, one parents-first pass. */
typedef struct pose_model_job_t {
    const skel_t *skel;                  /* hierarchy (parents) */
    const pose_t *local;                 /* local->joint_count must equal skel->joint_count */
    int capacity;                        /* entries in the output spans, >= joint count */
    float (*model_mat)[POSE_MAT_FLOATS]; /* out: model-space matrices */
    float (*model_rot)[4];               /* out, optional (NULL): model-space rotations */
} pose_model_job_t;

/* palette[j] = model[j] x inverse(bind[j]); dq[j] is the same rigid motion. */
typedef struct pose_palette_job_t {
    const pose_bind_t *bind;
    int joint_count;                           /* entries in every span below */
    const float (*model_mat)[POSE_MAT_FLOATS]; /* from pose_model_run() */
    const float (*model_rot)[4];               /* needed only when dq is wanted */
    float (*palette)[POSE_MAT_FLOATS];         /* out, optional: skinning matrices */
    float (*dq)[POSE_DQ_FLOATS];               /* out, optional: skinning dual quaternions */
} pose_palette_job_t;

/* Rest pose of S: identity rotations, translations = rest offsets. */
void pose_rest(const skel_t *s, pose_t *out);
/* Inverse bind transforms of S's rest pose. */
void pose_bind_from_rest(const skel_t *s, pose_bind_t *out);

bool pose_model_validate(const pose_model_job_t *job);
bool pose_model_run(const pose_model_job_t *job);
bool pose_palette_validate(const pose_palette_job_t *job);
bool pose_palette_run(const pose_palette_job_t *job);

/* Small quaternion helpers shared by the loaders and the tests. */
void pose_quat_mul(const float a[4], const float b[4], float out[4]);
/* Rotation of ANGLE_RAD about the unit AXIS. */
void pose_quat_axis_angle(const float axis[3], float angle_rad, float out[4]);
void pose_quat_rotate(const float q[4], const float v[3], float out[3]);
/* 3x4 matrix of the rigid motion (rotation Q, then translation T). */
void pose_mat_from_rt(const float q[4], const float t[3], float out[POSE_MAT_FLOATS]);
/* Dual quaternion of the rigid motion (rotation Q, then translation T). */
void pose_dq_from_rt(const float q[4], const float t[3], float out[POSE_DQ_FLOATS]);

#endif
