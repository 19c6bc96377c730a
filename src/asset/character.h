/* character: the runtime character file (.chr): skeleton with bind-inverse
 * matrices, materials, skinned meshes, facial blend shapes and joint-angle
 * driven corrective shapes. The byte layout is in docs/FORMATS_CHARACTER.md.
 *
 * Call order: chr_load() (or chr_parse() on bytes) -> read the plain data ->
 * chr_free(). The generator builds a chr_character_t by hand and writes it
 * with chr_save() / chr_serialize().
 * Every count, offset, index and float is validated before use; a bad file
 * fails with ONE logged line naming the file and the problem.
 * Blend shapes are stored sparse and shape-major (sorted vertex lists); a
 * dense layout is built by scattering each delta into a zeroed
 * shape_count x vertex_count array (see chr_shape_scatter_dense()).
 * Does NOT: touch GL, pose or skin anything (see anim/), or keep the file open.
 * Memory: chr_parse()/chr_load() malloc the arrays inside the caller's
 * chr_character_t; chr_free() releases them and zeroes the struct.
 */
#ifndef STRIDER_ASSET_CHARACTER_H
#define STRIDER_ASSET_CHARACTER_H

#include "anim/skel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    CHR_VERSION = 1,
    CHR_NAME_MAX = 32, /* bytes incl. the terminating NUL */
    CHR_MAX_INFLUENCES = 4,
    CHR_MAX_MESHES = 16,
    CHR_MAX_MATERIALS = 64,
    CHR_MAX_SHAPES = 4096,
    CHR_MAX_CORRECTIVES = 256,
    CHR_MAX_VERTICES = 4000000,
    CHR_MAX_INDICES = 24000000,
};

/* Largest .chr file chr_load() accepts (bytes). */
#define CHR_FILE_MAX_BYTES ((size_t)1 << 30)
/* Largest |coordinate| of a position, delta or texture coordinate (cm). */
#define CHR_POS_LIMIT_CM 1.0e4f
/* Skin weights of a vertex must sum to 1 within this. */
#define CHR_WEIGHT_SUM_TOLERANCE 1e-3f

/* Mesh flags. */
enum {
    CHR_MESH_MORPHED = 1u << 0, /* blend shapes may target it (the head) */
    CHR_MESH_RIGID = 1u << 1,   /* every vertex is 100% one joint (eyeballs) */
    /* Authored one-sided, as glTF's doubleSided false: its back faces are
     * not meant to be seen, and a renderer may cull them (the generated
     * head: a solid but for a 1.5 cm gap in the mouth, just behind the
     * lips, and folds at the ears, where chr_closed_meshes finds it open). */
    CHR_MESH_SINGLE_SIDED = 1u << 2,
};

/* Blend shape categories (for grouping in menus). */
enum { CHR_SHAPE_EMOTION = 0, CHR_SHAPE_MODIFIER = 1, CHR_SHAPE_EXTRA = 2, CHR_SHAPE_CATEGORY_COUNT };

/* One vertex, exactly as stored (80 bytes). Positions in cm, bind pose. */
typedef struct chr_vertex_t {
    float pos[3];
    float normal[3];  /* unit */
    float tangent[4]; /* unit xyz; w = +-1 handedness: B = w * cross(N, T) */
    float uv[2];
    uint16_t joints[CHR_MAX_INFLUENCES]; /* < joint count */
    float weights[CHR_MAX_INFLUENCES];   /* sorted descending, sum 1 */
    float ao;                            /* self-occlusion: 1 = open, 0 = fully occluded */
    uint32_t material;                   /* < material count */
} chr_vertex_t;

/* One sparse shape entry (44 bytes on disk). Deltas live in bind space. */
typedef struct chr_delta_t {
    uint32_t vertex;
    float dpos[3];
    float dnormal[3];
    float dtangent[3];
    float dao;
} chr_delta_t;

typedef struct chr_material_t {
    char name[CHR_NAME_MAX];
    float color[4];   /* linear RGBA */
    float roughness;  /* 0..1 */
    float subsurface; /* 0..1, how much light wraps (skin) */
} chr_material_t;

typedef struct chr_mesh_t {
    char name[CHR_NAME_MAX];
    uint32_t flags;
    uint32_t vertex_count;
    uint32_t index_count; /* triangles * 3 */
    chr_vertex_t *vertices;
    uint32_t *indices;
} chr_mesh_t;

typedef struct chr_shape_t {
    char name[CHR_NAME_MAX];
    uint32_t mesh;
    uint32_t category;
    uint32_t delta_count;
    chr_delta_t *deltas; /* vertex indices strictly increasing */
} chr_shape_t;

/* A corrective shape: weight = clamp((angle - angle_zero) / (angle_full -
 * angle_zero), 0, 1), where angle (degrees) is the rotation of JOINT's local
 * rotation q about the joint-local unit AXIS:
 * angle = 2 * atan2(dot(q.xyz, axis), q.w), with q.w >= 0. */
typedef struct chr_corrective_t {
    char name[CHR_NAME_MAX];
    uint32_t mesh;
    uint32_t joint;
    float axis[3];
    float angle_zero_deg;
    float angle_full_deg;
    uint32_t delta_count;
    chr_delta_t *deltas;
} chr_corrective_t;

typedef struct chr_character_t {
    skel_t skel;
    /* Inverse of each joint's model-space bind matrix, column-major. */
    float bind_inverse[SKEL_MAX_JOINTS][16];
    uint32_t material_count;
    chr_material_t materials[CHR_MAX_MATERIALS];
    uint32_t mesh_count;
    chr_mesh_t meshes[CHR_MAX_MESHES];
    uint32_t shape_count;
    chr_shape_t *shapes;
    uint32_t corrective_count;
    chr_corrective_t *correctives;
} chr_character_t;

bool chr_load(chr_character_t *c, const char *path);
/* SOURCE names the bytes in error messages (usually the path). */
bool chr_parse(chr_character_t *c, const uint8_t *data, size_t size, const char *source);
void chr_free(chr_character_t *c);

/* Encodes C into a malloc'd buffer (caller frees with free()). Fails (one
 * logged line) if C itself would not pass chr_parse()'s checks. */
bool chr_serialize(const chr_character_t *c, uint8_t **data, size_t *size);
bool chr_save(const chr_character_t *c, const char *path);

/* Checks every invariant chr_parse() enforces on an in-memory character. */
bool chr_validate(const chr_character_t *c, const char *source);

/* The meshes of C (bit M for mesh M) that are parts of closed surfaces:
 * each edge of each of their triangles is met once the other way round by
 * a triangle of C (vertices at the same position are one: a seam or a cut
 * between meshes does not open a surface). Seen from outside, only the
 * front faces of such a mesh show, so a renderer may cull its back faces.
 * 0 when out of memory. Allocates while it runs: call at load. */
uint32_t chr_closed_meshes(const chr_character_t *c);
/* The meshes of C (bit M for mesh M) whose back faces a renderer may cull:
 * the closed ones and those flagged CHR_MESH_SINGLE_SIDED. Allocates while
 * it runs (chr_closed_meshes): call at load. */
uint32_t chr_cullable_meshes(const chr_character_t *c);

int chr_find_mesh(const chr_character_t *c, const char *name);
int chr_find_shape(const chr_character_t *c, const char *name);
/* Triangles over all meshes. */
uint32_t chr_triangle_count(const chr_character_t *c);

/* Dense layout of one shape: writes its position deltas into out_dpos
 * (vertex_count x 3, zeroed first by this call). */
void chr_shape_scatter_dense(const chr_shape_t *shape, uint32_t vertex_count, float (*out_dpos)[3]);

#endif
