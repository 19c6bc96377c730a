/* gfx_character: draws one chr character in the shadow and main passes,
 * deformed on the CPU or on the GPU. Meshes share one vertex numbering
 * (gfx_character_mesh_first_vertex) and one index buffer. The per-frame
 * stream (CPU-deformed vertices, GPU palettes, blend-shape active lists)
 * lives in a persistent mapped buffer of GFX_CHARACTER_SLOTS fenced slots:
 * no stalls, no allocation per frame.
 * Each update says how it is deformed in a gfx_character_desc_t (sokol
 * style, handed to begin_update): skinned on the CPU (the slot holds
 * deformed vertices), or on the GPU (skin.glsl, the slot holds the
 * palette), with blend shapes from the CPU or from the GPU (morph.glsl:
 * every morphed mesh's deltas go once into an immutable SSBO per layout,
 * prepare_morph, and a frame writes only its active lists; meshes with no
 * active target draw skin-only). GPU skinning deforms in each pass's
 * vertex shader, or once per frame in a compute pass whose result both
 * passes draw with the CPU path's programs (skin_once; Cebenoyan,
 * "Efficient Animation"). Each technique's programs and buffers are built
 * when an update first asks for it: create builds only the CPU path's.
 * A mesh whose bind pose is written per frame (morphed on the CPU, or a
 * tweened clip) hands it in through the slot (use_stream_bind).
 * Hybrid (CPU skinning; Cebenoyan): begin_key/end_key write a CPU-skinned
 * key into a fenced ring of keys; an update with desc.hybrid shows the last
 * two keys blended at desc.hybrid_t (0 older, 1 newer) in the vertex shader.
 * Call order: gfx_character_create() (after gfx_init) -> per frame
 * begin_update(desc) -> fill the stream / write_active / use_stream_bind /
 * set_reach -> end_update -> gfx_render_frame() draws it (draw hook) ->
 * gfx_character_destroy().
 * capture() and bake() read the GPU's vertices back for tests and tools;
 * they stall.
 * Does NOT: deform on the CPU, read files, or keep pointers into the
 * chr_character_t or the targets. Memory: the renderer owns every GL object.
 * Code: one file per technique (gfx_character.c the slots and the draw
 * hook; _skin, _morph, _once, _hybrid, _capture, _cull), listed in
 * gfx_character_internal.h.
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
    GFX_CHARACTER_MAX_JOINTS = 256,   /* palette entries per slot */
    GFX_CHARACTER_MAX_INFLUENCES = 4, /* joints a vertex's weights name */
    GFX_CHARACTER_MAT_FLOATS = 12,    /* 3x4 row-major matrix */
    GFX_CHARACTER_DQ_FLOATS = 8,      /* dual quaternion: real xyzw, dual xyzw */
    /* One blend-shape delta as anim/bshape stores it: dpos xyz, dnormal xyz,
     * dtangent xyz, dao. */
    GFX_CHARACTER_DELTA_FLOATS = 10
};

/* Where the vertices get skinned; the GPU values match anim/skin.h's
 * skin_method (0 blend points, 1 blend matrices, 2 dual quaternions). */
typedef enum gfx_skin_mode_t {
    GFX_SKIN_CPU = -1,
    GFX_SKIN_GPU_LBS_POINTS = 0,
    GFX_SKIN_GPU_LBS_MATRIX = 1,
    GFX_SKIN_GPU_DQS = 2
} gfx_skin_mode_t;

/* Where the blend shapes are applied in GPU skinning modes; the GPU values
 * match anim/bshape.h's bshape_layout_t and morph.glsl's MORPH_LAYOUT_*. */
typedef enum gfx_character_morph_t {
    GFX_CHARACTER_MORPH_CPU = -1,
    GFX_CHARACTER_MORPH_SPARSE = 0,
    GFX_CHARACTER_MORPH_DENSE = 1
} gfx_character_morph_t;

typedef struct gfx_character_t gfx_character_t;

