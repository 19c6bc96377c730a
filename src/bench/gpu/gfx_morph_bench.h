/* gfx_morph_bench: offscreen GPU blend shapes of one mesh, for `strider bench
 * blendshapes` and the GL tests: shaders/morph.glsl (the game's code) in one
 * SSBO pass, dense or sparse, in a vertex shader captured by transform
 * feedback (rasterisation discarded) or in a compute pass; and the
 * stream-out baseline of GPU Gems 3 3.2.3 (4 shapes per transform-feedback
 * pass as vertex attributes, ping-pong, a final normalise pass). All write
 * morph vertices (shaders/morph_bench.h) into one buffer; read() brings
 * them back.
 * Deltas: immutable storage; active data: a persistent-mapped fenced ring,
 * copied by the GPU into a device-local buffer the shaders read (as the
 * game's renderer does: on NVIDIA a persistent coherent mapping lives in
 * the CPU's memory, and a shader reading it per vertex crosses the bus).
 * Call order (GL 4.3+ current, gfx_init done): create() -> per frame run()
 * [clear_output() before / read() after, when checking] -> destroy().
 * run() returns glFinish-bracketed wall time (incl. the CPU-side active-list
 * preparation) AND GL_TIME_ELAPSED of the same work; callers compare them
 * (llvmpipe's query covers its rasteriser threads only, so with rasterising
 * discarded it reads ~0 for the vertex and transform-feedback work).
 * Does NOT: skin, draw visibly, allocate in run(), or keep desc pointers.
 */
#ifndef STRIDER_BENCH_GPU_GFX_MORPH_BENCH_H
#define STRIDER_BENCH_GPU_GFX_MORPH_BENCH_H

#include "render/gfx.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum gfx_morph_method_t {
    GFX_MORPH_SSBO_DENSE = 0,
    GFX_MORPH_SSBO_SPARSE = 1,
    GFX_MORPH_TF_MULTIPASS = 2,
    GFX_MORPH_COMPUTE_DENSE = 3, /* morph.glsl in a compute pass (shaders/morph_bench.comp) */
    GFX_MORPH_COMPUTE_SPARSE = 4,
    GFX_MORPH_METHOD_COUNT
} gfx_morph_method_t;

enum {
    GFX_MORPH_RING = 3,           /* frames of active data in flight */
    GFX_MORPH_DELTA_FLOATS = 10,  /* CPU delta: dpos xyz, dnormal xyz, dtangent xyz, dao (bshape) */
    GFX_MORPH_VERTEX_FLOATS = 12, /* output: pos xyz + ao, normal xyz + 0, tangent xyzw */
    GFX_MORPH_REASON_MAX = 160
};

/* Plain data of one mesh's targets, shaped like bshape_set_t (anim/bshape.h),
 * whose arrays can be passed straight in. */
typedef struct gfx_morph_bench_desc_t {
    uint32_t vertex_count;
    const float *positions; /* 3 per vertex, cm */
    const float *normals;   /* 3 per vertex */
    const float *tangents;  /* 4 per vertex */
    const float *ao;        /* 1 per vertex */
    uint32_t target_count;
    const float *dense;            /* target_count x vertex_count x 10, target-major; NULL: no dense/TF */
    const uint32_t *vertex_offset; /* vertex_count + 1; NULL: no sparse */
    const uint32_t *pair_target;   /* pair_count, ascending per vertex */
    const float *pair_delta;       /* pair_count x 10 */
    uint32_t pair_count;
    bool methods[GFX_MORPH_METHOD_COUNT]; /* which to prepare */
    const char *label;                    /* GL debug labels */
} gfx_morph_bench_desc_t;

typedef struct gfx_morph_time_t {
    double wall_ms;  /* glFinish ... glFinish, with the CPU-side preparation */
    double query_ms; /* GL_TIME_ELAPSED around the GL commands */
    int passes;      /* draws issued */
} gfx_morph_time_t;

typedef struct gfx_morph_bench_t {
    uint32_t vertex_count, target_count;
    bool ready[GFX_MORPH_METHOD_COUNT];
    char reason[GFX_MORPH_METHOD_COUNT][GFX_MORPH_REASON_MAX]; /* why a method is not ready */
    gfx_program_t prog[GFX_MORPH_METHOD_COUNT];                /* TF: the accumulation pass */
    gfx_program_t tf_finish;
    gfx_buffer_t base; /* morph vertices of the bind pose */
    gfx_buffer_t dense, sparse, offsets;
    gfx_buffer_t acc[2];                     /* TF ping-pong running sums */
    gfx_buffer_t zero;                       /* the running sum of no shapes: the first pass's input */
    gfx_buffer_t out;                        /* captured result */
    gfx_buffer_t ring;                       /* persistent-mapped active data */
    gfx_buffer_t frame_data[GFX_MORPH_RING]; /* device-local copy of each ring slot */
    void *ring_map;
    size_t ring_slot_bytes;
    void *fences[GFX_MORPH_RING];
    int frame;
    gfx_vertex_array_t vao_base, vao_tf, vao_finish;
    uint32_t tfo; /* transform feedback object */
    gfx_query_t query;
    int loc_tf_weight;
    float *weight_scratch; /* target_count summed weights */
    uint32_t *list_target; /* target_count: ascending active targets */
    float *list_weight;
} gfx_morph_bench_t;

/* Uploads the data and builds the programs of the methods asked for. Fails
 * (one logged line) only when nothing could be built; a method that cannot
 * run here (e.g. the dense deltas exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE)
 * is left not ready with its reason. */
bool gfx_morph_bench_create(gfx_morph_bench_t *b, const gfx_morph_bench_desc_t *d);
void gfx_morph_bench_destroy(gfx_morph_bench_t *b);
bool gfx_morph_bench_ready(const gfx_morph_bench_t *b, gfx_morph_method_t m);
const char *gfx_morph_bench_reason(const gfx_morph_bench_t *b, gfx_morph_method_t m);

/* One frame of method M with ACTIVE_COUNT (target, weight) entries (any
 * order; duplicates add; targets < target_count, weights finite), waited
 * for. Returns false (one logged line) on a bad list or a GL error. */
bool gfx_morph_bench_run(gfx_morph_bench_t *b, gfx_morph_method_t m, int active_count, const uint32_t *targets,
                         const float *weights, gfx_morph_time_t *out_time);
/* REPEATS frames of method M with one active list, queued back to back
 * with no wait between them, as frames run: the GPU keeps its clocks up (an
 * idle GPU between glFinish-bracketed runs does not). OUT_MS: the GPU time
 * between a timestamp before the first and one after the last, per frame
 * (a query per frame would count twice what overlaps). False (one logged
 * line) on a bad list or a GL error. */
bool gfx_morph_bench_run_pipelined(gfx_morph_bench_t *b, gfx_morph_method_t m, int active_count,
                                   const uint32_t *targets, const float *weights, int repeats, double *out_ms);
/* Fills the output with NaN bit patterns (untimed), so a later run that
 * fails to write a vertex is caught by the comparison. */
bool gfx_morph_bench_clear_output(gfx_morph_bench_t *b);
/* Copies the last run's vertices: vertex_count x GFX_MORPH_VERTEX_FLOATS. */
bool gfx_morph_bench_read(const gfx_morph_bench_t *b, float *out_vertices);

#endif
