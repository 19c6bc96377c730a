#include "render/gfx.h"

#include "core/file.h"
#include "core/log.h"
#include "render/gfx_level.h"
#include "render/gfx_mesh.h"
#include "render/gfx_shader.h"
#include "render/gfx_timer.h"
#include "render/gfx_validate.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <cglm/cglm.h>
#include <stb_image_write.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults. MSAA is measured on llvmpipe (see the test's timing): 4x adds
 * little to a frame whose cost is dominated by fragment shading. */
enum {
    DEFAULT_SHADOW_MAP_SIZE = 1024,
    DEFAULT_MSAA_SAMPLES = 1,
    MIN_GL_MAJOR = 4,
    MIN_GL_MINOR = 3,
    DEFAULT_LINE_VERTICES = 1 << 16 /* debug line vertices per frame; more are not drawn */
};

/* From the side and a little behind a camera that looks along +Z (the spawn
 * heading), about 38 degrees up: relief and shadows read best. */
static const float DEFAULT_SUN_DIR[3] = {0.70f, 0.60f, -0.25f};
/* Shadow coverage: half-size grows with the camera distance, within limits (cm). */
static const float SHADOW_RADIUS_MIN_CM = 700.0f;
static const float SHADOW_RADIUS_MAX_CM = 6000.0f;
/* Casters up to this far beyond the covered box along the sun still cast. */
static const float SHADOW_DEPTH_MARGIN_CM = 8000.0f;
/* The static casters (terrain, walls, areas) are drawn into a cache map on
 * the frame's texel grid, this many texels wider on every side than a
 * frame's map; each frame copies its window out of it, then draws the moving
 * casters (the marker, the hooks: the character). The cache is drawn anew
 * when the window leaves it or anything it depends on changes: with the
 * default map and the game's camera, after 2 m of walking. On llvmpipe the
 * terrain's depth pass was a fifth of a frame's CPU time; the copy of a
 * 1024^2 window is about a fiftieth. */
enum { SHADOW_CACHE_MARGIN = 128 };
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
/* Shadow depth: over the window's depth range, 2 x (radius +
 * SHADOW_DEPTH_MARGIN_CM) = 174-280 m, a 16-bit step is 0.27-0.43 cm, a
 * 32nd of the depth bias (0.0005 of the range). Half the memory of 24 bits
 * (stored in 32): the map and its cache take 5.4 MB less in RAM on a
 * software rasteriser. Against 24 bits, 1-12 of 345,600 pixels changed in
 * the six levels' test views, all on shadow edges. */
#define SHADOW_DEPTH_FORMAT GL_DEPTH_COMPONENT16
/* The terrain casts shadows with every 2nd sample at least: smooth enough
 * that the normal offset covers the difference, at a quarter of the cost. */
enum { SHADOW_TERRAIN_MIN_LOD = 1 };
/* Fog: starts here and thins light by 1/e every FOG_FALLOFF_CM beyond. */
static const float FOG_START_CM = 2500.0f;
static const float FOG_FALLOFF_CM = 9000.0f;
/* Slack for deciding on the CPU that a point lies before the fog's start
 * (gfx_pass_info.fog_free_cm): the shaders measure in float from the vertex. */
static const float FOG_FREE_MARGIN_CM = 1.0f;

/* std140 mirror of frame_block in shaders/frame.glsl. */
typedef struct gfx_frame_ubo {
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
} gfx_frame_ubo;

/* Variants of the scene program: without the shadow lookup, without fog. */
enum { SCENE_NO_SHADOWS = 1 << 0, SCENE_NO_FOG = 1 << 1, SCENE_VARIANTS = 4 };

/* A scene program and its uniform locations. */
typedef struct scene_uniforms {
    GLuint prog;
    GLint model, mode, height_range;
} scene_uniforms;