/* One mesh's blend-shape targets (shapes, then correctives) in anim/bshape's
 * sparse layout, which both GPU layouts are built from; read by create (the
 * counts) and prepare_morph (the deltas), not kept. Target indices in
 * active lists refer to this numbering. */
typedef struct gfx_character_targets_t {
    uint32_t target_count;         /* 0: the mesh has no blend shapes */
    const uint32_t *vertex_offset; /* vertex_count + 1 offsets into the pairs, or NULL */
    const uint32_t *pair_target;   /* pair_count targets, ascending per vertex */
    const float *pair_delta;       /* pair_count x GFX_CHARACTER_DELTA_FLOATS */
    uint32_t pair_count;
} gfx_character_targets_t;

/* A transform-feedback bake of one mesh's blend shapes (no skinning): the
 * morphed bind pose of the active list, read back into the caller's spans
 * of the mesh's vertex_count entries (3, 3, 4 and 1 floats per vertex). */
typedef struct gfx_character_bake_job_t {
    uint32_t mesh;
    gfx_character_morph_t layout; /* a GPU layout */
    int active_count;
    const uint32_t *active_target; /* < target_count; duplicates add */
    const float *active_weight;    /* finite */
    float *out_positions, *out_normals, *out_tangents, *out_ao;
} gfx_character_bake_job_t;

/* Where this frame's deformed vertices go (model space, cm). The spans are
 * write-only mapped GPU memory: write each value once, never read back. */
typedef struct gfx_character_stream_t {
    uint32_t vertex_count;
    float *positions;  /* 3 per vertex */
    float *normals;    /* 3 per vertex, unit */
    float *tangents;   /* 4 per vertex: xyz unit, w handedness */
    float *ao;         /* 1 per vertex, 0..1 */
    float *palette;    /* GFX_CHARACTER_MAX_JOINTS x 12 (GPU LBS modes) */
    float *dq_palette; /* GFX_CHARACTER_MAX_JOINTS x 8 (GPU DQS) */
    int slot;          /* 0..GFX_CHARACTER_SLOTS-1: values written stay there */
} gfx_character_stream_t;

typedef struct gfx_character_stats_t {
    uint64_t frames_updated;
    uint64_t fence_waits; /* updates that found their slot still in use */
    double last_wait_ms;  /* time spent waiting on the slot fence */
    uint32_t vertex_count;
    uint32_t triangle_count;
    uint32_t stream_bytes;         /* one slot of the deformed stream */
    uint64_t delta_bytes;          /* blend-shape deltas on the GPU, both layouts */
    uint32_t morph_draws;          /* morphing draws of the last main pass (skin once: of its feedback pass) */
    uint64_t feedback_passes;      /* skin-once compute passes run */
    uint32_t feedback_morph_draws; /* morphing draws of the last feedback pass */
    uint64_t keys_written;         /* hybrid keys */
    bool fog_free;                 /* the last main pass drew without the fog (gfx_character_set_reach) */
    /* Triangles the last shadow [0] and main [1] pass handed GL, and of
     * those the sample cull left out (sample_cull.h; CPU path). */
    uint32_t triangles_drawn[2], triangles_culled[2];
    /* GPU time of the character's commands in the shadow and main pass of
     * the latest frame whose timestamps came back (GL_TIMESTAMP; ms, < 0
     * none yet): the skin-once compute pass, the morph and skinning in the
     * vertex shaders and both passes' draws. */
    double gpu_ms;
    double gpu_deform_ms; /* of which the skin-once compute pass (0: none that frame) */
    uint64_t gpu_samples; /* frames measured so */
} gfx_character_stats_t;

/* Uploads C's meshes and materials, and MORPH's blend-shape deltas (NULL, or
 * c->mesh_count entries), and registers the draw hook; NULL (one logged
 * line) on failure. A layout whose deltas exceed the GL limits is not
 * uploaded (one logged line; blend shapes stay on the CPU in that layout).
 * LABEL prefixes the GL object labels. C's meshes must stay as they are
 * until gfx_character_destroy(): the GPU techniques' vertex data (joints
 * and weights, the bind pose) is uploaded from them when first used. */
