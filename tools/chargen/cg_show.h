/* cg_show: CPU deformation of a loaded character for the offline preview:
 * blend shapes (by name and weight), angle-driven correctives, then linear
 * blend skinning with a BVH pose, into cg_draw_mesh_t lists.
 *
 * Call order: cg_show_create() -> cg_show_set_shape() ... -> cg_show_pose()
 * -> cg_show_deform() -> draw with cg_preview -> cg_show_destroy().
 * Does NOT: render. cg_show_deform() allocates scratch per call (offline tool).
 */
#ifndef STRIDER_CHARGEN_SHOW_H
#define STRIDER_CHARGEN_SHOW_H

#include "asset/character.h"
#include "cg_preview.h"

#include <stdbool.h>

typedef struct cg_show_t {
    const chr_character_t *chr;
    bool no_correctives; /* for before/after comparisons */
    float *shape_w;      /* per shape */
    float local_q[SKEL_MAX_JOINTS][4];
    float root_t[3];
    float (*pos[CHR_MAX_MESHES])[3];
    float (*nrm[CHR_MAX_MESHES])[3];
    float (*col[CHR_MAX_MESHES])[3];
    float *ao[CHR_MAX_MESHES];
    int (*tri[CHR_MAX_MESHES])[3];
    cg_draw_mesh_t draw[CHR_MAX_MESHES];
    float joint_model[SKEL_MAX_JOINTS][16];
} cg_show_t;

bool cg_show_create(cg_show_t *v, const chr_character_t *chr);
void cg_show_destroy(cg_show_t *v);
/* Sets all shape weights to 0. */
void cg_show_clear_shapes(cg_show_t *v);
/* "name" or "name=w"; fails (one logged line) on an unknown name. */
bool cg_show_set_shape(cg_show_t *v, const char *spec);
/* Rest pose when local_q is NULL. */
void cg_show_pose(cg_show_t *v, const float (*local_q)[4], const float root_t[3]);
/* Applies shapes, correctives and skinning; fills v->draw. */
void cg_show_deform(cg_show_t *v);
/* Model-space position of joint J in the current pose. */
void cg_show_joint_pos(const cg_show_t *v, int j, float out[3]);

#endif
