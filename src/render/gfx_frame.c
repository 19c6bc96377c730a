/* gfx_frame: one frame of the scene, gfx_render_frame(): the frame's
 * uniform block (cameras, sun, sky, fog, the shadow window), the shadow
 * pass (the static casters' depth kept in a cache on the window's texel
 * grid, the moving casters drawn over a copy of it), then the main pass
 * into the offscreen target: terrain, props, the marker, the draw hooks,
 * the sky and the debug lines, resolved into the back buffer.
 * Does NOT: create or free GL objects other than the main target (gfx.c
 * does), or read pixels back.
 */
#include "render/gfx.h"
#include "render/gfx_internal.h"

#include "core/log.h"
#include "render/gfx_validate.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <cglm/cglm.h>

#include <math.h>
#include <string.h>

/* From the side and a little behind a camera that looks along +Z (the spawn
 * heading), about 38 degrees up: relief and shadows read best. */
static const float DEFAULT_SUN_DIR[3] = {0.70f, 0.60f, -0.25f};
/* Shadow coverage: half-size grows with the camera distance, within limits (cm). */
static const float SHADOW_RADIUS_MIN_CM = 700.0f;
static const float SHADOW_RADIUS_MAX_CM = 6000.0f;
/* Casters up to this far beyond the covered box along the sun still cast. */
static const float SHADOW_DEPTH_MARGIN_CM = 8000.0f;
/* The light's depth range is centred on the focus's depth along the sun in
 * steps of this size (cm), so the cache outlives small moves; the range has
 * SHADOW_DEPTH_MARGIN_CM to spare either way. */
static const float SHADOW_DEPTH_STEP_CM = 500.0f;
/* Polygon offset in the shadow pass (slope factor, units), against acne.
 * A unit is the depth format's step: 2^-16 in the 16-bit shadow maps, so
 * 4/256 units push as far as 4 units of a 24-bit map. */
static const float SHADOW_OFFSET_FACTOR = 2.0f;
static const float SHADOW_OFFSET_UNITS = 4.0f / 256.0f;
/* The main pass's terrain skirts: depth slope and steps of the 24-bit buffer. */
static const float SKIRT_OFFSET_FACTOR = 1.0f;
static const float SKIRT_OFFSET_UNITS = 4.0f;
/* The terrain casts shadows with every 2nd sample at least: smooth enough
 * that the normal offset covers the difference, at a quarter of the cost. */
enum { SHADOW_TERRAIN_MIN_LOD = 1 };
/* Fog: starts here and thins light by 1/e every FOG_FALLOFF_CM beyond. */
static const float FOG_START_CM = 2500.0f;
static const float FOG_FALLOFF_CM = 9000.0f;
/* Slack for deciding on the CPU that a point lies before the fog's start
 * (gfx_pass_info.fog_free_cm): the shaders measure in float from the vertex. */
static const float FOG_FREE_MARGIN_CM = 1.0f;

static const float IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

void gfx_free_target(void)
{
    if (gfx_g.main_fbo.id)
        glDeleteFramebuffers(1, &gfx_g.main_fbo.id);
    if (gfx_g.main_color.id)
        glDeleteRenderbuffers(1, &gfx_g.main_color.id);
    if (gfx_g.main_depth.id)
        glDeleteRenderbuffers(1, &gfx_g.main_depth.id);
    gfx_g.main_fbo.id = gfx_g.main_color.id = gfx_g.main_depth.id = 0;
    gfx_g.target_w = gfx_g.target_h = 0;
}

/* (Re)creates the offscreen main target when the size changes (only on
 * resize). Drawing offscreen keeps the result independent of how the app set
 * up the default framebuffer (no depth buffer, sRGB or multisampling needed). */