gfx_character_t *gfx_character_create(const chr_character_t *c, const gfx_character_targets_t *morph,
                                      const char *label);
void gfx_character_destroy(gfx_character_t *gc);

uint32_t gfx_character_mesh_first_vertex(const gfx_character_t *gc, uint32_t mesh);

/* How one update is deformed and drawn (sokol style: a zeroed desc is CPU
 * skinning, no hybrid, the identity transform). What the caller writes into
 * the slot follows from it: deformed model-space vertices (CPU skinning),
 * or the palette(s), active lists and the bind pose of the meshes it morphs
 * on the CPU or edits per frame (GPU skinning; use_stream_bind). */
typedef struct gfx_character_desc_t {
    bool gpu_skin;   /* skin in the shaders; false: the slot holds skinned vertices */
    int method;      /* gpu_skin: 0 blend points, 1 blend matrices, 2 dual quaternions (anim/skin.h) */
    int influences;  /* gpu_skin: weights kept per vertex, renormalised, 1..4; 0: 4 */
    int joint_count; /* gpu_skin: palette entries; 0: the character's skeleton */
    bool gpu_morph;  /* gpu_skin: the active lists' blend shapes on the GPU (prepare_morph first) */
    bool dense;      /* gpu_morph: the dense layout instead of the sparse one */
    bool skin_once;  /* gpu_skin: deform once per frame in a compute pass; both passes draw that */
    bool hybrid;     /* CPU skinning: show the last two keys (begin_key) blended at hybrid_t */
    float hybrid_t;  /* 0 the older key, 1 the newer (exactly); clamped to 0..1 */
    bool transform;  /* draw through `model`; false: the identity */
    float model[16]; /* model -> world, column-major, rotation + translation */
} gfx_character_desc_t;

/* Checks DESC against what this context and character can do, builds what
 * it needs the first time (a skinning method's programs, the skin-once
 * buffers: tens of ms on llvmpipe, once), then waits (rarely) until the next
 * slot is free and hands out its spans. False (one logged line, nothing
 * handed out) when the desc cannot be honoured: GPU skinning where the
 * limits refused it, a method, influence or joint count out of range, a
 * GPU morph whose layout was not prepared, or a shader that fails. */
bool gfx_character_begin_update(gfx_character_t *gc, const gfx_character_desc_t *desc, gfx_character_stream_t *out);
/* The slot written since begin_update becomes the one drawn, as its desc said. */
void gfx_character_end_update(gfx_character_t *gc);

/* Between begin and end update: every vertex of the slot being written
 * lies within RADIUS_CM of CENTER (model space, before the transform); not
 * called, or a radius < 0: unknown. While that sphere lies nearer the eye
 * than the fog's start (gfx_pass_info.fog_free_cm), where the fog amount
 * is 0, the CPU path's main pass draws with a program without the fog: the
 * same pixels, four values a pixel fewer to interpolate. */
void gfx_character_set_reach(gfx_character_t *gc, const float center[3], float radius_cm);
/* ON: the main pass computes the fog whatever the reach says (comparisons, tests). */
void gfx_character_set_fog_everywhere(gfx_character_t *gc, bool on);
/* The CPU path leaves out of each pass the triangles that cover no pixel
 * centre (or shadow-map texel centre) of a single-sample target
 * (sample_cull.h): no pixel changes, and a software rasteriser sets up a
 * fraction of the triangles. On by default where the renderer is a
 * software rasteriser (gfx_info.software); ON true sends every triangle. */
void gfx_character_set_all_triangles(gfx_character_t *gc, bool on);
/* Whether the character is drawn at all (the slots are kept either way). */
void gfx_character_set_visible(gfx_character_t *gc, bool visible);
const gfx_character_stats_t *gfx_character_get_stats(const gfx_character_t *gc);

