/* gfx_internal: what gfx.c (set-up, levels, hooks, read-back, pacing) and
 * gfx_frame.c (drawing one frame: the frame uniforms, the shadow pass and
 * its cache of static casters, the main pass) share: the renderer's state,
 * its scene programs and the shadow cache's margin. Not part of the
 * interface: only src/render/gfx.c and gfx_frame.c include it.
 * Does NOT: draw, or hold anything a frame description carries.
 */
#ifndef STRIDER_RENDER_GFX_INTERNAL_H
#define STRIDER_RENDER_GFX_INTERNAL_H

#include "render/gfx.h"
#include "render/gfx_level.h"
#include "render/gfx_mesh.h"
#include "render/gfx_shader.h"
#include "render/gfx_timer.h"

#include <GL/glew.h>

#include <stdbool.h>
#include <stdint.h>

/* The static casters (terrain, walls, areas) are drawn into a cache map on
 * the frame's texel grid, this many texels wider on every side than a
 * frame's map; each frame copies its window out of it, then draws the moving
 * casters (the marker, the hooks: the character). The cache is drawn anew
 * when the window leaves it or anything it depends on changes: with the
 * default map and the game's camera, after 2 m of walking. On llvmpipe the
 * terrain's depth pass was a fifth of a frame's CPU time; the copy of a
 * 1024^2 window is about a fiftieth. */
enum { SHADOW_CACHE_MARGIN = 128 };

/* std140 mirror of frame_block in shaders/frame.glsl. */
typedef struct gfx_frame_ubo_t {
    float view_proj[16];
    float inv_view_proj[16];
    float light_view_proj[16];
    float eye[4];
    float sun_dir[4];
    float sun_color[4];
    float sky_zenith[4];
    float sky_horizon[4];
    float sky_ambient[4];
    float ground_ambient[4];
    float fog[4];
    float shadow[4];
} gfx_frame_ubo_t;

/* Variants of the scene program: without the shadow lookup, without fog. */
enum { SCENE_NO_SHADOWS = 1 << 0, SCENE_NO_FOG = 1 << 1, SCENE_VARIANTS = 4 };

/* A scene program and its uniform locations. */
typedef struct scene_uniforms_t {
    GLuint prog;
    GLint model, mode, height_range;
} scene_uniforms_t;

/* The static casters' shadow depth (see SHADOW_CACHE_MARGIN). */
typedef struct shadow_cache_t {
    gfx_texture_t tex;
    gfx_framebuffer_t fbo;
    int size; /* texels per side: shadow map + 2 SHADOW_CACHE_MARGIN; 0 = no cache */
    bool valid;
    /* What the cached depth was drawn for. */
    float sun[3], radius, zc, cx, cy;
    uint32_t layers;
    unsigned level_generation;
} shadow_cache_t;

typedef struct draw_hook_t {
    gfx_draw_fn_t fn;
    void *user;
} draw_hook_t;

/* The renderer's state: one per process, set up by gfx_init() (gfx.c). */
typedef struct gfx_state_t {
    bool inited;
    gfx_info_t info;
    /* The scene programs, by SCENE_* bits: [0] lit with shadows and fog
     * (props, the marker, the jump discs, fogged terrain), the others the
     * same without the shadow lookup, the fog or both (a separate program
     * each because llvmpipe pays for untaken branches and for every
     * interpolated value), built the first time a frame draws terrain
     * that needs neither, or has shadows off. */
    gfx_program_t scene[SCENE_VARIANTS], shadow, sky_prog, lines;
    scene_uniforms_t scene_u[SCENE_VARIANTS];
    bool scene_failed[SCENE_VARIANTS]; /* its build failed (logged once): [0] draws */
    bool lookup_everywhere;            /* gfx_switches_t': no terrain drawn without the lookup in shadowed frames */
    bool fog_everywhere;               /* gfx_switches_t': no terrain drawn without the fog */
    bool skip_shadow_cache;            /* gfx_switches_t' uncached_shadows, once the cache exists */
    bool all_skirts;                   /* gfx_switches_t': no terrain skirt left out */
    GLint shadow_u_model, shadow_u_light_view_proj;
    gfx_buffer_t frame_ubo;
    gfx_texture_t shadow_tex;
    gfx_framebuffer_t shadow_fbo;
    shadow_cache_t shadow_cache;
    unsigned level_generation;  /* bumped by every level load and free */
    gfx_framebuffer_t main_fbo; /* offscreen main pass target, resolved into the back buffer
                                 (unless gfx_g.info.direct) */
    gfx_renderbuffer_t main_color, main_depth;
    int target_w, target_h;
    gfx_mesh_t sky;
    gfx_buffer_t lines_vbo;
    int line_vertices; /* lines_vbo's capacity */
    gfx_vertex_array_t lines_vao;
    gfx_level_gpu_t level;
    gfx_mesh_t marker;
    draw_hook_t hooks[GFX_MAX_DRAW_HOOKS];
    int hook_count;
    gfx_timer_t timer;
    gfx_frame_stats_t stats;
    /* gfx_pace_frames: a fence after each presented frame, by frame parity. */
    GLsync frame_fence[GFX_FRAMES_IN_FLIGHT];
    unsigned paced_frames;
} gfx_state_t;

extern gfx_state_t gfx_g;

/* The scene program of VARIANT (SCENE_* bits), built when a frame first
 * asks for it: the menu's toggles, or a shadowed frame's terrain beyond
 * the shadow map or before the fog (each program costs about 1 MB in
 * llvmpipe). The full program stands in for one that cannot be built. */
const scene_uniforms_t *gfx_scene_program(int variant);

/* gfx_frame.c: deletes the offscreen main target (if any); the next frame
 * creates it again at its size. */
void gfx_free_target(void);

#endif