static const float IDENTITY[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* The static casters' shadow depth (see SHADOW_CACHE_MARGIN). */
typedef struct shadow_cache {
    gfx_texture tex;
    gfx_framebuffer fbo;
    int size; /* texels per side: shadow map + 2 SHADOW_CACHE_MARGIN; 0 = no cache */
    bool valid;
    /* What the cached depth was drawn for. */
    float sun[3], radius, zc, cx, cy;
    uint32_t layers;
    unsigned level_generation;
} shadow_cache;

typedef struct draw_hook {
    gfx_draw_fn fn;
    void *user;
} draw_hook;

static struct {
    bool inited;
    gfx_info info;
    /* The scene programs, by SCENE_* bits: [0] lit with shadows and fog
     * (props, the marker, the jump discs, fogged terrain), the others the
     * same without the shadow lookup, the fog or both (a separate program
     * each because llvmpipe pays for untaken branches and for every
     * interpolated value), built the first time a frame draws terrain
     * that needs neither, or has shadows off. */
    gfx_program scene[SCENE_VARIANTS], shadow, sky_prog, lines;
    scene_uniforms scene_u[SCENE_VARIANTS];
    bool scene_failed[SCENE_VARIANTS]; /* its build failed (logged once): [0] draws */
    bool lookup_everywhere;    /* gfx_switches': no terrain drawn without the lookup in shadowed frames */
    bool fog_everywhere;       /* gfx_switches': no terrain drawn without the fog */
    bool skip_shadow_cache;    /* gfx_switches' uncached_shadows, once the cache exists */
    bool all_skirts;           /* gfx_switches': no terrain skirt left out */
    GLint shadow_u_model, shadow_u_light_view_proj;
    gfx_buffer frame_ubo;
    gfx_texture shadow_tex;
    gfx_framebuffer shadow_fbo;
    shadow_cache shadow_cache;
    unsigned level_generation; /* bumped by every level load and free */
    gfx_framebuffer main_fbo; /* offscreen main pass target, resolved into the back buffer
                                 (unless G.info.direct) */
    gfx_renderbuffer main_color, main_depth;
    int target_w, target_h;
    gfx_mesh sky;
    gfx_buffer lines_vbo;
    int line_vertices; /* lines_vbo's capacity */
    gfx_vertex_array lines_vao;
    gfx_level_gpu level;
    gfx_mesh marker;
    draw_hook hooks[GFX_MAX_DRAW_HOOKS];
    int hook_count;
    gfx_timer timer;
    gfx_frame_stats stats;
    /* gfx_pace_frames: a fence after each presented frame, by frame parity. */
    GLsync frame_fence[GFX_FRAMES_IN_FLIGHT];
    unsigned paced_frames;
} G;


static void copy_gl_string(char *dst, GLenum name)
{
    const char *s = (const char *)glGetString(name);
    snprintf(dst, GFX_INFO_STRING_MAX, "%s", s ? s : "unknown");
}

static void query_info(gfx_info *info)
{
    copy_gl_string(info->renderer, GL_RENDERER);
    copy_gl_string(info->vendor, GL_VENDOR);
    copy_gl_string(info->version, GL_VERSION);
    copy_gl_string(info->glsl_version, GL_SHADING_LANGUAGE_VERSION);
    /* Parse the string: GL_MAJOR_VERSION does not exist before 3.0. */
    info->major = info->minor = 0;
    if (sscanf(info->version, "%d.%d", &info->major, &info->minor) != 2)
        info->major = info->minor = 0;
}

static void query_limits(gfx_info *info)
{
    GLint64 v64 = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &v64);
    info->max_ssbo_block_size = v64;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &info->max_vertex_ssbo_blocks);
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &info->max_ssbo_bindings);
    glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &info->max_ubo_size);
    glGetIntegerv(GL_MAX_VERTEX_ATTRIBS, &info->max_vertex_attribs);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info->max_texture_size);
    glGetIntegerv(GL_MAX_SAMPLES, &info->max_samples);
}

/* Bits of the window's depth buffer (0: none). */
static int window_depth_bits(void)
{
    GLint type = GL_NONE, bits = 0;
    glGetNamedFramebufferAttachmentParameteriv(0, GL_DEPTH, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
    if (type != GL_NONE)
        glGetNamedFramebufferAttachmentParameteriv(0, GL_DEPTH, GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE, &bits);
    return bits;
}

static scene_uniforms scene_uniforms_of(GLuint prog)
{
    scene_uniforms u = {prog, glGetUniformLocation(prog, "u_model"), glGetUniformLocation(prog, "u_mode"),
                        glGetUniformLocation(prog, "u_height_range")};
    return u;
}

static bool load_programs(void)
{
    if (!gfx_shader_program_load(&G.scene[0], "scene.vert", "scene.frag", NULL, "scene") ||
        !gfx_shader_program_load(&G.shadow, "shadow.vert", "shadow.frag", NULL, "shadow") ||
        !gfx_shader_program_load(&G.sky_prog, "sky.vert", "sky.frag", NULL, "sky") ||
        !gfx_shader_program_load(&G.lines, "lines.vert", "lines.frag", NULL, "debug_lines"))
        return false;
    G.shadow_u_model = glGetUniformLocation(G.shadow.id, "u_model");
    G.shadow_u_light_view_proj = glGetUniformLocation(G.shadow.id, "u_light_view_proj");
    G.scene_u[0] = scene_uniforms_of(G.scene[0].id);
    return true;
}

/* The scene program of VARIANT (SCENE_* bits), built when a frame first
 * asks for it: the menu's toggles, or a shadowed frame's terrain beyond
 * the shadow map or before the fog (each program costs about 1 MB in
 * llvmpipe). The full program stands in for one that cannot be built. */
static const scene_uniforms *scene_program(int variant)
{
    static const char *const defines[SCENE_VARIANTS] = {
        NULL, "#define STRIDER_NO_SHADOWS\n", "#define STRIDER_NO_FOG\n",
        "#define STRIDER_NO_SHADOWS\n#define STRIDER_NO_FOG\n"};
    static const char *const labels[SCENE_VARIANTS] = {"scene", "scene_no_shadows", "scene_no_fog",
                                                       "scene_no_shadows_no_fog"};
    if (variant <= 0 || variant >= SCENE_VARIANTS)
        return &G.scene_u[0];
    if (!G.scene[variant].id && !G.scene_failed[variant]) {
        if (gfx_shader_program_load(&G.scene[variant], "scene.vert", "scene.frag", defines[variant], labels[variant]))
            G.scene_u[variant] = scene_uniforms_of(G.scene[variant].id);
        else
            G.scene_failed[variant] = true;
    }
    return &G.scene_u[G.scene[variant].id ? variant : 0];
}

static void create_shadow_map(int size)
{
    glCreateTextures(GL_TEXTURE_2D, 1, &G.shadow_tex.id);
    glTextureStorage2D(G.shadow_tex.id, 1, SHADOW_DEPTH_FORMAT, size, size);
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    /* Hardware depth comparison: each bilinear tap is a 2x2 PCF. */
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(G.shadow_tex.id, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glObjectLabel(GL_TEXTURE, G.shadow_tex.id, -1, "shadow_map");
    glCreateFramebuffers(1, &G.shadow_fbo.id);
    glNamedFramebufferTexture(G.shadow_fbo.id, GL_DEPTH_ATTACHMENT, G.shadow_tex.id, 0);
    glNamedFramebufferDrawBuffer(G.shadow_fbo.id, GL_NONE);
    glNamedFramebufferReadBuffer(G.shadow_fbo.id, GL_NONE);
    glObjectLabel(GL_FRAMEBUFFER, G.shadow_fbo.id, -1, "shadow_fbo");
}

/* The static casters' cache (see SHADOW_CACHE_MARGIN): depth only, never
 * sampled, copied from. */
static void create_shadow_cache(int size)
{
    glCreateTextures(GL_TEXTURE_2D, 1, &G.shadow_cache.tex.id);
    glTextureStorage2D(G.shadow_cache.tex.id, 1, SHADOW_DEPTH_FORMAT, size, size);
    glObjectLabel(GL_TEXTURE, G.shadow_cache.tex.id, -1, "shadow_cache");
    glCreateFramebuffers(1, &G.shadow_cache.fbo.id);
    glNamedFramebufferTexture(G.shadow_cache.fbo.id, GL_DEPTH_ATTACHMENT, G.shadow_cache.tex.id, 0);
    glNamedFramebufferDrawBuffer(G.shadow_cache.fbo.id, GL_NONE);
    glNamedFramebufferReadBuffer(G.shadow_cache.fbo.id, GL_NONE);
    glObjectLabel(GL_FRAMEBUFFER, G.shadow_cache.fbo.id, -1, "shadow_cache_fbo");
    G.shadow_cache.size = size;
}

static void create_lines_buffer(int vertices)
{
    G.line_vertices = vertices;
    glCreateBuffers(1, &G.lines_vbo.id);
    glNamedBufferStorage(G.lines_vbo.id, (GLsizeiptr)vertices * (GLsizeiptr)sizeof(debug_line_vertex), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    glObjectLabel(GL_BUFFER, G.lines_vbo.id, -1, "debug_lines.vertices");
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, G.lines_vbo.id, 0, sizeof(debug_line_vertex));
    glEnableVertexArrayAttrib(vao, ATTR_POSITION);
    glVertexArrayAttribFormat(vao, ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, offsetof(debug_line_vertex, pos));
    glVertexArrayAttribBinding(vao, ATTR_POSITION, 0);
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribFormat(vao, ATTR_COLOR, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(debug_line_vertex, rgba));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, 0);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, "debug_lines.vao");
    G.lines_vao.id = vao;
}

