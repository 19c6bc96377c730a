/* cg_rig: skinning data for the generated character: skin weights from the
 * figure's primitives smoothed over the surface, the extended benchmark
 * skeleton (twist, finger, toe and face joints), and elbow/knee corrective
 * shapes.
 *
 * Call order: cg_rig_weights() -> [cg_rig_extend()] -> cg_rig_corrective()
 * per driven joint. Bind pose = T-pose: every joint's bind rotation is
 * identity, so a joint's bind matrix is a translation to its rest position.
 * Posing and skinning are the runtime's (anim/pose.h, anim/skin.h).
 * Does NOT: read files. cg_rig_corrective() allocates scratch per call.
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

/* A corrective shape for joint J bent by ANGLE_DEG about the joint-local
 * AXIS: deltas (bind space) that move the linear-blend-skinned surface back
 * onto the rigidly posed figure near the joint. out_delta: m->nv x 3.
 * False (a line logged by the pose or skinning job) if S cannot be posed. */
bool cg_rig_corrective(const skel_t *s, const cg_figure_t *f, const cg_mesh_t *m, const cg_adj_t *adj,
                       const cg_skin_t *skin, int j, const float axis[3], float angle_deg, float (*out_delta)[3]);

#endif
