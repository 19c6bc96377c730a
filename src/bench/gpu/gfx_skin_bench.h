/* gfx_skin_bench: offscreen GPU skinning of one mesh, for `strider bench
 * skinning` and its tests. The vertex shader is shaders/skin_bench.vert,
 * which includes the game's shaders/skin.glsl; the skinned vertices are
 * captured by transform feedback (rasterizer discard) and read back.
 * Paths (gfx_skin_bench_path_t):
 *   SKIN        the game's variant: SKIN_METHOD m, u_influences N, all vertices
 *   UNBINNED    one variant compiled for N influences, all vertices (LBS matrix)
 *   BINNED      Cebenoyan: vertices re-ordered by influence count, each bin
 *               drawn with the variant compiled for its count (LBS matrix)
 *   COMPRESSED  the 24-byte anim/vcompress stream decoded in the shader (LBS matrix)
 *   COMPUTE     SKIN's shader code (method m, N influences) in a compute pass
 *               (shaders/skin_bench.comp), one thread per vertex, written where
 *               the transform-feedback paths write
 *   SKIN_ONCE   skin into a buffer once (the compute pass, LBS matrix, as the
 *               game's skin once), then a depth pass and a main pass read it
 *   PER_PASS    the depth pass and the main pass each skin in their vertex shader
 *   LERP        Cebenoyan's hybrid in-between frame: lerp two CPU-skinned keys
 *               (positions, renormalised normals; tangents come out 0)
 * Timing: every repeat is bracketed by glFinish and timed with the wall clock
 * and, inside, a GL_TIME_ELAPSED query; both are reported, because timer
 * queries are suspect on llvmpipe. Wall time is for profiling only.
 * Call order (a GL 4.3+ context current, gfx_init done): gfx_skin_bench_limits_ok()
 * -> gfx_skin_bench_create() -> per path gfx_skin_bench_run() ->
 * gfx_skin_bench_read() (output in the original vertex order) /
 * gfx_skin_bench_read_image() -> gfx_skin_bench_destroy().
 * Does NOT: compute palettes, bin or compress vertices (the caller does, with
 * bench/skin_bench and anim/vcompress), or compare results.
 * Memory: the desc's arrays are uploaded at create and not kept; the bench
 * owns its GL objects; read functions write into caller memory.
 */
#ifndef STRIDER_BENCH_GPU_GFX_SKIN_BENCH_H
#define STRIDER_BENCH_GPU_GFX_SKIN_BENCH_H

#include "render/gfx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GFX_SKIN_BENCH_MAX_JOINTS = 256, /* palette entries, as the game's */
    GFX_SKIN_BENCH_MAX_INFLUENCES = 4,
    GFX_SKIN_BENCH_PACKED_BYTES = 24, /* sizeof(vcompress_vertex_t) */
    GFX_SKIN_BENCH_OUT_FLOATS = 10    /* captured per vertex: position 3, normal 3, tangent 4 */
};

typedef enum gfx_skin_bench_path_t {
    GFX_SKIN_BENCH_SKIN = 0,
    GFX_SKIN_BENCH_UNBINNED,
    GFX_SKIN_BENCH_BINNED,
    GFX_SKIN_BENCH_COMPRESSED,
    GFX_SKIN_BENCH_SKIN_ONCE,
    GFX_SKIN_BENCH_PER_PASS,
    GFX_SKIN_BENCH_LERP,
    GFX_SKIN_BENCH_COMPUTE,
    GFX_SKIN_BENCH_PATH_COUNT
} gfx_skin_bench_path_t;