/* A unit sphere for the sky, its rings packed towards the horizon where
 * the gradient changes fastest (colours are interpolated per vertex). */
static bool build_sky(gfx_mesh *m)
{
    static const float lat_deg[] = {-90, -40, -15, -6, -2, 0, 1.5f, 3, 5, 7.5f, 10.5f, 14,
                                    18.5f, 24, 31, 40, 52, 66, 80, 90};
    enum { SEGMENTS = 48, RINGS = sizeof lat_deg / sizeof lat_deg[0] };
    gfx_mesh_builder b;
    gfx_mesh_builder_init(&b);
    for (int r = 0; r < RINGS; r++) {
        float lat = glm_rad(lat_deg[r]);
        for (int s = 0; s <= SEGMENTS; s++) {
            float lon = 2.0f * GLM_PIf * (float)s / (float)SEGMENTS;
            float p[3] = {cosf(lat) * sinf(lon), sinf(lat), cosf(lat) * cosf(lon)};
            gfx_mb_vertex(&b, p, p, DEBUG_RGBA(255, 255, 255, 255));
        }
    }
    for (int r = 0; r + 1 < RINGS; r++)
        for (int s = 0; s < SEGMENTS; s++) {
            uint32_t a = (uint32_t)(r * (SEGMENTS + 1) + s), c = a + SEGMENTS + 1;
            gfx_mb_triangle(&b, a, a + 1, c + 1);
            gfx_mb_triangle(&b, a, c + 1, c);
        }
    bool ok = gfx_mesh_upload(m, &b, "sky");
    gfx_mesh_builder_free(&b);
    return ok;
}

