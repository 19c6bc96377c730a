/* gfx: the renderer's public face. Every gl* call of Strider lives in src/render/.
 *
 * Call order (after an OpenGL 4.3+ core context is current, e.g. from SDL):
 *   gfx_init(&desc) -> gfx_level_load(&lvl) -> per frame: gfx_render_frame(&f)
 *   [-> UI -> gfx_screenshot_png()] -> swap (by the app) -> ... -> gfx_shutdown().
 * gfx_level_load() may be called again to switch levels (it frees the old one).
 * A frame is drawn in two passes: a shadow pass (depth from the sun: a copy of
 * the level's cached static casters, then the marker and the hooks) and a main
 * pass into an offscreen target (walls, areas, marker, hooks, terrain, sky,
 * translucent jump discs, debug lines), then resolved into the back buffer,
 * so the app's default framebuffer needs no depth, sRGB or MSAA. Other render
 * modules (the character) join both passes through gfx_add_draw_hook(); their
 * shaders read the per-frame uniform block and the shadow map declared in
 * shaders/shader_interface.h.
 * Does NOT: create windows or contexts, swap buffers, own the camera, read
 * input, or keep pointers into the level or the frame desc after a call returns.
 * Memory: gfx owns every GL object it creates; gfx_shutdown() frees them all.
 */
#ifndef STRIDER_RENDER_GFX_H
#define STRIDER_RENDER_GFX_H

#include "core/debug_lines.h"
#include "world/level.h"

#include <stdbool.h>
#include <stdint.h>

/* Typed GL object handles: mixing them up is a compile error. id 0 = none. */
typedef struct gfx_buffer_t {
    uint32_t id;
} gfx_buffer_t;
typedef struct gfx_vertex_array_t {
    uint32_t id;
} gfx_vertex_array_t;
typedef struct gfx_program_t {
    uint32_t id;
} gfx_program_t;
typedef struct gfx_texture_t {
    uint32_t id;
} gfx_texture_t;
typedef struct gfx_framebuffer_t {
    uint32_t id;
} gfx_framebuffer_t;
typedef struct gfx_renderbuffer_t {
    uint32_t id;
} gfx_renderbuffer_t;
typedef struct gfx_query_t {
    uint32_t id;
} gfx_query_t;

/* Zero-initialise; 0 means "default" everywhere. */
typedef struct gfx_desc_t {
    bool debug;             /* install a KHR_debug callback that feeds core/log */
    int msaa_samples;       /* 0: default = 1 (off: 4x doubled the frame time on llvmpipe), else 2/4/8 */
    int shadow_map_size;    /* texels per side; 0: default 1024 */
    bool uncached_shadows;  /* draw the terrain, walls and areas into the shadow map
                              every frame instead of copying them from the cache
                              (comparisons, tests) */
    bool offscreen;         /* draw the main pass into a target of its own and copy it
                            in, also where the window could take it (comparisons, tests) */
    bool lookup_everywhere; /* every terrain chunk looks up the shadow map, those
                               wholly outside it too (comparisons, tests) */
    bool fog_everywhere;    /* every terrain chunk computes the fog, those wholly
                               before its start too (comparisons, tests) */
    int line_vertices;      /* debug line vertices a frame draws at most (the caller's
                            capacity: the GPU buffer is sized to it); 0: default 65536 */
} gfx_desc_t;

enum { GFX_INFO_STRING_MAX = 128 };

/* What the context offers; filled by gfx_init(). */
typedef struct gfx_info_t {
    char renderer[GFX_INFO_STRING_MAX];
    char vendor[GFX_INFO_STRING_MAX];
    char version[GFX_INFO_STRING_MAX];
    char glsl_version[GFX_INFO_STRING_MAX];
    int major, minor;            /* context version */
    int64_t max_ssbo_block_size; /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes */
    int max_vertex_ssbo_blocks;  /* GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS */
    int max_ssbo_bindings;       /* GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS */
    int max_ubo_size;            /* GL_MAX_UNIFORM_BLOCK_SIZE, bytes */
    int max_vertex_attribs;      /* GL_MAX_VERTEX_ATTRIBS */
    int max_texture_size;        /* GL_MAX_TEXTURE_SIZE, texels */
    int max_samples;             /* GL_MAX_SAMPLES */
    int msaa_samples;            /* samples actually used by the main pass */
    bool direct;                 /* the main pass draws straight into the window (no MSAA, and
                                           its depth buffer has 24 bits or more): no target to copy */
    int shadow_map_size;         /* texels actually used */
    bool khr_debug;              /* debug callback installed */
    bool software;               /* a software rasteriser (llvmpipe, softpipe, SwiftShader):
                                           it sets up every triangle on the CPU */
} gfx_info_t;

