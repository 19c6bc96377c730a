#include "render/gfx.h"
#include "render/gfx_internal.h"

#include "core/file.h"
#include "core/log.h"
#include "render/gfx_level.h"
#include "render/gfx_mesh.h"
#include "render/gfx_shader.h"
#include "render/gfx_timer.h"
#include "render/gfx_validate.h"
#include "render/sample_cull.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <cglm/cglm.h>
#include <stb_image_write.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The renderer's state (gfx_internal.h). */
gfx_state_t gfx_g;

/* Defaults. MSAA is measured on llvmpipe (see the test's timing): 4x adds
 * little to a frame whose cost is dominated by fragment shading. */
enum {
    DEFAULT_SHADOW_MAP_SIZE = 1024,
    DEFAULT_MSAA_SAMPLES = 1,
    MIN_GL_MAJOR = 4,
    MIN_GL_MINOR = 3,
    DEFAULT_LINE_VERTICES = 1 << 16 /* debug line vertices per frame; more are not drawn */
};

/* Shadow depth: over the window's depth range, 2 x (radius +
 * SHADOW_DEPTH_MARGIN_CM) = 174-280 m, a 16-bit step is 0.27-0.43 cm, a
 * 32nd of the depth bias (0.0005 of the range). Half the memory of 24 bits
 * (stored in 32): the map and its cache take 5.4 MB less in RAM on a
 * software rasteriser. Against 24 bits, 1-12 of 345,600 pixels changed in
 * the six levels' test views, all on shadow edges. */
#define SHADOW_DEPTH_FORMAT GL_DEPTH_COMPONENT16

static void copy_gl_string(char *dst, GLenum name)
{
    const char *s = (const char *)glGetString(name);
    snprintf(dst, GFX_INFO_STRING_MAX, "%s", s ? s : "unknown");
}

static void query_info(gfx_info_t *info)
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

static void query_limits(gfx_info_t *info)
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

static scene_uniforms_t scene_uniforms_of(GLuint prog)
{
    scene_uniforms_t u = {prog, glGetUniformLocation(prog, "u_model"), glGetUniformLocation(prog, "u_mode"),
                          glGetUniformLocation(prog, "u_height_range")};
    return u;
}

static bool load_programs(void)
{
    if (!gfx_shader_program_load(&gfx_g.scene[0], "scene.vert", "scene.frag", NULL, "scene") ||
        !gfx_shader_program_load(&gfx_g.shadow, "shadow.vert", "shadow.frag", NULL, "shadow") ||
        !gfx_shader_program_load(&gfx_g.sky_prog, "sky.vert", "sky.frag", NULL, "sky") ||
        !gfx_shader_program_load(&gfx_g.lines, "lines.vert", "lines.frag", NULL, "debug_lines"))
        return false;
    gfx_g.shadow_u_model = glGetUniformLocation(gfx_g.shadow.id, "u_model");
    gfx_g.shadow_u_light_view_proj = glGetUniformLocation(gfx_g.shadow.id, "u_light_view_proj");
    gfx_g.scene_u[0] = scene_uniforms_of(gfx_g.scene[0].id);
    return true;
}

/* The scene program of VARIANT (SCENE_* bits), built when a frame first
 * asks for it: the menu's toggles, or a shadowed frame's terrain beyond
 * the shadow map or before the fog (each program costs about 1 MB in
 * llvmpipe). The full program stands in for one that cannot be built. */
const scene_uniforms_t *gfx_scene_program(int variant)
{
    static const char *const defines[SCENE_VARIANTS] = {NULL, "#define STRIDER_NO_SHADOWS\n",
                                                        "#define STRIDER_NO_FOG\n",
                                                        "#define STRIDER_NO_SHADOWS\n#define STRIDER_NO_FOG\n"};
    static const char *const labels[SCENE_VARIANTS] = {"scene", "scene_no_shadows", "scene_no_fog",
                                                       "scene_no_shadows_no_fog"};
    if (variant <= 0 || variant >= SCENE_VARIANTS)
        return &gfx_g.scene_u[0];
    if (!gfx_g.scene[variant].id && !gfx_g.scene_failed[variant]) {
        if (gfx_shader_program_load(&gfx_g.scene[variant], "scene.vert", "scene.frag", defines[variant],
                                    labels[variant]))
            gfx_g.scene_u[variant] = scene_uniforms_of(gfx_g.scene[variant].id);
        else
            gfx_g.scene_failed[variant] = true;
    }
    return &gfx_g.scene_u[gfx_g.scene[variant].id ? variant : 0];
}

