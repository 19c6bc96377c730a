/* gfx_crowd: draws many copies of one chr character (the crowd of
 * `strider --crowd N`) with GPU skinning (or, in CPU mode, vertices the
 * CPU skinned), one instanced draw per mesh run, level of detail and pass. The meshes go up once at create (one
 * interleaved vertex buffer: the bind pose, uv, material, joints and
 * weights; one index buffer). Each update writes every instance's palette
 * (3x4 row-major bind -> WORLD matrices, so no model matrix) into a fenced
 * persistent-mapped ring slot, as gfx_character does, and a bounding
 * sphere per instance. At draw time (the gfx draw hook) the CPU culls the
 * spheres against the main view's frustum and, for the shadow pass,
 * against the sun's shadow volume (so a character out of view still casts
 * its shadow into it), picks each visible instance's level of detail from
 * its projected radius in the main view, and writes a compacted list of
 * instance indices per pass and level into a second fenced ring. The
 * vertex shader (character.vert / character_shadow.vert with
 * STRIDER_CROWD, skinning by shaders/skin.glsl, blend matrices) reads the
 * instance index as an attribute with divisor 1; each draw's base instance
 * picks its list (glDrawElementsInstancedBaseInstance, core GL 4.2: no
 * gl_BaseInstance, which needs ARB_shader_draw_parameters).
 * Level of detail (GFX_CROWD_LOD_*_PX, or the desc's lod_px): an instance
 * whose sphere's projected radius is at least lod_px[0] pixels is skinned
 * with 4 influences (the player's GPU LBS look), at least lod_px[1] with 2,
 * below that with 1 (weights kept renormalised, as skin.glsl does). The
 * shadow pass uses the main view's choice, so a figure's shadow is cast by
 * the surface that is lit (no self-shadowing seams between levels).
 * Call order: gfx_crowd_create() (after gfx_init) -> per frame
 * gfx_crowd_begin_update(count) -> write count palettes and spheres ->
 * [CPU mode: gfx_crowd_cpu_jobs(frame) -> run the jobs] ->
 * gfx_crowd_end_update() -> gfx_render_frame() draws it -> ...
 * -> gfx_crowd_destroy().
 * Deformation modes (gfx_crowd_set_deform): GPU (the above) or CPU. In
 * CPU mode the update culls with the frame's views as the draw hook
 * would (gfx_crowd_cpu_jobs, given the frame about to be drawn), lays
 * every member to skin out in a fenced persistent-mapped ring of skinned
 * vertices, and hands out one anim/skin job per member (its level's own
 * vertices, that level's influences, LBS blended matrices as skin.glsl);
 * the caller runs them (on any threads) before end_update. A member in
 * view gets positions, normals and tangents; one that only casts a shadow
 * into it, positions. The draws are the same instanced draws, whose
 * shaders (STRIDER_CROWD_CPU) read the skinned vertices instead of
 * skinning. A frame whose members do not fit the ring's slot
 * (desc.cpu_slot_bytes) is drawn GPU-skinned (counted, logged once).
 * Does NOT: run the CPU skinning itself (the caller's threads do), blend shapes (the
 * player's face stays in gfx_character), dual quaternions, per-instance
 * materials, the sample cull of gfx_character's CPU path, occlusion
 * culling, or read files. It keeps no pointer into the chr_character_t
 * after create. Memory: the renderer owns every GL object; the spans
 * begin_update hands out belong to the crowd and are valid until
 * end_update (in CPU mode the palette span is the crowd's CPU memory).
 */
#ifndef STRIDER_RENDER_GFX_CROWD_H
#define STRIDER_RENDER_GFX_CROWD_H

#include "anim/skin.h"
#include "asset/character.h"
#include "render/gfx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GFX_CROWD_SLOTS = 3,               /* palette (and list) ring slots: frames in flight + 1 */
    GFX_CROWD_LODS = 3,                /* 4, 2 and 1 influences */
    GFX_CROWD_MAX_INSTANCES = 1 << 16, /* per crowd */
    GFX_CROWD_MAT_FLOATS = 12          /* one palette entry: 3x4 row-major */
};