/* Draw layers, a bitmask in gfx_frame_desc.layers. */
enum {
    GFX_LAYER_TERRAIN = 1u << 0,
    GFX_LAYER_WALLS = 1u << 1,
    GFX_LAYER_AREAS = 1u << 2, /* crouch tunnels and jump discs */
    GFX_LAYER_MARKER = 1u << 3,
    GFX_LAYER_DEBUG_LINES = 1u << 4,
    GFX_LAYER_SHADOWS = 1u << 5,
    GFX_LAYER_GRID = 1u << 6, /* 1 m grid lines on the ground */
    GFX_LAYER_FOG = 1u << 7,
    GFX_LAYER_ALL = 0xffu
};

/* The stand-in for the character until it lands: a lit capsule with a nose. */
typedef struct gfx_marker_t {
    float pos[3];      /* feet position on the terrain, cm */
    float heading_rad; /* 0 faces +Z; positive turns towards +X */
} gfx_marker_t;

typedef struct gfx_frame_desc_t {
    int width, height;      /* framebuffer pixels; 0 in either: frame skipped */
    float view[16];         /* column-major (cglm mat4 layout) */
    float proj[16];         /* column-major */
    float eye[3];           /* camera position, cm */
    float focus[3];         /* what the camera looks at; the shadow map is fitted around it */
    float sun_dir[3];       /* unit vector from the ground towards the sun; zero: default */
    float shadow_radius_cm; /* half-size of the shadow map's coverage; 0: from camera distance */
    bool wireframe;         /* main-pass geometry as lines (the sky stays filled) */
    uint32_t layers;        /* GFX_LAYER_* bits; 0 draws nothing but the sky */
    gfx_marker_t marker;
    const debug_lines_t *lines; /* may be NULL */
} gfx_frame_desc_t;

/* Passes that draw hooks take part in. */
typedef enum gfx_pass_t { GFX_PASS_SHADOW = 0, GFX_PASS_MAIN = 1 } gfx_pass_t;

/* Handed to draw hooks. When a hook runs, the per-frame uniform block is bound
 * at UBO_FRAME, the shadow map at TEX_UNIT_SHADOW (main pass only), depth test
 * is on, and the target framebuffer is bound. Hooks must leave that state as
 * they found it (bind their own program and vertex array freely). */
typedef struct gfx_pass_info_t {
    gfx_pass_t pass;
    const gfx_frame_desc_t *frame;
    float view_proj[16];       /* main camera, column-major */
    float light_view_proj[16]; /* shadow map projection, column-major */
    /* Shadow pass: the renderer's depth program for casters that need only
     * ATTR_POSITION, its projection already set; a hook sets u_model
     * (location caster_u_model) and draws. Zero in the main pass. */
    gfx_program_t caster;
    int32_t caster_u_model;
    /* Nearer the eye than this (cm) the shaders' fog amount is exactly 0:
     * the fog's start, less a centimetre for their float rounding; < 0: the
     * frame has no fog. */
    float fog_free_cm;
} gfx_pass_info_t;

typedef void (*gfx_draw_fn_t)(const gfx_pass_info_t *info, void *user);

/* The main camera's and the sun's view-projections (column-major) that
 * gfx_render_frame(F) will hand its hooks (gfx_pass_info_t), for work done
 * before the frame that must agree with its passes (the crowd's CPU mode
 * culls with them). After gfx_init. */
void gfx_frame_matrices(const gfx_frame_desc_t *f, float view_proj[16], float light_view_proj[16]);

bool gfx_init(const gfx_desc_t *desc);
void gfx_shutdown(void);
const gfx_info_t *gfx_get_info(void);

/* Builds GPU meshes for LVL (terrain, walls, crouch tunnels, jump discs);
 * nothing is kept pointing into LVL. Replaces any previously loaded level. */
bool gfx_level_load(const level_t *lvl);
void gfx_level_free(void);

void gfx_render_frame(const gfx_frame_desc_t *f);