bool gfx_init(const gfx_desc *desc)
{
    if (G.inited)
        gfx_shutdown();
    memset(&G, 0, sizeof G);
    gfx_desc d = desc ? *desc : (gfx_desc){0};

    glewExperimental = GL_TRUE;
    GLenum err = glewInit();
    /* glewInit may leave GL_INVALID_ENUM behind (it queries GL_EXTENSIONS the
     * pre-3.0 way); drain the error queue. */
    while (glGetError() != GL_NO_ERROR) {
    }
    /* The GLX build of GLEW reports an error when no GLX display is around
     * (e.g. an EGL context) even though the core entry points did load. */
    if (err != GLEW_OK && !glCreateProgram) {
        log_error("render: GLEW initialisation failed: %s", (const char *)glewGetErrorString(err));
        return false;
    }
    if (err != GLEW_OK)
        log_warn("render: GLEW: %s (continuing, GL entry points loaded)", (const char *)glewGetErrorString(err));
    query_info(&G.info);
    if (G.info.major < MIN_GL_MAJOR || (G.info.major == MIN_GL_MAJOR && G.info.minor < MIN_GL_MINOR)) {
        log_error("OpenGL %d.%d or newer required, found %s (%s)", MIN_GL_MAJOR, MIN_GL_MINOR, G.info.version,
                  G.info.renderer);
        return false;
    }
    query_limits(&G.info);
    G.info.software = strstr(G.info.renderer, "llvmpipe") || strstr(G.info.renderer, "softpipe") ||
                      strstr(G.info.renderer, "SwiftShader");

    G.info.khr_debug = gfx_validate_init(d.debug);

    int samples = d.msaa_samples > 0 ? d.msaa_samples : DEFAULT_MSAA_SAMPLES;
    if (samples > G.info.max_samples)
        samples = G.info.max_samples;
    G.info.msaa_samples = samples < 1 ? 1 : samples;
    G.info.direct = G.info.msaa_samples == 1 && !d.offscreen && window_depth_bits() >= 24;
    int shadow_size = d.shadow_map_size > 0 ? d.shadow_map_size : DEFAULT_SHADOW_MAP_SIZE;
    if (shadow_size > G.info.max_texture_size)
        shadow_size = G.info.max_texture_size;
    G.info.shadow_map_size = shadow_size;

    G.inited = true; /* from here on, gfx_shutdown() cleans up whatever exists */
    if (!load_programs()) {
        gfx_shutdown();
        return false;
    }
    glCreateBuffers(1, &G.frame_ubo.id);
    /* Zeros until the first frame: passes outside a frame read it too
     * (gfx_bind_frame_uniforms). */
    static const gfx_frame_ubo no_frame;
    glNamedBufferStorage(G.frame_ubo.id, sizeof(gfx_frame_ubo), &no_frame, GL_DYNAMIC_STORAGE_BIT);
    glObjectLabel(GL_BUFFER, G.frame_ubo.id, -1, "frame_ubo");
    create_shadow_map(shadow_size);
    G.lookup_everywhere = d.lookup_everywhere;
    G.fog_everywhere = d.fog_everywhere;
    if (!d.uncached_shadows && shadow_size + 2 * SHADOW_CACHE_MARGIN <= G.info.max_texture_size)
        create_shadow_cache(shadow_size + 2 * SHADOW_CACHE_MARGIN);
    create_lines_buffer(d.line_vertices > 0 ? d.line_vertices : DEFAULT_LINE_VERTICES);
    if (!gfx_marker_build(&G.marker) || !build_sky(&G.sky)) {
        log_error("render: could not build the marker and sky meshes");
        gfx_shutdown();
        return false;
    }
    gfx_timer_init(&G.timer, "frame_timer");
    log_info("render: %s, %s (%s); MSAA %dx, shadow map %d (static casters %s), main pass %s", G.info.renderer,
             G.info.version, G.info.vendor, G.info.msaa_samples, G.info.shadow_map_size,
             G.shadow_cache.size ? "cached" : "redrawn", G.info.direct ? "in the window" : "off screen");
    return true;
}

static void free_target(void)
{
    if (G.main_fbo.id)
        glDeleteFramebuffers(1, &G.main_fbo.id);
    if (G.main_color.id)
        glDeleteRenderbuffers(1, &G.main_color.id);
    if (G.main_depth.id)
        glDeleteRenderbuffers(1, &G.main_depth.id);
    G.main_fbo.id = G.main_color.id = G.main_depth.id = 0;
    G.target_w = G.target_h = 0;
}

void gfx_shutdown(void)
{
    if (!G.inited)
        return;
    gfx_level_free();
    gfx_mesh_free(&G.marker);
    gfx_timer_free(&G.timer);
    free_target();
    for (int v = 0; v < SCENE_VARIANTS; v++)
        gfx_shader_program_free(&G.scene[v]);
    gfx_shader_program_free(&G.shadow);
    gfx_shader_program_free(&G.sky_prog);
    gfx_shader_program_free(&G.lines);
    if (G.frame_ubo.id)
        glDeleteBuffers(1, &G.frame_ubo.id);
    if (G.lines_vbo.id)
        glDeleteBuffers(1, &G.lines_vbo.id);
    if (G.lines_vao.id)
        glDeleteVertexArrays(1, &G.lines_vao.id);
    gfx_mesh_free(&G.sky);
    if (G.shadow_fbo.id)
        glDeleteFramebuffers(1, &G.shadow_fbo.id);
    if (G.shadow_tex.id)
        glDeleteTextures(1, &G.shadow_tex.id);
    if (G.shadow_cache.fbo.id)
        glDeleteFramebuffers(1, &G.shadow_cache.fbo.id);
    if (G.shadow_cache.tex.id)
        glDeleteTextures(1, &G.shadow_cache.tex.id);
    for (int i = 0; i < GFX_FRAMES_IN_FLIGHT; i++)
        if (G.frame_fence[i])
            glDeleteSync(G.frame_fence[i]);
    gfx_validate_shutdown();
    memset(&G, 0, sizeof G);
}

const gfx_info *gfx_get_info(void) { return &G.info; }

void gfx_bind_frame_uniforms(void) { glBindBufferBase(GL_UNIFORM_BUFFER, UBO_FRAME, G.frame_ubo.id); }

bool gfx_level_load(const level_t *lvl)
{
    if (!G.inited) {
        log_error("render: gfx_level_load before gfx_init");
        return false;
    }
    gfx_level_free();
    return gfx_level_build(&G.level, lvl);
}

void gfx_level_free(void)
{
    if (!G.inited)
        return;
    gfx_level_gpu_free(&G.level);
    /* The shadow cache holds the old level's casters. */
    G.level_generation++;
}

bool gfx_add_draw_hook(gfx_draw_fn fn, void *user)
{
    if (!fn || G.hook_count >= GFX_MAX_DRAW_HOOKS) {
        log_error("render: no room for another draw hook (max %d)", GFX_MAX_DRAW_HOOKS);
        return false;
    }
    G.hooks[G.hook_count++] = (draw_hook){fn, user};
    return true;
}