/* Whether INFO's limits allow a vertex-shader palette of JOINTS entries
 * (SSBO block size, vertex SSBO blocks; EXTRA_BLOCKS more for a capture);
 * false with a one-line reason in MSG (MSG_SIZE bytes). */
bool gfx_character_gpu_limits_ok(const gfx_info_t *info, int joints, int extra_blocks, char *msg, size_t msg_size);
/* Whether this context can skin on the GPU (checked at create; logged once). */
bool gfx_character_gpu_supported(const gfx_character_t *gc);
/* Tests: runs the current GPU deformation (morph, skinning) of the last
 * finished slot and reads back model-space positions (3 per vertex), normals
 * (3), tangents (4) and, when OUT_AO is not NULL, AO (1). A skin-once slot
 * reads back its feedback buffer (running the pass if no frame drew it); a
 * hybrid slot the blended keys. False in plain CPU mode or on a GL failure.
 * Allocates and stalls. */
bool gfx_character_capture(gfx_character_t *gc, float *out_pos, float *out_nrm, float *out_tan, float *out_ao);

/* Cebenoyan's hybrid (CPU skinning). begin_key waits (rarely) until the
 * next key of the ring is free and hands out its vertex spans (deformed
 * model-space vertices as in a CPU slot; no palettes). end_key makes it the
 * newest key; FIRST: it has no older partner (shown alone until the next).
 * An update whose desc asks for the hybrid shows the last two keys blended
 * (its own vertex spans are not read); before the first key, its own. */
bool gfx_character_begin_key(gfx_character_t *gc, gfx_character_stream_t *out);
void gfx_character_end_key(gfx_character_t *gc, bool first);

/* Whether INFO's limits allow a blend-shape storage block of BLOCK_BYTES
 * bytes in a vertex shader using BLOCKS storage blocks in all; false with a
 * one-line reason naming the limit in MSG (MSG_SIZE bytes). */
bool gfx_character_morph_limits_ok(const gfx_info_t *info, int64_t block_bytes, int blocks, char *msg, size_t msg_size);
/* Whether LAYOUT (a GPU gfx_character_morph) can morph on the GPU: targets given
 * at create, GPU skinning and the limits allow it (checked at create), and
 * preparing it has not failed. */
bool gfx_character_morph_supported(const gfx_character_t *gc, gfx_character_morph_t layout);
/* Uploads LAYOUT's deltas, built from MORPH (the create targets, read now
 * and not kept), and compiles its programs, the first time; later calls
 * return at once. False (one logged line, once) when LAYOUT is not
 * supported or building it fails. */
bool gfx_character_prepare_morph(gfx_character_t *gc, gfx_character_morph_t layout,
                                 const gfx_character_targets_t *morph);
/* Between begin_update and end_update: mesh MESH's active list for the GPU
 * morph (COUNT entries; targets < its target_count, duplicates add, finite
 * weights). Weights are summed per target and written in ascending target
 * order, as bshape_run sums them. A morphed mesh with no list this update
 * draws unmorphed. False (one logged line) on a bad argument. */
bool gfx_character_write_active(gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                const float *weights);
/* Between begin_update and end_update, with GPU skinning: mesh MESH's base
 * (bind-pose) vertices for this update are the ones the caller wrote into
 * the slot's position/normal/tangent/AO spans (every vertex of the mesh),
 * not the bind pose uploaded at create: a mesh morphed on the CPU, or a
 * bind pose that changes per frame (a vertex-animated clip tweened on the
 * CPU, which a GPU morph then morphs), through the fenced slot (no buffer
 * re-upload, no stall). Not called: the static bind pose. False (one
 * logged line) on a bad argument. */
bool gfx_character_use_stream_bind(gfx_character_t *gc, uint32_t mesh);
/* Runs JOB's morph through transform feedback and reads the vertices back
 * (GPU Gems 3 section 3.4). False (one logged line) when the layout is not
 * prepared, on a bad argument or a GL failure. Allocates and stalls. */
bool gfx_character_bake(gfx_character_t *gc, const gfx_character_bake_job_t *job);

#endif
