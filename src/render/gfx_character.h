/* gfx_character: draws one chr character whose vertices are deformed on the
 * CPU, in the shadow pass (casting) and the main pass (lit, shadowed).
 *
 * All meshes share one vertex numbering (mesh m starts at
 * gfx_character_mesh_first_vertex(m)) and one static index buffer, so the
 * whole figure is a single draw. Static attributes (uv, material) are
 * uploaded once; the deformed stream (position, normal, tangent, AO; one
 * tightly packed array each) lives in a persistent, coherent mapped buffer
 * with GFX_CHARACTER_SLOTS slots: the CPU writes slot k+1 while the GPU may
 * still read slot k, and a fence per slot guards reuse, so nothing stalls
 * and nothing is allocated per frame.
 * Call order: gfx_character_create() (after gfx_init) -> per frame
 * gfx_character_begin_update() -> fill the stream -> gfx_character_end_update()
 * -> gfx_render_frame() draws it through a draw hook -> gfx_character_destroy().
 * Lighting (character.frag): wrap diffuse scaled by the material's subsurface,
 * specular from its roughness, AO-softened ambient, a rim light; eyes are
 * rigid meshes and simply drawn with their own materials.
 * GPU skinning (gfx_character_set_skinning): the stream then carries the
 * bind-pose (already morphed) vertices plus this frame's palette (3x4
 * row-major matrices, or dual quaternions) in the same fenced slot; the
 * vertex shaders (skin.glsl variants) skin position, normal and tangent with
 * the static joints/weights buffer. gfx_character_capture() reads the
 * GPU-skinned vertices back (tests only: it stalls).
 * Does NOT: deform on the CPU, read files, or keep pointers into the chr_character_t.
 * Memory: the renderer owns every GL object; destroy releases them.
 */
#ifndef STRIDER_RENDER_GFX_CHARACTER_H
#define STRIDER_RENDER_GFX_CHARACTER_H

#include "asset/character.h"
#include "render/gfx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GFX_CHARACTER_SLOTS = 3,
    GFX_CHARACTER_MAX_JOINTS = 256, /* palette entries per slot */
    GFX_CHARACTER_MAT_FLOATS = 12,  /* 3x4 row-major matrix */
    GFX_CHARACTER_DQ_FLOATS = 8     /* dual quaternion: real xyzw, dual xyzw */
};

/* Where the vertices get skinned; the GPU values match anim/skin.h's
 * skin_method (0 blend points, 1 blend matrices, 2 dual quaternions). */
typedef enum gfx_skin_mode {
    GFX_SKIN_CPU = -1,
    GFX_SKIN_GPU_LBS_POINTS = 0,
    GFX_SKIN_GPU_LBS_MATRIX = 1,
    GFX_SKIN_GPU_DQS = 2
} gfx_skin_mode;

typedef struct gfx_character gfx_character;

/* Where this frame's deformed vertices go (model space, cm). The spans are
 * write-only mapped GPU memory: write each value once, never read back. */
typedef struct gfx_character_stream {
    uint32_t vertex_count;
    float *positions; /* 3 per vertex */
    float *normals;   /* 3 per vertex, unit */
    float *tangents;  /* 4 per vertex: xyz unit, w handedness */
    float *ao;        /* 1 per vertex, 0..1 */
    float *palette;    /* GFX_CHARACTER_MAX_JOINTS x 12 (GPU LBS modes) */
    float *dq_palette; /* GFX_CHARACTER_MAX_JOINTS x 8 (GPU DQS) */
    int slot;          /* 0..GFX_CHARACTER_SLOTS-1: values written stay there */
} gfx_character_stream;

typedef struct gfx_character_stats {
    uint64_t frames_updated;
    uint64_t fence_waits;      /* updates that found their slot still in use */
    double last_wait_ms;       /* time spent waiting on the slot fence */
    uint32_t vertex_count;
    uint32_t triangle_count;
    uint32_t stream_bytes;     /* one slot of the deformed stream */
} gfx_character_stats;

/* Uploads C's meshes and materials and registers the draw hook; NULL (one
 * logged line) on failure. LABEL prefixes the GL object labels. */
gfx_character *gfx_character_create(const chr_character_t *c, const char *label);
void gfx_character_destroy(gfx_character *gc);

uint32_t gfx_character_mesh_first_vertex(const gfx_character *gc, uint32_t mesh);

/* Waits (rarely) until the next slot is free and hands out its spans. */
bool gfx_character_begin_update(gfx_character *gc, gfx_character_stream *out);
/* The slot written since begin_update becomes the one drawn. */
void gfx_character_end_update(gfx_character *gc);

/* Model -> world, column-major 4x4 (rotation + translation only). */
void gfx_character_set_transform(gfx_character *gc, const float model[16]);
void gfx_character_set_visible(gfx_character *gc, bool visible);
const gfx_character_stats *gfx_character_get_stats(const gfx_character *gc);

/* Whether INFO's limits allow a vertex-shader palette of JOINTS entries
 * (SSBO block size, vertex SSBO blocks; EXTRA_BLOCKS more for a capture);
 * false with a one-line reason in MSG (MSG_SIZE bytes). */
bool gfx_character_gpu_limits_ok(const gfx_info *info, int joints, int extra_blocks, char *msg, size_t msg_size);
/* Whether this context can skin on the GPU (checked at create; logged once). */
bool gfx_character_gpu_supported(const gfx_character *gc);
/* How the slot written by the next end_update is skinned: GFX_SKIN_CPU (the
 * stream holds deformed vertices) or a GPU method with INFLUENCES 1..4 over
 * JOINT_COUNT palette entries (the stream holds bind-pose vertices and the
 * palette). False (one logged line) when the GPU path is unsupported or an
 * argument is out of range; the mode is then left unchanged. */
bool gfx_character_set_skinning(gfx_character *gc, gfx_skin_mode mode, int influences, int joint_count);
/* Tests: runs the current GPU skinning of the last finished slot and reads
 * back model-space positions (3 per vertex), normals (3) and tangents (4).
 * False in CPU mode or on a GL failure. Allocates and stalls. */
bool gfx_character_capture(gfx_character *gc, float *out_pos, float *out_nrm, float *out_tan);

#endif