void gfx_remove_draw_hook(gfx_draw_fn fn, void *user)
{
    for (int i = 0; i < G.hook_count; i++) {
        if (G.hooks[i].fn == fn && G.hooks[i].user == user) {
            memmove(&G.hooks[i], &G.hooks[i + 1], (size_t)(G.hook_count - i - 1) * sizeof G.hooks[0]);
            G.hook_count--;
            return;
        }
    }
}

/* (Re)creates the offscreen main target when the size changes (only on
 * resize). Drawing offscreen keeps the result independent of how the app set
 * up the default framebuffer (no depth buffer, sRGB or multisampling needed). */
static bool ensure_target(int w, int h)
{
    if (G.main_fbo.id && G.target_w == w && G.target_h == h)
        return true;
    free_target();
    int s = G.info.msaa_samples;
    glCreateRenderbuffers(1, &G.main_color.id);
    glCreateRenderbuffers(1, &G.main_depth.id);
    if (s > 1) {
        glNamedRenderbufferStorageMultisample(G.main_color.id, s, GL_RGBA8, w, h);
        glNamedRenderbufferStorageMultisample(G.main_depth.id, s, GL_DEPTH_COMPONENT24, w, h);
    } else {
        glNamedRenderbufferStorage(G.main_color.id, GL_RGBA8, w, h);
        glNamedRenderbufferStorage(G.main_depth.id, GL_DEPTH_COMPONENT24, w, h);
    }
    glObjectLabel(GL_RENDERBUFFER, G.main_color.id, -1, "main.color");
    glObjectLabel(GL_RENDERBUFFER, G.main_depth.id, -1, "main.depth");
    glCreateFramebuffers(1, &G.main_fbo.id);
    glNamedFramebufferRenderbuffer(G.main_fbo.id, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, G.main_color.id);
    glNamedFramebufferRenderbuffer(G.main_fbo.id, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, G.main_depth.id);
    glObjectLabel(GL_FRAMEBUFFER, G.main_fbo.id, -1, "main.fbo");
    if (glCheckNamedFramebufferStatus(G.main_fbo.id, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        free_target();
        if (s > 1) {
            log_warn("render: %dx MSAA target incomplete, drawing without MSAA", s);
            G.info.msaa_samples = 1;
            return ensure_target(w, h);
        }
        log_error("render: %dx%d main target incomplete", w, h);
        return false;
    }
    G.target_w = w;
    G.target_h = h;
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
typedef struct shadow_fit {
    mat4 light_view;
    float radius;  /* half-size, cm */
    float texel;   /* cm */
    float cx, cy;  /* window centre in light view space, a multiple of texel */
    float zc;      /* depth-range centre, a multiple of SHADOW_DEPTH_STEP_CM */
} shadow_fit;

static void fit_shadow(const gfx_frame_desc *f, const vec3 sun, shadow_fit *fit)
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
    fit->texel = 2.0f * radius / (float)G.info.shadow_map_size;
    fit->cx = floorf(fc[0] / fit->texel) * fit->texel;
    fit->cy = floorf(fc[1] / fit->texel) * fit->texel;
    /* View space looks down -Z: the focus lies at distance -fc[2]. */
    fit->zc = roundf(-fc[2] / SHADOW_DEPTH_STEP_CM) * SHADOW_DEPTH_STEP_CM;
}

/* The projection of a window of HALF cm around (CX, CY) on FIT's grid. */
static void shadow_projection(const shadow_fit *fit, float cx, float cy, float half, mat4 out)
{
    float depth = fit->radius + SHADOW_DEPTH_MARGIN_CM;
    mat4 light_proj;
    glm_ortho(cx - half, cx + half, cy - half, cy + half, fit->zc - depth, fit->zc + depth, light_proj);
    glm_mat4_mul(light_proj, (vec4 *)fit->light_view, out);
}

static void fill_frame_ubo(const gfx_frame_desc *f, gfx_frame_ubo *u, gfx_pass_info *pi, shadow_fit *fit_out,
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
    shadow_fit fit;
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
    float radius_texel = 2.0f / ((float)G.info.shadow_map_size * fabsf(lvp[0][0]));
    /* Normal offset of ~1.5 texels in world cm; depth bias in [0,1] depth units. */
    set_vec4(u->shadow, 1.0f / (float)G.info.shadow_map_size, 1.5f * radius_texel, 0.0005f, 0.85f);

    memset(pi, 0, sizeof *pi);
    pi->caster_u_model = -1;
    pi->frame = f;
    pi->fog_free_cm = (f->layers & GFX_LAYER_FOG) ? FOG_START_CM - FOG_FREE_MARGIN_CM : -1.0f;
    memcpy(pi->view_proj, vp, sizeof pi->view_proj);
    memcpy(pi->light_view_proj, lvp, sizeof pi->light_view_proj);
    *fit_out = fit;
    memcpy(sun_out, sun, sizeof(vec3));
}

static void marker_model(const gfx_marker *m, mat4 out)
{
    glm_mat4_identity(out);
    glm_translate(out, (float *)m->pos);
    /* Heading 0 faces +Z; a positive rotation about +Y turns +Z towards +X. */
    glm_rotate_y(out, m->heading_rad, out);
}

/* The level's walls and crouch tunnels (static casters). */
static void draw_level_props(const gfx_frame_desc *f, const scene_uniforms *u)
{
    glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
    glProgramUniform1i(u->prog, u->mode, 1);
    if (G.level.loaded && (f->layers & GFX_LAYER_WALLS))
        gfx_mesh_draw(&G.level.walls);
    if (G.level.loaded && (f->layers & GFX_LAYER_AREAS))
        gfx_mesh_draw(&G.level.crouch);
}

static void draw_marker(const gfx_frame_desc *f, const scene_uniforms *u)
{
    if (f->layers & GFX_LAYER_MARKER) {
        mat4 model;
        marker_model(&f->marker, model);
        glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, (const float *)model);
        glProgramUniform1i(u->prog, u->mode, 1);
        gfx_mesh_draw(&G.marker);
    }
}