static void create_shadow_map(int size)
{
    glCreateTextures(GL_TEXTURE_2D, 1, &gfx_g.shadow_tex.id);
    glTextureStorage2D(gfx_g.shadow_tex.id, 1, SHADOW_DEPTH_FORMAT, size, size);
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    /* Hardware depth comparison: each bilinear tap is a 2x2 PCF. */
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(gfx_g.shadow_tex.id, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glObjectLabel(GL_TEXTURE, gfx_g.shadow_tex.id, -1, "shadow_map");
    glCreateFramebuffers(1, &gfx_g.shadow_fbo.id);
    glNamedFramebufferTexture(gfx_g.shadow_fbo.id, GL_DEPTH_ATTACHMENT, gfx_g.shadow_tex.id, 0);
    glNamedFramebufferDrawBuffer(gfx_g.shadow_fbo.id, GL_NONE);
    glNamedFramebufferReadBuffer(gfx_g.shadow_fbo.id, GL_NONE);
    glObjectLabel(GL_FRAMEBUFFER, gfx_g.shadow_fbo.id, -1, "shadow_fbo");
}

/* The static casters' cache (see SHADOW_CACHE_MARGIN): depth only, never
 * sampled, copied from. */
static void create_shadow_cache(int size)
{
    glCreateTextures(GL_TEXTURE_2D, 1, &gfx_g.shadow_cache.tex.id);
    glTextureStorage2D(gfx_g.shadow_cache.tex.id, 1, SHADOW_DEPTH_FORMAT, size, size);
    glObjectLabel(GL_TEXTURE, gfx_g.shadow_cache.tex.id, -1, "shadow_cache");
    glCreateFramebuffers(1, &gfx_g.shadow_cache.fbo.id);
    glNamedFramebufferTexture(gfx_g.shadow_cache.fbo.id, GL_DEPTH_ATTACHMENT, gfx_g.shadow_cache.tex.id, 0);
    glNamedFramebufferDrawBuffer(gfx_g.shadow_cache.fbo.id, GL_NONE);
    glNamedFramebufferReadBuffer(gfx_g.shadow_cache.fbo.id, GL_NONE);
    glObjectLabel(GL_FRAMEBUFFER, gfx_g.shadow_cache.fbo.id, -1, "shadow_cache_fbo");
    gfx_g.shadow_cache.size = size;
}

static void create_lines_buffer(int vertices)
{
    gfx_g.line_vertices = vertices;
    glCreateBuffers(1, &gfx_g.lines_vbo.id);
    glNamedBufferStorage(gfx_g.lines_vbo.id, (GLsizeiptr)vertices * (GLsizeiptr)sizeof(debug_line_vertex_t), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    glObjectLabel(GL_BUFFER, gfx_g.lines_vbo.id, -1, "debug_lines.vertices");
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, gfx_g.lines_vbo.id, 0, sizeof(debug_line_vertex_t));
    glEnableVertexArrayAttrib(vao, ATTR_POSITION);
    glVertexArrayAttribFormat(vao, ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, offsetof(debug_line_vertex_t, pos));
    glVertexArrayAttribBinding(vao, ATTR_POSITION, 0);
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribFormat(vao, ATTR_COLOR, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(debug_line_vertex_t, rgba));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, 0);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, "debug_lines.vao");
    gfx_g.lines_vao.id = vao;
}

/* A unit sphere for the sky, its rings packed towards the horizon where
 * the gradient changes fastest (colours are interpolated per vertex). */