static bool ensure_target(int w, int h)
{
    if (gfx_g.main_fbo.id && gfx_g.target_w == w && gfx_g.target_h == h)
        return true;
    gfx_free_target();
    int s = gfx_g.info.msaa_samples;
    glCreateRenderbuffers(1, &gfx_g.main_color.id);
    glCreateRenderbuffers(1, &gfx_g.main_depth.id);
    if (s > 1) {
        glNamedRenderbufferStorageMultisample(gfx_g.main_color.id, s, GL_RGBA8, w, h);
        glNamedRenderbufferStorageMultisample(gfx_g.main_depth.id, s, GL_DEPTH_COMPONENT24, w, h);
    } else {
        glNamedRenderbufferStorage(gfx_g.main_color.id, GL_RGBA8, w, h);
        glNamedRenderbufferStorage(gfx_g.main_depth.id, GL_DEPTH_COMPONENT24, w, h);
    }
    glObjectLabel(GL_RENDERBUFFER, gfx_g.main_color.id, -1, "main.color");
    glObjectLabel(GL_RENDERBUFFER, gfx_g.main_depth.id, -1, "main.depth");
    glCreateFramebuffers(1, &gfx_g.main_fbo.id);
    glNamedFramebufferRenderbuffer(gfx_g.main_fbo.id, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gfx_g.main_color.id);
    glNamedFramebufferRenderbuffer(gfx_g.main_fbo.id, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, gfx_g.main_depth.id);
    glObjectLabel(GL_FRAMEBUFFER, gfx_g.main_fbo.id, -1, "main.fbo");
    if (glCheckNamedFramebufferStatus(gfx_g.main_fbo.id, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        gfx_free_target();
        if (s > 1) {
            log_warn("render: %dx MSAA target incomplete, drawing without MSAA", s);
            gfx_g.info.msaa_samples = 1;
            return ensure_target(w, h);
        }
        log_error("render: %dx%d main target incomplete", w, h);
        return false;
    }
    gfx_g.target_w = w;
    gfx_g.target_h = h;
    return true;
}

static void set_vec4(float dst[4], float r, float g, float b, float a)
{
    dst[0] = r;
    dst[1] = g;
    dst[2] = b;
    dst[3] = a;
}

/* The sun's orthographic window around the focus point, stable under camera
 * motion: the light's rotation depends only on the sun direction, the window
 * is snapped to whole shadow texels and its depth range to whole
 * SHADOW_DEPTH_STEP_CM, so a window drawn for one focus lines up texel for
 * texel with the window of the next (the static casters' cache relies on it). */
typedef struct shadow_fit_t {
    mat4 light_view;
    float radius; /* half-size, cm */
    float texel;  /* cm */
    float cx, cy; /* window centre in light view space, a multiple of texel */
    float zc;     /* depth-range centre, a multiple of SHADOW_DEPTH_STEP_CM */
} shadow_fit_t;

static void fit_shadow(const gfx_frame_desc_t *f, const vec3 sun, shadow_fit_t *fit)
{
    float radius = f->shadow_radius_cm;
    if (!(radius > 0.0f)) {
        vec3 d;
        glm_vec3_sub((float *)f->eye, (float *)f->focus, d);
        /* Whole cm: a following camera's distance wobbles in its last bits,
         * which would change the texel size (and void the cache) every frame. */
        radius = roundf(glm_clamp(glm_vec3_norm(d) * 1.0f + 300.0f, SHADOW_RADIUS_MIN_CM, SHADOW_RADIUS_MAX_CM));
    }
    vec3 origin = {0.0f, 0.0f, 0.0f}, up = {0.0f, 1.0f, 0.0f};
    if (fabsf(sun[1]) > 0.99f)
        glm_vec3_copy((vec3){0.0f, 0.0f, 1.0f}, up);
    glm_lookat((float *)sun, origin, up, fit->light_view);
    vec3 fc;
    glm_mat4_mulv3(fit->light_view, (float *)f->focus, 1.0f, fc);
    fit->radius = radius;
    fit->texel = 2.0f * radius / (float)gfx_g.info.shadow_map_size;
    fit->cx = floorf(fc[0] / fit->texel) * fit->texel;
    fit->cy = floorf(fc[1] / fit->texel) * fit->texel;
    /* View space looks down -Z: the focus lies at distance -fc[2]. */
    fit->zc = roundf(-fc[2] / SHADOW_DEPTH_STEP_CM) * SHADOW_DEPTH_STEP_CM;
}

/* The projection of a window of HALF cm around (CX, CY) on FIT's grid. */
static void shadow_projection(const shadow_fit_t *fit, float cx, float cy, float half, mat4 out)
{
    float depth = fit->radius + SHADOW_DEPTH_MARGIN_CM;
    mat4 light_proj;
    glm_ortho(cx - half, cx + half, cy - half, cy + half, fit->zc - depth, fit->zc + depth, light_proj);
    glm_mat4_mul(light_proj, (vec4 *)fit->light_view, out);
}

static void fill_frame_ubo(const gfx_frame_desc_t *f, gfx_frame_ubo_t *u, gfx_pass_info_t *pi, shadow_fit_t *fit_out,
                           vec3 sun_out)
{
    mat4 view, proj, vp, inv;
    memcpy(view, f->view, sizeof view);
    memcpy(proj, f->proj, sizeof proj);
    glm_mat4_mul(proj, view, vp);
    glm_mat4_inv(vp, inv);
    vec3 sun;
    glm_vec3_copy((float *)f->sun_dir, sun);
    if (glm_vec3_norm2(sun) < 1e-8f)
        glm_vec3_copy((float *)DEFAULT_SUN_DIR, sun);
    glm_vec3_normalize(sun);
    shadow_fit_t fit;
    fit_shadow(f, sun, &fit);
    mat4 lvp;
    shadow_projection(&fit, fit.cx, fit.cy, fit.radius, lvp);

    memcpy(u->view_proj, vp, sizeof u->view_proj);
    memcpy(u->inv_view_proj, inv, sizeof u->inv_view_proj);
    memcpy(u->light_view_proj, lvp, sizeof u->light_view_proj);
    set_vec4(u->eye, f->eye[0], f->eye[1], f->eye[2], 1.0f);
    bool shadows = (f->layers & GFX_LAYER_SHADOWS) != 0;
    set_vec4(u->sun_dir, sun[0], sun[1], sun[2], shadows ? 1.0f : 0.0f);
    /* Linear radiometry, tuned by eye against the tonemapper in frame.glsl. */
    set_vec4(u->sun_color, 1.9f, 1.75f, 1.5f, 0.0f);
    set_vec4(u->sky_zenith, 0.10f, 0.24f, 0.62f, 0.0f);
    set_vec4(u->sky_horizon, 0.45f, 0.57f, 0.76f, 0.0f);
    set_vec4(u->sky_ambient, 0.26f, 0.34f, 0.52f, 0.0f);
    set_vec4(u->ground_ambient, 0.14f, 0.12f, 0.09f, 0.0f);
    set_vec4(u->fog, FOG_START_CM, 1.0f / FOG_FALLOFF_CM, (f->layers & GFX_LAYER_FOG) ? 1.0f : 0.0f,
             (f->layers & GFX_LAYER_GRID) ? 1.0f : 0.0f);
    float radius_texel = 2.0f / ((float)gfx_g.info.shadow_map_size * fabsf(lvp[0][0]));
    /* Normal offset of ~1.5 texels in world cm; depth bias in [0,1] depth units. */
    set_vec4(u->shadow, 1.0f / (float)gfx_g.info.shadow_map_size, 1.5f * radius_texel, 0.0005f, 0.85f);

    memset(pi, 0, sizeof *pi);
    pi->caster_u_model = -1;
    pi->frame = f;
    pi->fog_free_cm = (f->layers & GFX_LAYER_FOG) ? FOG_START_CM - FOG_FREE_MARGIN_CM : -1.0f;
    memcpy(pi->view_proj, vp, sizeof pi->view_proj);
    memcpy(pi->light_view_proj, lvp, sizeof pi->light_view_proj);
    *fit_out = fit;
    memcpy(sun_out, sun, sizeof(vec3));
}

void gfx_frame_matrices(const gfx_frame_desc_t *f, float view_proj[16], float light_view_proj[16])
{
    gfx_frame_ubo_t u;
    gfx_pass_info_t pi;
    shadow_fit_t fit;
    vec3 sun;
    fill_frame_ubo(f, &u, &pi, &fit, sun);
    memcpy(view_proj, pi.view_proj, sizeof pi.view_proj);
    memcpy(light_view_proj, pi.light_view_proj, sizeof pi.light_view_proj);
}

static void marker_model(const gfx_marker_t *m, mat4 out)
{
    glm_mat4_identity(out);
    glm_translate(out, (float *)m->pos);
    /* Heading 0 faces +Z; a positive rotation about +Y turns +Z towards +X. */
    glm_rotate_y(out, m->heading_rad, out);
}

/* The level's walls and crouch tunnels (static casters). */
static void draw_level_props(const gfx_frame_desc_t *f, const scene_uniforms_t *u)
{
    glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
    glProgramUniform1i(u->prog, u->mode, 1);
    if (gfx_g.level.loaded && (f->layers & GFX_LAYER_WALLS))
        gfx_mesh_draw(&gfx_g.level.walls);
    if (gfx_g.level.loaded && (f->layers & GFX_LAYER_AREAS))
        gfx_mesh_draw(&gfx_g.level.crouch);
}

static void draw_marker(const gfx_frame_desc_t *f, const scene_uniforms_t *u)
{
    if (f->layers & GFX_LAYER_MARKER) {
        mat4 model;
        marker_model(&f->marker, model);
        glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, (const float *)model);
        glProgramUniform1i(u->prog, u->mode, 1);
        gfx_mesh_draw(&gfx_g.marker);
    }
}