static void draw_props(const gfx_frame_desc *f, const scene_uniforms *u)
{
    draw_level_props(f, u);
    draw_marker(f, u);
}

/* Sets the terrain's uniforms on the program of U. */
static void terrain_uniforms(const scene_uniforms *u)
{
    glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
    glProgramUniform1i(u->prog, u->mode, 0);
    glProgramUniform2f(u->prog, u->height_range, G.level.height_min, G.level.height_max);
}

/* The terrain's chunks in the frustum of CULL_VIEW_PROJ, drawn with the
 * program of U (bound by the caller): the shadow pass's depth. */
static void draw_terrain_depth(const gfx_frame_desc *f, const scene_uniforms *u, const float cull_view_proj[16],
                               int *chunks, int *triangles)
{
    *chunks = *triangles = 0;
    if (!G.level.loaded || !(f->layers & GFX_LAYER_TERRAIN))
        return;
    int n = gfx_level_cull_terrain(&G.level, cull_view_proj, f->eye, SHADOW_TERRAIN_MIN_LOD, NULL, NULL);
    terrain_uniforms(u);
    gfx_level_draw_culled(&G.level, 0, n);
    gfx_level_draw_culled_skirts(&G.level, 0, n);
    *chunks = G.level.last_drawn_chunks;
    *triangles = G.level.last_drawn_triangles;
}

/* The main pass's terrain in groups (gfx_level.h), each by the cheapest
 * scene program that gives its pixels: chunks wholly outside the shadow
 * map without the lookup (their shadow term is 1 either way, and the
 * lookup is a good part of the terrain's cost on software rasterisers),
 * chunks wholly before the fog's start without the fog (its amount is 0
 * there: four interpolated values a pixel saved). SHADOWS: the frame's. */