/* Default room of one slot of the CPU mode's skinned vertices: 32 MiB,
 * 52 members of the shipped character at level 0 (16,131 vertices of 40
 * bytes), more at the coarser levels. */
#define GFX_CROWD_CPU_SLOT_BYTES ((size_t)32 << 20)

/* Where the crowd's vertices are deformed. */
typedef enum gfx_crowd_deform_t {
    GFX_CROWD_DEFORM_GPU = 0, /* in the vertex shaders of both passes (skin.glsl) */
    GFX_CROWD_DEFORM_CPU      /* by anim/skin jobs, once per frame, members in view or casting */
} gfx_crowd_deform_t;

/* Default level-of-detail thresholds: projected sphere radius in pixels of
 * the main view (radius x proj[1][1] x height / 2 / clip w). For the
 * shipped character (a sphere of ~95 cm) at 720p with a 40 degree vertical
 * field of view, 48 px is ~20 m away and 16 px ~60 m. */
#define GFX_CROWD_LOD1_PX 48.0f /* below this radius: 2 influences */
#define GFX_CROWD_LOD2_PX 16.0f /* below this radius: 1 influence */

typedef struct gfx_crowd_t gfx_crowd_t;

/* Zero-initialise; 0 means "default". */
typedef struct gfx_crowd_desc_t {
    const chr_character_t *chr; /* read at create only */
    int max_instances;          /* 1..GFX_CROWD_MAX_INSTANCES: buffers are sized once */
    const char *label;          /* GL object labels and messages; NULL: "crowd" */
    /* Projected radius (px) at and above which an instance keeps 4, then
     * 2 influences; 0: GFX_CROWD_LOD1_PX, GFX_CROWD_LOD2_PX. */
    float lod_px[2];
    gfx_crowd_deform_t deform; /* the first updates' mode */
    /* Room of one slot of CPU-skinned vertices (bytes); 0: every instance
     * at level 0, at most GFX_CROWD_CPU_SLOT_BYTES (and the context's
     * shader storage block size). */
    size_t cpu_slot_bytes;
    /* CPU mode on a software rasteriser: draw every triangle, as on a GPU,
     * without the sample cull (which leaves the pixels as they are: the
     * tests compare the two). */
    bool every_triangle;
} gfx_crowd_desc_t;

/* One update's spans. palette is write-only mapped GPU memory (write each
 * value once, never read it back), or in CPU mode the crowd's CPU memory
 * that the jobs read; bounds is the crowd's own CPU memory, read by the
 * cull. */
typedef struct gfx_crowd_stream_t {
    float *palette;  /* count x joint_count x 12: bind -> world, 3x4 row-major (anim/pose.h) */
    float *bounds;   /* count x 4: world sphere centre xyz + radius, cm; not finite or < 0: not drawn */
    int joint_count; /* the character's skeleton */
    int count;
} gfx_crowd_stream_t;

/* Pass indices of the per-pass stats. */
enum { GFX_CROWD_PASS_SHADOW = 0, GFX_CROWD_PASS_MAIN = 1 };