/* Hooks run in registration order in both passes (the shadow pass only when
 * GFX_LAYER_SHADOWS is set); in the main pass after the opaque props and
 * before the terrain, so near objects fill the depth buffer first. At most
 * GFX_MAX_DRAW_HOOKS. */
enum { GFX_MAX_DRAW_HOOKS = 8 };
bool gfx_add_draw_hook(gfx_draw_fn_t fn, void *user);
void gfx_remove_draw_hook(gfx_draw_fn_t fn, void *user);

/* Reads the back buffer (width x height from the lower-left corner) after
 * glFinish and writes an 8-bit RGB PNG, top row first. False with one
 * logged line naming PATH and the reason (a missing folder, a full disk). */
bool gfx_screenshot_png(const char *path, int width, int height);
/* Reads the back buffer into caller memory: width*height*3 bytes RGB, top row first. */
bool gfx_read_pixels_rgb(int width, int height, uint8_t *out_rgb);

/* The renderer's savings that keep every pixel, each switched off by a
 * true field (all false: the renderer as shipped), from the next
 * gfx_render_frame() on: `strider bench render` measures each in
 * alternation and compares the pictures (gfx_desc_t's lookup_everywhere and
 * fog_everywhere set those two at start; its uncached_shadows makes no cache
 * at all). The figure's have switches of their own, which the caller sets
 * from fog_everywhere and all_triangles (gfx_character.h). One more keeps
 * every pixel and saves no work but time: scalar_cull, the sample cull's
 * AVX-512 loop (sample_cull.h). */
typedef struct gfx_switches_t {
    bool lookup_everywhere; /* every terrain chunk looks up the shadow map */
    bool fog_everywhere;    /* every terrain chunk computes the fog (the figure too: set_fog_everywhere) */
    bool uncached_shadows;  /* the static casters drawn into the shadow map anew (the cache kept) */
    bool all_skirts;        /* every terrain chunk's four skirts, hidden or not */
    bool all_triangles;     /* the figure: gfx_character_set_all_triangles (no sample cull) */
    bool scalar_cull;       /* the sample cull (figure and crowd) one triangle at a time, not 16 (AVX-512) */
} gfx_switches_t;
void gfx_set_switches(const gfx_switches_t *s);

/* Binds the per-frame uniform block (shaders/frame.glsl) of the last frame,
 * zeros before the first, for the render modules' draws outside a frame
 * (the character's capture and bake): a shader's active uniform block
 * must have a buffer even where the result does not use it. */
void gfx_bind_frame_uniforms(void);

/* What the latest gfx_render_frame() drew, for the debug menu. */
typedef struct gfx_frame_stats_t {
    int terrain_chunks;            /* main pass, after frustum culling */
    int terrain_triangles;         /* main pass */
    int terrain_chunks_unshadowed; /* main pass: of terrain_chunks, those out of the shadow map's reach */
    int terrain_chunks_unfogged;   /* main pass: of terrain_chunks, those wholly before the fog's start */
    int shadow_terrain_chunks;     /* drawn into the shadow map this frame */
    int shadow_terrain_triangles;  /* (0 when the static casters came from the cache) */
    bool shadow_cache_redrawn;     /* the static casters' cache was drawn anew */
    unsigned shadow_cache_redraws; /* since gfx_init */
} gfx_frame_stats_t;
const gfx_frame_stats_t *gfx_get_frame_stats(void);

/* GPU time of the last finished gfx_render_frame(), in ms (see gfx_timer.h
 * for how it is measured; 0 until one is available). */
double gfx_last_gpu_ms(void);
/* true: bracket each frame with glFinish and measure wall-clock time (exact on
 * any driver, but stalls the pipeline); false (default): timer queries. */
void gfx_set_finish_timing(bool on);

/* Frames the GPU may have queued behind the CPU, this one included. */
enum { GFX_FRAMES_IN_FLIGHT = 2 };
/* Frame pacing, the one place the CPU waits for the GPU: call right after
 * presenting a frame. Fences it, then waits until the GPU has finished the
 * frame before it, so the CPU runs at most one frame ahead. A driver that
 * blocks in the swap (llvmpipe, vsync) makes this free; one that queues
 * frames without limit (NVIDIA's offscreen EGL) would otherwise make the
 * first fenced resource of the next frame wait, inside a stage that is
 * then timed as if it were slow (the character's stream slots: the deform
 * stage). Returns the milliseconds waited. */
double gfx_pace_frames(void);

#endif
