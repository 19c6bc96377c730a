/* cg_figure: the character's shape as a signed distance field: an ordered
 * list of primitives (ellipsoids, tapered limbs, rounded boxes, a hair cap)
 * attached to skeleton joints, combined with smooth union / subtraction.
 *
 * Call order: cg_figure_build() (from the rest skeleton) -> cg_figure_eval()
 * / cg_figure_grad() / cg_figure_bone_distances() any number of times.
 * cg_figure_eval_posed() evaluates the same field with every primitive moved
 * rigidly by its joint's transform (used to derive corrective shapes).
 * Landmarks of the face (eye centres, mouth line, ...) are exported in
 * cg_face_marks_t so the face shapes and materials agree with the geometry.
 * Does NOT: allocate, or make meshes (see cg_mesh).
 * Units: cm, Y up, facing +Z. Negative inside.
 */
#ifndef STRIDER_CHARGEN_FIGURE_H
#define STRIDER_CHARGEN_FIGURE_H

#include "anim/pose.h"
#include "anim/skel.h"

#include <stdbool.h>

enum { CG_MAX_PRIMS = 160 };

typedef enum { CG_PRIM_ELLIPSOID, CG_PRIM_LIMB, CG_PRIM_BOX, CG_PRIM_HAIR } cg_prim_kind_t;
typedef enum { CG_OP_UNION, CG_OP_SUBTRACT } cg_prim_op_t;

typedef struct cg_prim_t {
    cg_prim_kind_t kind;
    cg_prim_op_t op;
    float k;  /* smooth blend radius, cm */
    int bone; /* owning joint (skin weights); -1 for carves */
    /* ellipsoid / box / hair: centre, orthonormal axes (rows), radii */
    float c[3];
    float axes[3][3];
    float r[3];
    float round; /* box edge rounding */
    /* limb: segment a->b, radii ra->rb, cross-section scale su (along u) and sv */
    float a[3], b[3], ra, rb, su, sv, u[3];
    /* hair: the cap is the ellipsoid above the plane dot(n, p) = plane_d */
    float n[3], plane_d;
    float lo[3], hi[3]; /* bounding box, for culling */
} cg_prim_t;

/* Face landmarks in model space (cm), shared by geometry, shapes, materials. */
typedef struct cg_face_marks_t {
    float eye_c[2][3];  /* eyeball centres, [0] = left (+x) */
    float eye_r;        /* eyeball radius */
    float eye_open_a;   /* almond opening half-width (x) */
    float eye_open_b;   /* almond opening half-height (y) */
    float eye_open_dy;  /* opening centre offset above the eye centre */
    float mouth_c[3];   /* centre of the mouth slit */
    float mouth_half_w; /* half-width of the mouth */
    float lip_z;        /* front of the lips */
    float jaw_pivot[3]; /* jaw rotation axis passes here along x */
    float brow_c[2][3]; /* brow centres */
    float cheek_c[2][3];
    float nose_tip[3];
    float chin[3];
    float neck_cut_y; /* head mesh starts here */
    float hairline_n[3], hairline_d;
    float head_c[3]; /* cranium centre */
    float head_r[3]; /* cranium radii */
    float ear_c[2][3];
} cg_face_marks_t;

typedef struct cg_figure_t {
    int count;
    cg_prim_t prim[CG_MAX_PRIMS];
    cg_face_marks_t face;
    float joint_pos[SKEL_MAX_JOINTS][3];
    float end_pos[SKEL_MAX_ENDS][3];
    float floor_y;
} cg_figure_t;

/* Builds the default figure around the rest skeleton S (the 21 CMU joints
 * must exist). Fails with one logged line if a needed joint is missing. */
bool cg_figure_build(cg_figure_t *f, const skel_t *s);
float cg_figure_eval(const cg_figure_t *f, const float p[3]);
/* Unnormalised central-difference gradient. */
void cg_figure_grad(const cg_figure_t *f, const float p[3], float out[3]);
/* Per-union-primitive distances at P (carves get FLT_MAX); out: f->count. */
void cg_figure_prim_distances(const cg_figure_t *f, const float p[3], float *out);
/* Field with every primitive of joint j moved rigidly from rest to pose;
 * INV_XF[j] is the 3x4 row-major model-space matrix taking posed points
 * back to rest (anim/pose.h's layout: the inverse of joint j's palette
 * entry). Only primitives whose bone has use[bone] set take part (carves,
 * bone -1, never do). Used to derive corrective shapes. */
float cg_figure_eval_posed(const cg_figure_t *f, const float (*inv_xf)[POSE_MAT_FLOATS], const bool *use,
                           const float p[3]);

#endif