static bool build_sky(gfx_mesh_t *m)
{
    static const float lat_deg[] = {-90,   -40, -15,   -6, -2, 0,  1.5f, 3,  5,  7.5f,
                                    10.5f, 14,  18.5f, 24, 31, 40, 52,   66, 80, 90};
    enum { SEGMENTS = 48, RINGS = sizeof lat_deg / sizeof lat_deg[0] };
    gfx_mesh_builder_t b;
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

bool gfx_init(const gfx_desc_t *desc)
{
    if (gfx_g.inited)
        gfx_shutdown();
    memset(&gfx_g, 0, sizeof gfx_g);
    gfx_desc_t d = desc ? *desc : (gfx_desc_t){0};

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
    query_info(&gfx_g.info);
    if (gfx_g.info.major < MIN_GL_MAJOR || (gfx_g.info.major == MIN_GL_MAJOR && gfx_g.info.minor < MIN_GL_MINOR)) {
        log_error("OpenGL %d.%d or newer required, found %s (%s)", MIN_GL_MAJOR, MIN_GL_MINOR, gfx_g.info.version,
                  gfx_g.info.renderer);
        return false;
    }
    query_limits(&gfx_g.info);
    gfx_g.info.software = strstr(gfx_g.info.renderer, "llvmpipe") || strstr(gfx_g.info.renderer, "softpipe") ||
                          strstr(gfx_g.info.renderer, "SwiftShader");

    gfx_g.info.khr_debug = gfx_validate_init(d.debug);

    int samples = d.msaa_samples > 0 ? d.msaa_samples : DEFAULT_MSAA_SAMPLES;
    if (samples > gfx_g.info.max_samples)
        samples = gfx_g.info.max_samples;
    gfx_g.info.msaa_samples = samples < 1 ? 1 : samples;
    gfx_g.info.direct = gfx_g.info.msaa_samples == 1 && !d.offscreen && window_depth_bits() >= 24;
    int shadow_size = d.shadow_map_size > 0 ? d.shadow_map_size : DEFAULT_SHADOW_MAP_SIZE;
    if (shadow_size > gfx_g.info.max_texture_size)
        shadow_size = gfx_g.info.max_texture_size;
    gfx_g.info.shadow_map_size = shadow_size;

    gfx_g.inited = true; /* from here on, gfx_shutdown() cleans up whatever exists */
    if (!load_programs()) {
        gfx_shutdown();
        return false;
    }
    glCreateBuffers(1, &gfx_g.frame_ubo.id);
    /* Zeros until the first frame: passes outside a frame read it too
     * (gfx_bind_frame_uniforms). */
    static const gfx_frame_ubo_t no_frame;
    glNamedBufferStorage(gfx_g.frame_ubo.id, sizeof(gfx_frame_ubo_t), &no_frame, GL_DYNAMIC_STORAGE_BIT);
    glObjectLabel(GL_BUFFER, gfx_g.frame_ubo.id, -1, "frame_ubo");
    create_shadow_map(shadow_size);
    gfx_g.lookup_everywhere = d.lookup_everywhere;
    gfx_g.fog_everywhere = d.fog_everywhere;
    if (!d.uncached_shadows && shadow_size + 2 * SHADOW_CACHE_MARGIN <= gfx_g.info.max_texture_size)
        create_shadow_cache(shadow_size + 2 * SHADOW_CACHE_MARGIN);
    create_lines_buffer(d.line_vertices > 0 ? d.line_vertices : DEFAULT_LINE_VERTICES);
    if (!gfx_marker_build(&gfx_g.marker) || !build_sky(&gfx_g.sky)) {
        log_error("render: could not build the marker and sky meshes");
        gfx_shutdown();
        return false;
    }
    gfx_timer_init(&gfx_g.timer, "frame_timer");
    log_info("render: %s, %s (%s); MSAA %dx, shadow map %d (static casters %s), main pass %s", gfx_g.info.renderer,
             gfx_g.info.version, gfx_g.info.vendor, gfx_g.info.msaa_samples, gfx_g.info.shadow_map_size,
             gfx_g.shadow_cache.size ? "cached" : "redrawn", gfx_g.info.direct ? "in the window" : "off screen");
    return true;
}

void gfx_shutdown(void)
{
    if (!gfx_g.inited)
        return;
    gfx_level_free();
    gfx_mesh_free(&gfx_g.marker);
    gfx_timer_free(&gfx_g.timer);
    gfx_free_target();
    for (int v = 0; v < SCENE_VARIANTS; v++)
        gfx_shader_program_free(&gfx_g.scene[v]);
    gfx_shader_program_free(&gfx_g.shadow);
    gfx_shader_program_free(&gfx_g.sky_prog);
    gfx_shader_program_free(&gfx_g.lines);
    if (gfx_g.frame_ubo.id)
        glDeleteBuffers(1, &gfx_g.frame_ubo.id);
    if (gfx_g.lines_vbo.id)
        glDeleteBuffers(1, &gfx_g.lines_vbo.id);
    if (gfx_g.lines_vao.id)
        glDeleteVertexArrays(1, &gfx_g.lines_vao.id);
    gfx_mesh_free(&gfx_g.sky);
    if (gfx_g.shadow_fbo.id)
        glDeleteFramebuffers(1, &gfx_g.shadow_fbo.id);
    if (gfx_g.shadow_tex.id)
        glDeleteTextures(1, &gfx_g.shadow_tex.id);
    if (gfx_g.shadow_cache.fbo.id)
        glDeleteFramebuffers(1, &gfx_g.shadow_cache.fbo.id);
    if (gfx_g.shadow_cache.tex.id)
        glDeleteTextures(1, &gfx_g.shadow_cache.tex.id);
    for (int i = 0; i < GFX_FRAMES_IN_FLIGHT; i++)
        if (gfx_g.frame_fence[i])
            glDeleteSync(gfx_g.frame_fence[i]);
    gfx_validate_shutdown();
    memset(&gfx_g, 0, sizeof gfx_g);
}

const gfx_info_t *gfx_get_info(void) { return &gfx_g.info; }

void gfx_bind_frame_uniforms(void) { glBindBufferBase(GL_UNIFORM_BUFFER, UBO_FRAME, gfx_g.frame_ubo.id); }

bool gfx_level_load(const level_t *lvl)
{
    if (!gfx_g.inited) {
        log_error("render: gfx_level_load before gfx_init");
        return false;
    }
    gfx_level_free();
    return gfx_level_build(&gfx_g.level, lvl);
}

void gfx_level_free(void)
{
    if (!gfx_g.inited)
        return;
    gfx_level_gpu_free(&gfx_g.level);
    /* The shadow cache holds the old level's casters. */
    gfx_g.level_generation++;
}

bool gfx_add_draw_hook(gfx_draw_fn_t fn, void *user)
{
    if (!fn || gfx_g.hook_count >= GFX_MAX_DRAW_HOOKS) {
        log_error("render: no room for another draw hook (max %d)", GFX_MAX_DRAW_HOOKS);
        return false;
    }
    gfx_g.hooks[gfx_g.hook_count++] = (draw_hook_t){fn, user};
    return true;
}

void gfx_remove_draw_hook(gfx_draw_fn_t fn, void *user)
{
    for (int i = 0; i < gfx_g.hook_count; i++) {
        if (gfx_g.hooks[i].fn == fn && gfx_g.hooks[i].user == user) {
            memmove(&gfx_g.hooks[i], &gfx_g.hooks[i + 1], (size_t)(gfx_g.hook_count - i - 1) * sizeof gfx_g.hooks[0]);
            gfx_g.hook_count--;
            return;
        }
    }
}

bool gfx_read_pixels_rgb(int width, int height, uint8_t *out_rgb)
{
    if (!gfx_g.inited || width <= 0 || height <= 0 || !out_rgb)
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
typedef struct png_bytes_t {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} png_bytes_t;

static void png_append(void *context, void *data, int size)
{
    png_bytes_t *b = context;
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
    if (!gfx_g.inited || width <= 0 || height <= 0) {
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
    png_bytes_t png = {0};
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

const gfx_frame_stats_t *gfx_get_frame_stats(void) { return &gfx_g.stats; }

double gfx_last_gpu_ms(void) { return gfx_timer_ms(&gfx_g.timer); }

void gfx_set_finish_timing(bool on) { gfx_timer_set_finish_mode(&gfx_g.timer, on); }

/* A pending fence older than this means the GPU hung: stop waiting (ns). */
#define PACE_TIMEOUT_NS 2000000000ull

double gfx_pace_frames(void)
{
    int now = (int)(gfx_g.paced_frames % GFX_FRAMES_IN_FLIGHT);
    int oldest = (int)((gfx_g.paced_frames + 1) % GFX_FRAMES_IN_FLIGHT);
    if (gfx_g.frame_fence[now])
        glDeleteSync(gfx_g.frame_fence[now]);
    gfx_g.frame_fence[now] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    gfx_g.paced_frames++;
    double waited = 0.0;
    GLsync f = gfx_g.frame_fence[oldest];
    if (f && glClientWaitSync(f, 0, 0) == GL_TIMEOUT_EXPIRED) {
        double t0 = gfx_wall_seconds();
        glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, PACE_TIMEOUT_NS);
        waited = (gfx_wall_seconds() - t0) * 1e3;
    }
    return waited;
}

void gfx_set_switches(const gfx_switches_t *s)
{
    gfx_g.lookup_everywhere = s->lookup_everywhere;
    gfx_g.fog_everywhere = s->fog_everywhere;
    gfx_g.skip_shadow_cache = s->uncached_shadows;
    gfx_g.all_skirts = s->all_skirts;
    sample_cull_set_scalar(s->scalar_cull);
}
