/* cg_show: CPU deformation of a loaded character for the offline preview:
 * blend shapes (by name and weight), angle-driven correctives, then linear
 * blend skinning with a pose (a BVH frame), into cg_draw_mesh_t lists. The
 * pose is posed and skinned by the runtime's jobs (anim/pose.h,
 * anim/skin.h).
 *
 * Call order: cg_show_create() -> cg_show_set_shape() ... -> cg_show_pose()
 * -> cg_show_deform() -> draw with cg_preview -> cg_show_destroy().
 * Does NOT: render. cg_show_deform() allocates scratch per call (offline tool).
 */
#ifndef STRIDER_CHARGEN_SHOW_H
#define STRIDER_CHARGEN_SHOW_H

#include "anim/pose.h"
#include "asset/character.h"
#include "cg_preview.h"

#include <stdbool.h>

typedef struct cg_show_t {
    const chr_character_t *chr;
    bool no_correctives; /* for before/after comparisons */
    float *shape_w;      /* per shape */
    pose_t pose;
    pose_bind_t bind;
    float (*pos[CHR_MAX_MESHES])[3];
    float (*nrm[CHR_MAX_MESHES])[3];
    float (*col[CHR_MAX_MESHES])[3];
    float *ao[CHR_MAX_MESHES];
    int (*tri[CHR_MAX_MESHES])[3];
    cg_draw_mesh_t draw[CHR_MAX_MESHES];
    float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS]; /* of the pose, by cg_show_deform() */
    float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
} cg_show_t;

bool cg_show_create(cg_show_t *v, const chr_character_t *chr);
void cg_show_destroy(cg_show_t *v);
/* Sets all shape weights to 0. */
void cg_show_clear_shapes(cg_show_t *v);
/* "name" or "name=w"; fails (one logged line) on an unknown name. */
bool cg_show_set_shape(cg_show_t *v, const char *spec);
/* POSE (one transform per joint of the character's skeleton), or the rest
 * pose when NULL. */
void cg_show_pose(cg_show_t *v, const pose_t *pose);
/* Applies shapes, correctives and skinning; fills v->draw. False (a line
 * logged by the pose or skinning job) when the pose cannot be applied. */
bool cg_show_deform(cg_show_t *v);
/* Model-space position of joint J in the deformed pose. */
void cg_show_joint_pos(const cg_show_t *v, int j, float out[3]);
/* Heading of joint J's +Z axis in the deformed pose, degrees about +Y. */
float cg_show_joint_heading_deg(const cg_show_t *v, int j);

#endif