static void draw_terrain(const gfx_frame_desc *f, bool shadows, const gfx_pass_info *pi)
{
    G.stats.terrain_chunks = G.stats.terrain_triangles = G.stats.terrain_chunks_unshadowed = 0;
    G.stats.terrain_chunks_unfogged = 0;
    if (!G.level.loaded || !(f->layers & GFX_LAYER_TERRAIN))
        return;
    gfx_terrain_split split = {
        /* The lookup is pushed off the surface by up to 4.5 texels (frame.glsl). */
        .light_view_proj = shadows && !G.lookup_everywhere ? pi->light_view_proj : NULL,
        .light_margin = 16.0f / (float)G.info.shadow_map_size,
        .fog_free_cm = G.fog_everywhere ? 0.0f : pi->fog_free_cm,
        .all_skirts = G.all_skirts};
    int groups[GFX_TERRAIN_GROUPS];
    gfx_level_cull_terrain(&G.level, pi->view_proj, f->eye, 0, &split, groups);
    /* Every group's surfaces, then every group's skirts, pushed back by a
     * few depth steps: a skirt left out (gfx_level.h) is strictly behind a
     * surface, but one drawn could win a tie, or a step lost to rounding
     * at grazing angles far away (a speck in a grid line); pushed back,
     * none does, and leaving skirts out changes no pixel. */
    const scene_uniforms *progs[GFX_TERRAIN_GROUPS] = {0};
    for (int k = 0, first = 0; k < GFX_TERRAIN_GROUPS; first += groups[k], k++) {
        if (groups[k] == 0)
            continue;
        int variant = (!shadows || (k & GFX_TERRAIN_BEYOND_MAP) ? SCENE_NO_SHADOWS : 0) |
                      (k & GFX_TERRAIN_FOGGED ? 0 : SCENE_NO_FOG);
        progs[k] = scene_program(variant);
        glUseProgram(progs[k]->prog);
        terrain_uniforms(progs[k]);
        gfx_level_draw_culled(&G.level, first, groups[k]);
        if (k & GFX_TERRAIN_BEYOND_MAP)
            G.stats.terrain_chunks_unshadowed += groups[k];
        if (!(k & GFX_TERRAIN_FOGGED))
            G.stats.terrain_chunks_unfogged += groups[k];
    }
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(SKIRT_OFFSET_FACTOR, SKIRT_OFFSET_UNITS);
    for (int k = 0, first = 0; k < GFX_TERRAIN_GROUPS; first += groups[k], k++) {
        if (groups[k] == 0)
            continue;
        glUseProgram(progs[k]->prog); /* its uniforms set for the surfaces */
        gfx_level_draw_culled_skirts(&G.level, first, groups[k]);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
    G.stats.terrain_chunks = G.level.last_drawn_chunks;
    G.stats.terrain_triangles = G.level.last_drawn_triangles;
}

static void run_hooks(const gfx_pass_info *pi)
{
    for (int i = 0; i < G.hook_count; i++)
        G.hooks[i].fn(pi, G.hooks[i].user);
}

/* The layers the static casters' cache draws. */
#define SHADOW_CACHE_LAYERS (GFX_LAYER_TERRAIN | GFX_LAYER_WALLS | GFX_LAYER_AREAS)

/* Depth of the static casters (level props, terrain) into the bound target
 * through LVP. */
static void draw_static_casters(const gfx_frame_desc *f, const scene_uniforms *u, const float *lvp)
{
    glProgramUniformMatrix4fv(G.shadow.id, G.shadow_u_light_view_proj, 1, GL_FALSE, lvp);
    draw_level_props(f, u);
    draw_terrain_depth(f, u, lvp, &G.stats.shadow_terrain_chunks, &G.stats.shadow_terrain_triangles);
}

/* Where FIT's window starts in the cache, in texels; false when the cache
 * does not hold it (invalid, drawn for other inputs, or the window has left
 * its margin). */
static bool shadow_cache_offset(const gfx_frame_desc *f, const shadow_fit *fit, const vec3 sun, int *ox, int *oy)
{
    const shadow_cache *c = &G.shadow_cache;
    if (!c->valid || c->radius != fit->radius || c->zc != fit->zc || memcmp(c->sun, sun, sizeof c->sun) != 0 ||
        c->layers != (f->layers & SHADOW_CACHE_LAYERS) || c->level_generation != G.level_generation)
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
static void redraw_shadow_cache(const gfx_frame_desc *f, const shadow_fit *fit, const vec3 sun,
                                const scene_uniforms *u)
{
    shadow_cache *c = &G.shadow_cache;
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
    c->level_generation = G.level_generation;
    G.stats.shadow_cache_redrawn = true;
    G.stats.shadow_cache_redraws++;
}

static void shadow_pass(const gfx_frame_desc *f, gfx_pass_info *pi, const shadow_fit *fit, const vec3 sun)
{
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(SHADOW_OFFSET_FACTOR, SHADOW_OFFSET_UNITS);
    glUseProgram(G.shadow.id);
    /* The shadow program has only u_model; GL ignores location -1. */
    scene_uniforms u = {G.shadow.id, G.shadow_u_model, -1, -1};
    int size = G.info.shadow_map_size, ox = 0, oy = 0;
    bool cached = G.shadow_cache.size > 0 && !G.skip_shadow_cache;
    if (cached && !shadow_cache_offset(f, fit, sun, &ox, &oy)) {
        redraw_shadow_cache(f, fit, sun, &u);
        cached = shadow_cache_offset(f, fit, sun, &ox, &oy);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, G.shadow_fbo.id);
    glViewport(0, 0, size, size);
    glProgramUniformMatrix4fv(G.shadow.id, G.shadow_u_light_view_proj, 1, GL_FALSE, pi->light_view_proj);
    if (cached) {
        glCopyImageSubData(G.shadow_cache.tex.id, GL_TEXTURE_2D, 0, ox, oy, 0, G.shadow_tex.id, GL_TEXTURE_2D, 0, 0,
                           0, 0, size, size, 1);
    } else {
        glClear(GL_DEPTH_BUFFER_BIT);
    }
    draw_marker(f, &u);
    pi->pass = GFX_PASS_SHADOW;
    pi->caster = G.shadow;
    pi->caster_u_model = G.shadow_u_model;
    run_hooks(pi);
    pi->caster.id = 0;
    pi->caster_u_model = -1;
    if (!cached) {
        glUseProgram(G.shadow.id);
        draw_static_casters(f, &u, pi->light_view_proj);
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
}

static void draw_debug_lines(const debug_lines *dl)
{
    if (!dl || !dl->vertices || dl->count < 2)
        return;
    int n = dl->count & ~1;
    if (n > G.line_vertices)
        n = G.line_vertices & ~1;
    glNamedBufferSubData(G.lines_vbo.id, 0, (GLsizeiptr)n * (GLsizeiptr)sizeof(debug_line_vertex), dl->vertices);
    glUseProgram(G.lines.id);
    glBindVertexArray(G.lines_vao.id);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    gfx_validate_draw("debug_lines");
    glDrawArrays(GL_LINES, 0, n);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
}

static void main_pass(const gfx_frame_desc *f, gfx_pass_info *pi, GLuint target)
{
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, f->width, f->height);
    glDepthMask(GL_TRUE);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glBindTextureUnit(TEX_UNIT_SHADOW, G.shadow_tex.id);
    glPolygonMode(GL_FRONT_AND_BACK, f->wireframe ? GL_LINE : GL_FILL);

    /* Near occluders first (props, then hooks: the character), the terrain
     * last: software rasterisers skip shading of pixels that fail the early
     * depth test, and the terrain is the most expensive surface. */
    bool shadows = (f->layers & GFX_LAYER_SHADOWS) != 0;
    const scene_uniforms *u = scene_program(shadows ? 0 : SCENE_NO_SHADOWS);
    glUseProgram(u->prog);
    draw_props(f, u);
    pi->pass = GFX_PASS_MAIN;
    run_hooks(pi);
    draw_terrain(f, shadows, pi);

    /* Sky after the opaque geometry: only uncovered pixels pass the depth test. */
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glUseProgram(G.sky_prog.id);
    gfx_mesh_draw(&G.sky);
    glDepthFunc(GL_LESS);

    /* Translucent jump discs lie on the terrain: pull them towards the camera. */
    if (G.level.loaded && (f->layers & GFX_LAYER_AREAS) && G.level.jump.index_count > 0) {
        glPolygonMode(GL_FRONT_AND_BACK, f->wireframe ? GL_LINE : GL_FILL);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(-1.0f, -4.0f);
        glUseProgram(u->prog);
        glProgramUniformMatrix4fv(u->prog, u->model, 1, GL_FALSE, IDENTITY);
        glProgramUniform1i(u->prog, u->mode, 1);
        gfx_mesh_draw(&G.level.jump);
        glDisable(GL_POLYGON_OFFSET_FILL);
        glDisable(GL_BLEND);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    }
    glDepthMask(GL_TRUE);

    if (f->layers & GFX_LAYER_DEBUG_LINES)
        draw_debug_lines(f->lines);
}

void gfx_render_frame(const gfx_frame_desc *f)
{
    if (!G.inited || !f || f->width <= 0 || f->height <= 0)
        return;
    gfx_timer_begin(&G.timer);
    unsigned redraws = G.stats.shadow_cache_redraws;
    memset(&G.stats, 0, sizeof G.stats);
    G.stats.shadow_cache_redraws = redraws;

    gfx_frame_ubo ubo;
    gfx_pass_info pi;
    shadow_fit fit;
    vec3 sun;
    fill_frame_ubo(f, &ubo, &pi, &fit, sun);
    glNamedBufferSubData(G.frame_ubo.id, 0, sizeof ubo, &ubo);
    glBindBufferBase(GL_UNIFORM_BUFFER, UBO_FRAME, G.frame_ubo.id);

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

    if (G.info.direct) {
        main_pass(f, &pi, 0);
    } else if (ensure_target(f->width, f->height)) {
        glEnable(GL_MULTISAMPLE);
        main_pass(f, &pi, G.main_fbo.id);
        /* Resolves MSAA (or copies) into the app's back buffer. */
        glBlitNamedFramebuffer(G.main_fbo.id, 0, 0, 0, f->width, f->height, 0, 0, f->width, f->height,
                               GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }

    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_DEPTH_TEST);
    gfx_timer_end(&G.timer);
}

bool gfx_read_pixels_rgb(int width, int height, uint8_t *out_rgb)
{
    if (!G.inited || width <= 0 || height <= 0 || !out_rgb)
        return false;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glFinish();
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, out_rgb);
    /* GL rows go bottom-up; images go top-down. */
    size_t row = (size_t)width * 3;
    uint8_t tmp[4096 * 3];
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = out_rgb + (size_t)y * row, *b = out_rgb + (size_t)(height - 1 - y) * row;
        for (size_t off = 0; off < row; off += sizeof tmp) {
            size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
            memcpy(tmp, a + off, n);
            memcpy(a + off, b + off, n);
            memcpy(b + off, tmp, n);
        }
    }
    return glGetError() == GL_NO_ERROR;
}