typedef struct gfx_crowd_stats_t {
    int count; /* instances of the slot drawn */
    /* Per pass ([GFX_CROWD_PASS_*]) of the latest frame: instances drawn,
     * left out by the cull, drawn per level of detail, and instanced draws
     * issued (the shadow pass: zeros when the frame had no shadows). */
    int drawn[2], culled[2], lod[2][GFX_CROWD_LODS], draws[2];
    int bad_bounds; /* instances whose sphere was not finite (not drawn) */
    /* GPU time of the crowd's draws in both passes of the latest frame
     * whose timestamps came back (GL_TIMESTAMP, never waited for; ms;
     * < 0: none yet), and frames measured so. */
    double gpu_ms;
    uint64_t gpu_samples;
    /* CPU wall time (profiling only): of the last begin_update (the fence
     * wait included), end_update, and the last frame's cull and lists. */
    double begin_ms, end_ms, cull_ms;
    double last_wait_ms;  /* of begin_ms, waiting on the slot's fence */
    uint64_t fence_waits; /* updates that found their slot still in use */
    uint64_t frames_updated;
    uint32_t vertex_count, triangle_count;       /* of one instance (level 0) */
    uint32_t lod_triangle_count[GFX_CROWD_LODS]; /* of one instance at each level of detail */
    size_t palette_slot_bytes;                   /* one ring slot of palettes */
    /* CPU mode: the latest update's members skinned in view (positions,
     * normals, tangents) and for the shadow only (positions), vertices
     * skinned, and its slot's bytes used; frames that did not fit the slot
     * (GPU-skinned instead). cpu_slot_bytes: 0 when there is no CPU mode. */
    gfx_crowd_deform_t deform; /* of the latest update (GPU when a CPU one did not fit) */
    int cpu_lit, cpu_shadow_only;
    uint64_t cpu_vertices;
    size_t cpu_bytes_used, cpu_slot_bytes;
    uint64_t cpu_overflow_frames;
    /* CPU mode on a software rasteriser, per pass of the latest frame: the
     * members' triangles, and those the sample cull kept (0, 0: not
     * culled). */
    uint64_t cpu_triangles[2], cpu_triangles_kept[2];
} gfx_crowd_stats_t;

/* Uploads DESC->chr's meshes and materials, builds the programs and the
 * rings, registers the draw hook; NULL (one logged line) when the desc is
 * out of range, GPU skinning of the skeleton or a palette buffer of
 * max_instances does not fit this context's limits, or GL fails. */
gfx_crowd_t *gfx_crowd_create(const gfx_crowd_desc_t *desc);
void gfx_crowd_destroy(gfx_crowd_t *gc);

/* Waits (rarely) until the next slot is free and hands out its spans for
 * COUNT instances (0 draws nothing). False (one logged line, nothing
 * handed out) when COUNT is < 0 or > max_instances. */
bool gfx_crowd_begin_update(gfx_crowd_t *gc, int count, gfx_crowd_stream_t *out);
/* The slot written since begin_update becomes the one drawn. */
void gfx_crowd_end_update(gfx_crowd_t *gc);
/* The mode of the updates from the next begin_update on. False (one
 * logged line, the mode kept) for CPU when the crowd has no CPU mode. */
bool gfx_crowd_set_deform(gfx_crowd_t *gc, gfx_crowd_deform_t deform);
gfx_crowd_deform_t gfx_crowd_get_deform(const gfx_crowd_t *gc);
bool gfx_crowd_cpu_supported(const gfx_crowd_t *gc);
/* CPU mode, after the update's palettes and spheres are written and
 * before end_update: culls them with FRAME's views (the frame this update
 * will be drawn in), picks the levels of detail, lays the members to skin
 * out in the next slot of skinned vertices and hands out their jobs
 * (*JOBS, *COUNT; the crowd's memory, valid until end_update). Each job is
 * whole (skin_run() takes it as it is); they write disjoint spans, so any
 * thread may run any of them. False (*COUNT 0) when the update is not in
 * CPU mode, or its members do not fit the slot: then end_update makes the
 * frame GPU-skinned. */
bool gfx_crowd_cpu_jobs(gfx_crowd_t *gc, const gfx_frame_desc_t *frame, const skin_job_t **jobs, int *count);
/* Whether the crowd is drawn at all (the slots are kept either way). */
void gfx_crowd_set_visible(gfx_crowd_t *gc, bool visible);
const gfx_crowd_stats_t *gfx_crowd_get_stats(const gfx_crowd_t *gc);

/* The level of detail (0: 4 influences, 1: 2, 2: 1) of a sphere whose
 * projected radius is RADIUS_PX under thresholds LOD_PX (see the desc). */
int gfx_crowd_lod_for_px(const float lod_px[2], float radius_px);
/* Influences skinned at level LOD. */
int gfx_crowd_lod_influences(int lod);

#endif