typedef struct gfx_skin_bench_desc_t {
    int vertex_count;
    int joint_count;         /* 1..GFX_SKIN_BENCH_MAX_JOINTS */
    const float *positions;  /* 3 per vertex, bind space, cm */
    const float *normals;    /* 3 per vertex */
    const float *tangents;   /* 4 per vertex */
    const uint16_t *joints;  /* 4 per vertex */
    const float *weights;    /* 4 per vertex */
    const float *palette;    /* joint_count x 12 (3x4 row-major) */
    const float *dq_palette; /* joint_count x 8 */
    const uint32_t *indices; /* triangles for the two passes; NULL: SKIN_ONCE / PER_PASS refused */
    int index_count;
    /* BINNED: bin_order[new] = original vertex, bins of 1..4 influences. */
    const int *bin_order; /* NULL: BINNED refused */
    int bin_first[GFX_SKIN_BENCH_MAX_INFLUENCES], bin_count[GFX_SKIN_BENCH_MAX_INFLUENCES];
    /* COMPRESSED: vertex_count x 24 bytes (anim/vcompress layout) and its decode. */
    const void *packed; /* NULL: COMPRESSED refused */
    float pos_bias[3], pos_extent[3];
    /* LERP: two skinned keys, 3 floats per vertex each; NULL: LERP refused. */
    const float *key0_pos, *key0_nrm, *key1_pos, *key1_nrm;
    /* What the passes look at: a sphere around the skinned mesh (cm). */
    float view_center[3];
    float view_radius; /* > 0 */
    int target_size;   /* pixels per side of both pass targets; 0: 512 */
    const char *label; /* GL debug names; NULL: "skin_bench" */
} gfx_skin_bench_desc_t;

typedef struct gfx_skin_bench_run_desc_t {
    gfx_skin_bench_path_t path;
    int method;          /* skin_method (0 points, 1 matrix, 2 DQS); SKIN and COMPUTE only */
    int influences;      /* 1..4; for BINNED the largest bin (more weights count as this many) */
    int warmup, repeats; /* repeats >= 1 */
    float lerp_t;        /* LERP: 0 at key 0, 1 at key 1 */
} gfx_skin_bench_run_desc_t;

typedef struct gfx_skin_bench_result_t {
    double wall_median_s, wall_min_s, wall_max_s;    /* glFinish to glFinish */
    double query_median_s, query_min_s, query_max_s; /* GL_TIME_ELAPSED */
    /* As many repeats queued back to back, no wait between them (the GPU's
     * clocks up, as in a game's frames): GPU time (GL_TIMESTAMP before the
     * first, after the last) per repeat. */
    double pipelined_median_s;
} gfx_skin_bench_result_t;

typedef struct gfx_skin_bench_t gfx_skin_bench_t;

/* Whether INFO's limits hold a JOINTS-entry palette (SSBO block size,
 * vertex SSBO blocks) and JOINTS <= 256; false with a one-line reason in MSG. */
bool gfx_skin_bench_limits_ok(const gfx_info_t *info, int joints, char *msg, size_t msg_size);
/* Uploads the mesh and builds every program; NULL after one logged line. */
gfx_skin_bench_t *gfx_skin_bench_create(const gfx_skin_bench_desc_t *desc);
void gfx_skin_bench_destroy(gfx_skin_bench_t *b);
/* Runs R->warmup untimed and R->repeats timed repeats (each bracketed by
 * glFinish), then R->repeats more queued back to back (pipelined_median_s);
 * the medians go to OUT. Allocates only the timing scratch. */
bool gfx_skin_bench_run(gfx_skin_bench_t *b, const gfx_skin_bench_run_desc_t *r, gfx_skin_bench_result_t *out);
/* The vertices skinned by the last run, in the original vertex order:
 * OUT_FLOATS (10) floats per vertex. For PER_PASS the main pass's vertex
 * shader is run once more with transform feedback over the triangles, and
 * vertices no triangle uses are left untouched (covered[v] = 0; COVERED may
 * be NULL). Stalls; allocates a temporary buffer. */
bool gfx_skin_bench_read(gfx_skin_bench_t *b, float *out, uint8_t *covered);
/* SKIN_ONCE / PER_PASS: the last main pass's colour (RGBA8, size^2 x 4 bytes)
 * and depth pass's depth (size^2 floats); either may be NULL. */
bool gfx_skin_bench_read_image(gfx_skin_bench_t *b, uint8_t *out_rgba, float *out_depth);
int gfx_skin_bench_target_size(const gfx_skin_bench_t *b);

#endif
