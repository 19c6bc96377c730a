/* import_internal: what the files of the glTF scene import (import.h)
 * share: the state of one imp_build() (build_t), the small maths more than
 * one of them uses, and the stages imp_build() runs, in its order:
 *   import.c           imp_validate(), imp_build() (the order of the
 *                      stages) and the character it writes out: materials,
 *                      the "body" and "head" meshes, their blend shapes,
 *                      the skeleton;
 *   import_skeleton.c  the one skin, and the skeleton from its joints and
 *                      the nodes between them (node rest transforms);
 *   import_mesh.c      every mesh into one vertex array, skinned once at
 *                      the rest pose (or rigid with its node), 4 weights a
 *                      vertex; centimetres, feet on the ground;
 *   import_normals.c   the welded adjacency, normals and tangents;
 *   import_shapes.c    morph targets, merged by name, into sparse deltas.
 * Not part of the interface: only these five files include it (not
 * import_file.c or import_look.c). Its functions are imp_<stage>; the
 * public ones are import.h's.
 * Does NOT: validate (every stage trusts a scene imp_validate() passed),
 * or keep anything between builds.
 * Memory: the stages malloc build_t's arrays; import.c's build_free()
 * releases them when imp_build() ends, whether it failed or not.
 */
#ifndef STRIDER_ASSET_IMPORT_INTERNAL_H
#define STRIDER_ASSET_IMPORT_INTERNAL_H

#include "asset/import.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- small math */

/* Column-major 4x4 (cglm's layout): element (row r, column c) is
 * m[c * 4 + r]. The scene's and the build's matrices are plain float[16],
 * without the 16-byte alignment cglm's SSE loads of a mat4 need, so the
 * product goes through aligned copies. */
static inline void mat4_mul(const float a[16], const float b[16], float out[16])
{
    mat4 ma, mb, r;
    memcpy(ma, a, sizeof ma);
    memcpy(mb, b, sizeof mb);
    glm_mat4_mul(ma, mb, r);
    memcpy(out, r, sizeof r);
}

/* Unlike glm_vec3_normalize (which zeroes a zero vector), leaves V as it is
 * and says false when it has no direction or is not finite. */
static inline bool normalize3(vec3 v)
{
    float l = glm_vec3_norm(v);
    if (!(l > 1e-12f) || !isfinite(l))
        return false;
    glm_vec3_divs(v, l, v);
    return true;
}

static inline bool finite_n(const float *v, size_t n, float limit)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabsf(v[i]) > limit)
            return false;
    return true;
}

static inline void *xcalloc(size_t n, size_t size, bool *ok)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *ok = false;
    return p;
}

/* ---------------------------------------------------------------- the build */

/* Everything imp_build() works on; freed by build_free() (import.c). */
typedef struct build_t {
    const imp_scene_t *scene;
    const char *src;
    float (*world)[16]; /* node_count rest world transforms */
    int *joint_of_node; /* node -> joint index, -1 if not a joint */
    int joint_count;
    uint32_t joint_node[SKEL_MAX_JOINTS];
    float joint_pos[SKEL_MAX_JOINTS][3]; /* model space, cm after imp_finish_space() */
    const imp_mesh_t *skin;              /* the reference skinned mesh */
    /* Merged vertices (all meshes), model space. */
    uint32_t vertex_count, triangle_count;
    uint32_t *mesh_first; /* mesh_count + 1: first merged vertex of each mesh */
    float (*pos)[3];
    float (*nrm)[3]; /* unit, or zero where the file had none */
    float (*uv)[2];
    float (*tan)[4];
    uint16_t (*joints)[4];
    float (*weights)[4];
    uint32_t *material; /* scene material */
    uint32_t (*tri)[3];
    /* Pre-skinning of each mesh vertex: for morph deltas (bind space). */
    mat3 *skin_lin; /* per merged vertex: blended linear part */
    /* Normals from positions, welded over identical positions. */
    uint32_t *weld; /* vertex -> weld group */
    uint32_t group_count;
    uint32_t *group_tri_offset, *group_tri; /* group -> triangles (CSR) */
    uint32_t *vert_tri_offset, *vert_tri;   /* vertex -> triangles (CSR) */
    float (*base_n)[3];                     /* computed (welded) normal per vertex, from the base positions */
    /* Targets, merged by name. */
    uint32_t target_count;
    char (*target_name)[CHR_NAME_MAX];
    chr_delta_t **target_delta;
    uint32_t *target_delta_count;
    imp_info_t info;
} build_t;

/* Each stage logs one line naming b->src and returns false when it fails
 * (a refused scene, or memory); imp_build() then stops and frees B. */

/* import_skeleton.c */
bool imp_find_skin(build_t *b);
bool imp_build_skeleton(build_t *b);
/* Nearest joint at or above NODE, or -1. */
int imp_joint_at_or_above(const build_t *b, int node);
/* The bone of MESH bound to NODE, or NULL. */
const imp_bone_t *imp_find_bone(const imp_mesh_t *m, uint32_t node);

/* import_mesh.c */
bool imp_place_vertices(build_t *b);
bool imp_finish_space(build_t *b);

/* import_normals.c */
bool imp_build_frames(build_t *b);
/* Welded normal of vertex V's position group over positions P (unit, or
 * zero when every adjacent triangle is degenerate). */
void imp_welded_normal(const build_t *b, const float (*p)[3], uint32_t v, float out[3]);
/* UV tangent of vertex V over positions P against the unit normal N, with
 * the bitangent's sign in OUT[3]. */
void imp_vertex_tangent(const build_t *b, const float (*p)[3], uint32_t v, const float n[3], float out[4]);

/* import_shapes.c */
bool imp_build_targets(build_t *b);

#endif
