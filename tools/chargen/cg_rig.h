/* cg_rig: skinning data for the generated character: skin weights from the
 * figure's primitives smoothed over the surface, the extended benchmark
 * skeleton (twist, finger, toe and face joints), linear-blend skinning of a
 * posed skeleton, and elbow/knee corrective shapes.
 *
 * Call order: cg_rig_weights() -> [cg_rig_extend()] -> cg_rig_pose_*() /
 * cg_rig_skin() as often as needed; cg_rig_corrective() per driven joint.
 * Bind pose = T-pose: every joint's bind rotation is identity, so a joint's
 * bind matrix is a translation to its rest position.
 * Does NOT: allocate beyond the arrays it is given, or read files.
 */
#ifndef STRIDER_CHARGEN_RIG_H
#define STRIDER_CHARGEN_RIG_H

#include "anim/skel.h"
#include "cg_figure.h"
#include "cg_mesh.h"

#include <stdbool.h>

enum { CG_INFL = 4 };

typedef struct cg_skin_t {
    int (*joint)[CG_INFL];
    float (*weight)[CG_INFL]; /* sorted descending, sum 1 */
} cg_skin_t;

/* Weights for every vertex of M from the figure's primitive ownership,
 * smoothed SMOOTH_ITERS times over ADJ, cut to 4 and normalised. */
void cg_rig_weights(const cg_figure_t *f, const cg_mesh_t *m, const cg_adj_t *adj, int smooth_iters, cg_skin_t *out);

/* Appends up to EXTRA joints (twist, toe, finger, face, then numbered face
 * joints) to S and moves part of each parent's weight to them. Returns the
 * number added. */
int cg_rig_extend(skel_t *s, const cg_figure_t *f, int extra, const cg_mesh_t *m, cg_skin_t *skin);

/* Model-space joint matrices (column-major) of a pose given per-joint local
 * rotation quaternions (x, y, z, w) and a root translation (cm, the root's
 * offset from rest). */
void cg_rig_pose_globals(const skel_t *s, const float (*local_q)[4], const float root_t[3], float (*global)[16]);
/* Skinning matrices global * bind_inverse. */
void cg_rig_skin_matrices(const skel_t *s, const float (*global)[16], float (*skin)[16]);
/* Linear-blend skinning of N points and normals. */
void cg_rig_skin(const float (*skin_m)[16], const cg_skin_t *skin, int n, const float (*p)[3], const float (*nrm)[3],
                 float (*out_p)[3], float (*out_n)[3]);

/* A corrective shape for joint J bent by ANGLE_DEG about the joint-local
 * AXIS: deltas (bind space) that move the linear-blend-skinned surface back
 * onto the rigidly posed figure near the joint. out_delta: m->nv x 3. */
void cg_rig_corrective(const skel_t *s, const cg_figure_t *f, const cg_mesh_t *m, const cg_adj_t *adj,
                       const cg_skin_t *skin, int j, const float axis[3], float angle_deg, float (*out_delta)[3]);

/* Quaternion from axis (unit) and angle (rad). */
void cg_quat_axis_angle(const float axis[3], float angle, float q[4]);

#endif