static void draw_props(const gfx_frame_desc_t *f, const scene_uniforms_t *u)
{
    draw_level_props(f, u);
    draw_marker(f, u);
}

/* Sets the terrain's uniforms on the program of U. */
static void terrain_uniforms(const scene_uniforms_t *u)
{
    glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
    glProgramUniform1i(u->prog, u->mode, 0);
    glProgramUniform2f(u->prog, u->height_range, gfx_g.level.height_min, gfx_g.level.height_max);
}

/* The terrain's chunks in the frustum of CULL_VIEW_PROJ, drawn with the
 * program of U (bound by the caller): the shadow pass's depth. */
static void draw_terrain_depth(const gfx_frame_desc_t *f, const scene_uniforms_t *u, const float cull_view_proj[16],
                               int *chunks, int *triangles)
{
    *chunks = *triangles = 0;
    if (!gfx_g.level.loaded || !(f->layers & GFX_LAYER_TERRAIN))
        return;
    int n = gfx_level_cull_terrain(&gfx_g.level, cull_view_proj, f->eye, SHADOW_TERRAIN_MIN_LOD, NULL, NULL);
    terrain_uniforms(u);
    gfx_level_draw_culled(&gfx_g.level, 0, n);
    gfx_level_draw_culled_skirts(&gfx_g.level, 0, n);
    *chunks = gfx_g.level.last_drawn_chunks;
    *triangles = gfx_g.level.last_drawn_triangles;
}