/* The PNG as stb_image_write hands it out, gathered in memory. */
typedef struct png_bytes {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} png_bytes;

static void png_append(void *context, void *data, int size)
{
    png_bytes *b = context;
    if (b->failed || size <= 0)
        return;
    if (b->size + (size_t)size > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 1u << 16;
        while (cap < b->size + (size_t)size)
            cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, data, (size_t)size);
    b->size += (size_t)size;
}

bool gfx_screenshot_png(const char *path, int width, int height)
{
    if (!G.inited || width <= 0 || height <= 0) {
        log_error("%s: no frame to capture (%dx%d)", path, width, height);
        return false;
    }
    uint8_t *rgb = malloc((size_t)width * (size_t)height * 3);
    if (!rgb) {
        log_error("%s: out of memory for a %dx%d screenshot", path, width, height);
        return false;
    }
    /* Encoded in memory, then written by file_write_all: stbi_write_png's
     * own file output ignores a failed close, so a full disk (/dev/full)
     * looked like success. */
    png_bytes png = {0};
    bool ok = gfx_read_pixels_rgb(width, height, rgb);
    if (!ok)
        log_error("%s: reading the back buffer failed", path);
    else if (!stbi_write_png_to_func(png_append, &png, width, height, 3, rgb, width * 3) || png.failed) {
        log_error("%s: encoding the %dx%d PNG failed (out of memory?)", path, width, height);
        ok = false;
    } else {
        ok = file_write_all(path, png.data, png.size);
    }
    free(png.data);
    free(rgb);
    return ok;
}

const gfx_frame_stats *gfx_get_frame_stats(void) { return &G.stats; }

double gfx_last_gpu_ms(void) { return gfx_timer_ms(&G.timer); }

void gfx_set_finish_timing(bool on) { gfx_timer_set_finish_mode(&G.timer, on); }

/* A pending fence older than this means the GPU hung: stop waiting (ns). */
#define PACE_TIMEOUT_NS 2000000000ull

double gfx_pace_frames(void)
{
    int now = (int)(G.paced_frames % GFX_FRAMES_IN_FLIGHT);
    int oldest = (int)((G.paced_frames + 1) % GFX_FRAMES_IN_FLIGHT);
    if (G.frame_fence[now])
        glDeleteSync(G.frame_fence[now]);
    G.frame_fence[now] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    G.paced_frames++;
    double waited = 0.0;
    GLsync f = G.frame_fence[oldest];
    if (f && glClientWaitSync(f, 0, 0) == GL_TIMEOUT_EXPIRED) {
        double t0 = gfx_wall_seconds();
        glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, PACE_TIMEOUT_NS);
        waited = (gfx_wall_seconds() - t0) * 1e3;
    }
    return waited;
}

void gfx_set_switches(const gfx_switches *s)
{
    G.lookup_everywhere = s->lookup_everywhere;
    G.fog_everywhere = s->fog_everywhere;
    G.skip_shadow_cache = s->uncached_shadows;
    G.all_skirts = s->all_skirts;
}
