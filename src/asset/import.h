/* import: a skinned character with morph targets, as a scene parser hands it
 * over (plain arrays: nodes, meshes, bones, targets, materials; glTF
 * conventions: metres, Y up, facing +Z), validated and turned into the
 * runtime character (chr_character_t, centimetres, feet on the ground).
 *
 * Call order: fill an imp_scene_t (import_file.c does it from a .glb or
 * .gltf file; tests and the fuzz target fill one by hand) -> imp_build()
 * (validates everything first: imp_validate()) -> use or chr_save() the
 * character -> chr_free().
 * What imp_build() does: one skeleton from the skin's joints (plus the
 * nodes between them and their common ancestor), each joint's rest frame
 * world-aligned (the .chr convention: bind rotations are identity, so the
 * mesh keeps the file's rest pose, e.g. an A-pose); the mesh skinned once at
 * the rest pose into that space; unskinned meshes that hang from a joint
 * node follow it rigidly; at most 4 influences per vertex (the largest,
 * renormalised); normals normalised (computed where missing); tangents
 * generated from the UVs; morph targets (absolute positions) turned into
 * sparse deltas with normal and tangent deltas computed from the moved
 * surface; meshes split into a morphed "head" (every triangle touching a
 * vertex some target moves) and a skin-only "body", as in Dawn.
 * Bad input fails with ONE logged line "SOURCE: problem" and no output.
 * Weights that do not sum to 1 (beyond CHR_WEIGHT_SUM_TOLERANCE) are
 * renormalised and counted in imp_info.renormalised (the file loader then
 * logs ONE warning line, once the whole load has succeeded); a vertex with
 * no weight at all is an error.
 * Does NOT: read files (import_file.c does), choose looks (see
 * import_look.h), or keep pointers into the scene.
 * Memory: the scene's arrays are the caller's; imp_build() mallocs the
 * character's arrays (chr_free() releases them) and frees its scratch.
 */
#ifndef STRIDER_ASSET_IMPORT_H
#define STRIDER_ASSET_IMPORT_H

#include "asset/character.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    IMP_MAX_NODES = 4096,
    IMP_MAX_MESHES = 1024,
    IMP_MAX_BONES = 1024, /* per mesh */
    IMP_MAX_TARGETS = CHR_MAX_SHAPES,
    IMP_MAX_MATERIALS = 256,
    IMP_MAX_FACE_CORNERS = 64, /* a face's index count must be 3; larger ones are refused unread */
};

/* glTF lengths are metres; the .chr works in centimetres. */
#define IMP_CM_PER_M 100.0f
/* Largest |coordinate| accepted from the file, metres (before scaling). */
#define IMP_COORD_LIMIT_M 100.0f

typedef struct imp_node_t {
    const char *name; /* NUL-terminated */
    int parent;       /* -1 for a root, else < own index (parents first) */
    float local[16];  /* parent-relative rest transform, column-major */
} imp_node_t;

typedef struct imp_bone_t {
    uint32_t node;          /* < node_count: the joint */
    float inverse_bind[16]; /* mesh space -> joint space at bind, column-major */
    uint32_t weight_count;
    const uint32_t *weight_vertex; /* < the mesh's vertex_count */
    const float *weight_value;     /* 0..1 */
} imp_bone_t;

typedef struct imp_target_t {
    const char *name;       /* NUL-terminated, 1..CHR_NAME_MAX-1 characters */
    const float *positions; /* vertex_count x 3: the target's absolute positions, or NULL (no motion) */
} imp_target_t;

typedef struct imp_mesh_t {
    const char *name;
    uint32_t node;     /* node the mesh hangs from */
    uint32_t material; /* < material_count */
    uint32_t vertex_count;
    const float *positions; /* vertex_count x 3 */
    const float *normals;   /* vertex_count x 3, or NULL */
    const float *uvs;       /* vertex_count x 2, or NULL */
    uint32_t face_count;
    const uint32_t *face_size;  /* corners of each face (3: triangles only) */
    const uint32_t *face_index; /* the faces' corners, one after the other */
    uint32_t bone_count;        /* 0: unskinned */
    const imp_bone_t *bones;
    uint32_t target_count;
    const imp_target_t *targets;
} imp_mesh_t;

typedef struct imp_material_t {
    const char *name;
    float color[4];    /* linear RGBA base colour factor */
    float roughness;   /* 0..1 */
    bool double_sided; /* glTF doubleSided: its back faces show (else they may be culled) */
} imp_material_t;

typedef struct imp_scene_t {
    uint32_t node_count;
    const imp_node_t *nodes;
    uint32_t mesh_count;
    const imp_mesh_t *meshes;
    uint32_t material_count;
    const imp_material_t *materials;
} imp_scene_t;

/* What the import did, for the converter's summary and the tests. */
typedef struct imp_info_t {
    uint32_t source_vertices, source_triangles;
    uint32_t skinned_meshes, rigid_meshes;
    uint32_t joints;            /* in the character's skeleton */
    uint32_t targets;           /* distinct target names */
    uint32_t renormalised;      /* vertices whose weights were rescaled to sum 1 */
    float worst_weight_sum;     /* the sum furthest from 1 among those */
    uint32_t truncated;         /* vertices with more than 4 influences (largest 4 kept) */
    uint32_t computed_normals;  /* vertices without a usable normal in the file */
    uint32_t dropped_triangles; /* triangles repeating a corner (they draw nothing) */
    int eyes, mouth_parts;      /* found by the dressing (import_look.h), when dressed */
    float height_cm;            /* rest-pose height, soles to the top */
} imp_info_t;

/* Checks every count, index, float, weight and the node hierarchy of
 * SCENE; one logged line naming SOURCE on the first problem. */
bool imp_validate(const imp_scene_t *scene, const char *source);
/* Validates SCENE and builds OUT (zeroed first). INFO may be NULL. */
bool imp_build(const imp_scene_t *scene, const char *source, chr_character_t *out, imp_info_t *info);

#endif