/* The main pass's terrain in groups (gfx_level.h), each by the cheapest
 * scene program that gives its pixels: chunks wholly outside the shadow
 * map without the lookup (their shadow term is 1 either way, and the
 * lookup is a good part of the terrain's cost on software rasterisers),
 * chunks wholly before the fog's start without the fog (its amount is 0
 * there: four interpolated values a pixel saved). SHADOWS: the frame's. */
static void draw_terrain(const gfx_frame_desc_t *f, bool shadows, const gfx_pass_info_t *pi)
{
    gfx_g.stats.terrain_chunks = gfx_g.stats.terrain_triangles = gfx_g.stats.terrain_chunks_unshadowed = 0;
    gfx_g.stats.terrain_chunks_unfogged = 0;
    if (!gfx_g.level.loaded || !(f->layers & GFX_LAYER_TERRAIN))
        return;
    gfx_terrain_split_t split = {/* The lookup is pushed off the surface by up to 4.5 texels (frame.glsl). */
                                 .light_view_proj = shadows && !gfx_g.lookup_everywhere ? pi->light_view_proj : NULL,
                                 .light_margin = 16.0f / (float)gfx_g.info.shadow_map_size,
                                 .fog_free_cm = gfx_g.fog_everywhere ? 0.0f : pi->fog_free_cm,
                                 .all_skirts = gfx_g.all_skirts};
    int groups[GFX_TERRAIN_GROUPS];
    gfx_level_cull_terrain(&gfx_g.level, pi->view_proj, f->eye, 0, &split, groups);
    /* Every group's surfaces, then every group's skirts, pushed back by a
     * few depth steps: a skirt left out (gfx_level.h) is strictly behind a
     * surface, but one drawn could win a tie, or a step lost to rounding
     * at grazing angles far away (a speck in a grid line); pushed back,
     * none does, and leaving skirts out changes no pixel. */
    const scene_uniforms_t *progs[GFX_TERRAIN_GROUPS] = {0};
    for (int k = 0, first = 0; k < GFX_TERRAIN_GROUPS; first += groups[k], k++) {
        if (groups[k] == 0)
            continue;
        int variant = (!shadows || (k & GFX_TERRAIN_BEYOND_MAP) ? SCENE_NO_SHADOWS : 0) |
                      (k & GFX_TERRAIN_FOGGED ? 0 : SCENE_NO_FOG);
        progs[k] = gfx_scene_program(variant);
        glUseProgram(progs[k]->prog);
        terrain_uniforms(progs[k]);
        gfx_level_draw_culled(&gfx_g.level, first, groups[k]);
        if (k & GFX_TERRAIN_BEYOND_MAP)
            gfx_g.stats.terrain_chunks_unshadowed += groups[k];
        if (!(k & GFX_TERRAIN_FOGGED))
            gfx_g.stats.terrain_chunks_unfogged += groups[k];
    }
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(SKIRT_OFFSET_FACTOR, SKIRT_OFFSET_UNITS);
    for (int k = 0, first = 0; k < GFX_TERRAIN_GROUPS; first += groups[k], k++) {
        if (groups[k] == 0)
            continue;
        glUseProgram(progs[k]->prog); /* its uniforms set for the surfaces */
        gfx_level_draw_culled_skirts(&gfx_g.level, first, groups[k]);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
    gfx_g.stats.terrain_chunks = gfx_g.level.last_drawn_chunks;
    gfx_g.stats.terrain_triangles = gfx_g.level.last_drawn_triangles;
}

static void run_hooks(const gfx_pass_info_t *pi)
{
    for (int i = 0; i < gfx_g.hook_count; i++)
        gfx_g.hooks[i].fn(pi, gfx_g.hooks[i].user);
}

/* The layers the static casters' cache draws. */
#define SHADOW_CACHE_LAYERS (GFX_LAYER_TERRAIN | GFX_LAYER_WALLS | GFX_LAYER_AREAS)

/* Depth of the static casters (level props, terrain) into the bound target
 * through LVP. */
static void draw_static_casters(const gfx_frame_desc_t *f, const scene_uniforms_t *u, const float *lvp)
{
    glProgramUniformMatrix4fv(gfx_g.shadow.id, gfx_g.shadow_u_light_view_proj, 1, GL_FALSE, lvp);
    draw_level_props(f, u);
    draw_terrain_depth(f, u, lvp, &gfx_g.stats.shadow_terrain_chunks, &gfx_g.stats.shadow_terrain_triangles);
}

/* Where FIT's window starts in the cache, in texels; false when the cache
 * does not hold it (invalid, drawn for other inputs, or the window has left
 * its margin). */
static bool shadow_cache_offset(const gfx_frame_desc_t *f, const shadow_fit_t *fit, const vec3 sun, int *ox, int *oy)
{
    const shadow_cache_t *c = &gfx_g.shadow_cache;
    if (!c->valid || c->radius != fit->radius || c->zc != fit->zc || memcmp(c->sun, sun, sizeof c->sun) != 0 ||
        c->layers != (f->layers & SHADOW_CACHE_LAYERS) || c->level_generation != gfx_g.level_generation)
        return false;
    /* Both centres are whole texels apart. */
    long dx = lroundf((fit->cx - c->cx) / fit->texel), dy = lroundf((fit->cy - c->cy) / fit->texel);
    if (labs(dx) > SHADOW_CACHE_MARGIN || labs(dy) > SHADOW_CACHE_MARGIN)
        return false;
    *ox = SHADOW_CACHE_MARGIN + (int)dx;
    *oy = SHADOW_CACHE_MARGIN + (int)dy;
    return true;
}

/* Draws the static casters into the cache, its window centred on FIT's. */
static void redraw_shadow_cache(const gfx_frame_desc_t *f, const shadow_fit_t *fit, const vec3 sun,
                                const scene_uniforms_t *u)
{
    shadow_cache_t *c = &gfx_g.shadow_cache;
    mat4 lvp;
    shadow_projection(fit, fit->cx, fit->cy, fit->texel * (float)c->size * 0.5f, lvp);
    glBindFramebuffer(GL_FRAMEBUFFER, c->fbo.id);
    glViewport(0, 0, c->size, c->size);
    glClear(GL_DEPTH_BUFFER_BIT);
    draw_static_casters(f, u, (const float *)lvp);
    c->valid = true;
    c->radius = fit->radius;
    c->zc = fit->zc;
    c->cx = fit->cx;
    c->cy = fit->cy;
    memcpy(c->sun, sun, sizeof c->sun);
    c->layers = f->layers & SHADOW_CACHE_LAYERS;
    c->level_generation = gfx_g.level_generation;
    gfx_g.stats.shadow_cache_redrawn = true;
    gfx_g.stats.shadow_cache_redraws++;
}

static void shadow_pass(const gfx_frame_desc_t *f, gfx_pass_info_t *pi, const shadow_fit_t *fit, const vec3 sun)
{
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(SHADOW_OFFSET_FACTOR, SHADOW_OFFSET_UNITS);
    glUseProgram(gfx_g.shadow.id);
    /* The shadow program has only u_model; GL ignores location -1. */
    scene_uniforms_t u = {gfx_g.shadow.id, gfx_g.shadow_u_model, -1, -1};
    int size = gfx_g.info.shadow_map_size, ox = 0, oy = 0;
    bool cached = gfx_g.shadow_cache.size > 0 && !gfx_g.skip_shadow_cache;
    if (cached && !shadow_cache_offset(f, fit, sun, &ox, &oy)) {
        redraw_shadow_cache(f, fit, sun, &u);
        cached = shadow_cache_offset(f, fit, sun, &ox, &oy);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, gfx_g.shadow_fbo.id);
    glViewport(0, 0, size, size);
    glProgramUniformMatrix4fv(gfx_g.shadow.id, gfx_g.shadow_u_light_view_proj, 1, GL_FALSE, pi->light_view_proj);
    if (cached) {
        glCopyImageSubData(gfx_g.shadow_cache.tex.id, GL_TEXTURE_2D, 0, ox, oy, 0, gfx_g.shadow_tex.id, GL_TEXTURE_2D,
                           0, 0, 0, 0, size, size, 1);
    } else {
        glClear(GL_DEPTH_BUFFER_BIT);
    }
    draw_marker(f, &u);
    pi->pass = GFX_PASS_SHADOW;
    pi->caster = gfx_g.shadow;
    pi->caster_u_model = gfx_g.shadow_u_model;
    run_hooks(pi);
    pi->caster.id = 0;
    pi->caster_u_model = -1;
    if (!cached) {
        glUseProgram(gfx_g.shadow.id);
        draw_static_casters(f, &u, pi->light_view_proj);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
}

static void draw_debug_lines(const debug_lines_t *dl)
{
    if (!dl || !dl->vertices || dl->count < 2)
        return;
    int n = dl->count & ~1;
    if (n > gfx_g.line_vertices)
        n = gfx_g.line_vertices & ~1;
    glNamedBufferSubData(gfx_g.lines_vbo.id, 0, (GLsizeiptr)n * (GLsizeiptr)sizeof(debug_line_vertex_t), dl->vertices);
    glUseProgram(gfx_g.lines.id);
    glBindVertexArray(gfx_g.lines_vao.id);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    gfx_validate_draw("debug_lines");
    glDrawArrays(GL_LINES, 0, n);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
}

static void main_pass(const gfx_frame_desc_t *f, gfx_pass_info_t *pi, GLuint target)
{
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, f->width, f->height);
    glDepthMask(GL_TRUE);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glBindTextureUnit(TEX_UNIT_SHADOW, gfx_g.shadow_tex.id);
    glPolygonMode(GL_FRONT_AND_BACK, f->wireframe ? GL_LINE : GL_FILL);

    /* Near occluders first (props, then hooks: the character), the terrain
     * last: software rasterisers skip shading of pixels that fail the early
     * depth test, and the terrain is the most expensive surface. */
    bool shadows = (f->layers & GFX_LAYER_SHADOWS) != 0;
    const scene_uniforms_t *u = gfx_scene_program(shadows ? 0 : SCENE_NO_SHADOWS);
    glUseProgram(u->prog);
    draw_props(f, u);
    pi->pass = GFX_PASS_MAIN;
    run_hooks(pi);
    draw_terrain(f, shadows, pi);

    /* Sky after the opaque geometry: only uncovered pixels pass the depth test. */
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glUseProgram(gfx_g.sky_prog.id);
    gfx_mesh_draw(&gfx_g.sky);
    glDepthFunc(GL_LESS);

    /* Translucent jump discs lie on the terrain: pull them towards the camera. */
    if (gfx_g.level.loaded && (f->layers & GFX_LAYER_AREAS) && gfx_g.level.jump.index_count > 0) {
        glPolygonMode(GL_FRONT_AND_BACK, f->wireframe ? GL_LINE : GL_FILL);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(-1.0f, -4.0f);
        glUseProgram(u->prog);
        glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
        glProgramUniform1i(u->prog, u->mode, 1);
        gfx_mesh_draw(&gfx_g.level.jump);
        glDisable(GL_POLYGON_OFFSET_FILL);
        glDisable(GL_BLEND);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    }
    glDepthMask(GL_TRUE);

    if (f->layers & GFX_LAYER_DEBUG_LINES)
        draw_debug_lines(f->lines);
}

void gfx_render_frame(const gfx_frame_desc_t *f)
{
    if (!gfx_g.inited || !f || f->width <= 0 || f->height <= 0)
        return;
    gfx_timer_begin(&gfx_g.timer);
    unsigned redraws = gfx_g.stats.shadow_cache_redraws;
    memset(&gfx_g.stats, 0, sizeof gfx_g.stats);
    gfx_g.stats.shadow_cache_redraws = redraws;

    gfx_frame_ubo_t ubo;
    gfx_pass_info_t pi;
    shadow_fit_t fit;
    vec3 sun;
    fill_frame_ubo(f, &ubo, &pi, &fit, sun);
    glNamedBufferSubData(gfx_g.frame_ubo.id, 0, sizeof ubo, &ubo);
    glBindBufferBase(GL_UNIFORM_BUFFER, UBO_FRAME, gfx_g.frame_ubo.id);

    /* Shaders write sRGB-encoded values themselves. */
    glDisable(GL_FRAMEBUFFER_SRGB);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);

    if (f->layers & GFX_LAYER_SHADOWS)
        shadow_pass(f, &pi, &fit, sun);

    if (gfx_g.info.direct) {
        main_pass(f, &pi, 0);
    } else if (ensure_target(f->width, f->height)) {
        glEnable(GL_MULTISAMPLE);
        main_pass(f, &pi, gfx_g.main_fbo.id);
        /* Resolves MSAA (or copies) into the app's back buffer. */
        glBlitNamedFramebuffer(gfx_g.main_fbo.id, 0, 0, 0, f->width, f->height, 0, 0, f->width, f->height,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }

    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_DEPTH_TEST);
    gfx_timer_end(&gfx_g.timer);
}
