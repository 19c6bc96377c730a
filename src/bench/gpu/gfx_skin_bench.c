#include "bench/gpu/gfx_skin_bench.h"

#include "bench/bench_time.h"
#include "core/log.h"
#include "render/gfx_character.h"
#include "render/gfx_shader.h"
#include "render/gfx_validate.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    DEFAULT_TARGET_SIZE = 512,
    MAX_TARGET_SIZE = 4096,
    METHODS = 3,           /* skin_method: points, matrix, DQS */
    METHOD_LBS_MATRIX = 1, /* the method of the binned, compressed and pass paths */
    METHOD_DQS = 2
};
#define LABEL_MAX 96
/* The light of the depth pass looks down at this angle from the horizon. */
#define LIGHT_ELEVATION_RAD 1.0f

/* The uncompressed stream (64 bytes): what vcompress's 24 bytes replace. */
typedef struct raw_vertex_t {
    float pos[3];
    float nrm[3];
    float tan[4];
    uint16_t joints[4];
    float weights[4];
} raw_vertex_t;
_Static_assert(sizeof(raw_vertex_t) == 64, "64-byte uncompressed vertex");

/* Byte offsets inside the packed 24-byte vertex (anim/vcompress.h). */
enum { PACKED_POS = 0, PACKED_NORMAL = 8, PACKED_TANGENT = 12, PACKED_JOINTS = 16, PACKED_WEIGHTS = 20 };

/* Transform-feedback varyings of skin_bench.vert, in buffer order. */
static const char *const k_varyings[] = {"v_position", "v_normal", "v_tangent"};

typedef struct program_t {
    gfx_program_t prog;
    GLint u_influences, u_joint_count, u_view_proj, u_light_dir, u_pos_bias, u_pos_extent, u_t, u_count;
} program_t;

struct gfx_skin_bench_t {
    char label[LABEL_MAX];
    int vertex_count, joint_count, index_count, size;
    bool has_bins, has_packed, has_passes, has_keys;
    int bin_first[GFX_SKIN_BENCH_MAX_INFLUENCES], bin_count[GFX_SKIN_BENCH_MAX_INFLUENCES];
    int *bin_order;
    float pos_bias[3], pos_extent[3];
    float cam_vp[16], light_vp[16];
    gfx_buffer_t raw, binned, packed, ibo, palette, dq, tf_out, keys;
    gfx_vertex_array_t vao_raw, vao_binned, vao_packed, vao_skinned, vao_keys;
    GLuint tfo;
    gfx_query_t query;
    GLuint depth_fbo, main_fbo;
    gfx_texture_t shadow_depth, main_color, main_depth;
    program_t skin[METHODS];                        /* the game's variants (uniform count) */
    program_t fixed[GFX_SKIN_BENCH_MAX_INFLUENCES]; /* SKIN_INFLUENCES 1..4, LBS matrix */
    program_t compressed;
    program_t pass_depth, pass_main, pass_main_tf; /* per pass: skinning in the draw */
    program_t once_depth, once_main;               /* skin once: pass-through */
    program_t lerp;                                /* hybrid in-between frames */
    program_t compute[METHODS];                    /* skin_bench.comp: COMPUTE, and SKIN_ONCE's deform */
    gfx_skin_bench_run_desc_t last;                /* the last run (read uses it) */
    bool ran;
};

bool gfx_skin_bench_limits_ok(const gfx_info_t *info, int joints, char *msg, size_t msg_size)
{
    /* The game's check: the same palette block and the same limits. */
    return gfx_character_gpu_limits_ok(info, joints, 0, msg, msg_size);
}

static void label(GLenum kind, GLuint id, const char *base, const char *what)
{
    char name[LABEL_MAX * 2];
    snprintf(name, sizeof name, "%s.%s", base, what);
    glObjectLabel(kind, id, -1, name);
}

/* skin_bench.vert (+ skin_bench.frag when WITH_FS) with DEFINES; TF: the
 * transform-feedback varyings. */
static bool build(gfx_skin_bench_t *b, program_t *p, const char *defines, bool with_fs, bool tf, const char *what)
{
    memset(p, 0, sizeof *p);
    char name[LABEL_MAX * 2];
    snprintf(name, sizeof name, "%s.%s", b->label, what);
    gfx_shader_program_desc_t d = {.vs = "skin_bench.vert",
                                   .fs = with_fs ? "skin_bench.frag" : NULL,
                                   .defines = defines,
                                   .varyings = tf ? k_varyings : NULL,
                                   .varying_count = tf ? (int)(sizeof k_varyings / sizeof k_varyings[0]) : 0,
                                   .label = name};
    if (!gfx_shader_program_build(&p->prog, &d))
        return false;
    GLuint prog = p->prog.id;
    p->u_influences = glGetUniformLocation(prog, "u_influences");
    p->u_joint_count = glGetUniformLocation(prog, "u_joint_count");
    p->u_view_proj = glGetUniformLocation(prog, "u_view_proj");
    p->u_light_dir = glGetUniformLocation(prog, "u_light_dir");
    p->u_pos_bias = glGetUniformLocation(prog, "u_pos_bias");
    p->u_pos_extent = glGetUniformLocation(prog, "u_pos_extent");
    p->u_t = glGetUniformLocation(prog, "u_t");
    p->u_count = glGetUniformLocation(prog, "u_count");
    glProgramUniform1i(prog, p->u_joint_count, b->joint_count);
    glProgramUniform1ui(prog, p->u_count, (GLuint)b->vertex_count);
    return true;
}

/* skin_bench.comp for skinning METHOD. */
static bool build_compute(gfx_skin_bench_t *b, program_t *p, int method)
{
    memset(p, 0, sizeof *p);
    char name[LABEL_MAX * 2], defines[64];
    snprintf(name, sizeof name, "%s.compute%d", b->label, method);
    snprintf(defines, sizeof defines, "#define SKIN_METHOD %d\n", method);
    gfx_shader_program_desc_t d = {.cs = "skin_bench.comp", .defines = defines, .label = name};
    if (!gfx_shader_program_build(&p->prog, &d))
        return false;
    GLuint prog = p->prog.id;
    p->u_influences = glGetUniformLocation(prog, "u_influences");
    p->u_joint_count = glGetUniformLocation(prog, "u_joint_count");
    p->u_count = glGetUniformLocation(prog, "u_count");
    p->u_view_proj = p->u_light_dir = p->u_pos_bias = p->u_pos_extent = p->u_t = -1;
    glProgramUniform1i(prog, p->u_joint_count, b->joint_count);
    glProgramUniform1ui(prog, p->u_count, (GLuint)b->vertex_count);
    return true;
}

static bool build_programs(gfx_skin_bench_t *b)
{
    char defines[256], what[64];
    for (int m = 0; m < METHODS; m++) {
        snprintf(defines, sizeof defines, "#define SKIN_METHOD %d\n", m);
        snprintf(what, sizeof what, "skin%d", m);
        if (!build(b, &b->skin[m], defines, false, true, what))
            return false;
    }
    for (int k = 0; k < GFX_SKIN_BENCH_MAX_INFLUENCES; k++) {
        snprintf(defines, sizeof defines, "#define SKIN_METHOD %d\n#define SKIN_INFLUENCES %d\n", METHOD_LBS_MATRIX,
                 k + 1);
        snprintf(what, sizeof what, "fixed%d", k + 1);
        if (!build(b, &b->fixed[k], defines, false, true, what))
            return false;
    }
    snprintf(defines, sizeof defines, "#define SKIN_METHOD %d\n#define SKIN_BENCH_COMPRESSED\n", METHOD_LBS_MATRIX);
    if (!build(b, &b->compressed, defines, false, true, "compressed"))
        return false;
    glProgramUniform3fv(b->compressed.prog.id, b->compressed.u_pos_bias, 1, b->pos_bias);
    glProgramUniform3fv(b->compressed.prog.id, b->compressed.u_pos_extent, 1, b->pos_extent);
    snprintf(defines, sizeof defines,
             "#define SKIN_METHOD %d\n#define SKIN_BENCH_DRAW\n#define SKIN_BENCH_DEPTH_ONLY\n", METHOD_LBS_MATRIX);
    bool ok = build(b, &b->pass_depth, defines, true, false, "pass_depth");
    snprintf(defines, sizeof defines, "#define SKIN_METHOD %d\n#define SKIN_BENCH_DRAW\n", METHOD_LBS_MATRIX);
    ok = ok && build(b, &b->pass_main, defines, true, false, "pass_main");
    ok = ok && build(b, &b->pass_main_tf, defines, true, true, "pass_main_tf");
    ok = ok && build(b, &b->once_depth,
                     "#define SKIN_BENCH_PASSTHROUGH\n#define SKIN_BENCH_DRAW\n"
                     "#define SKIN_BENCH_DEPTH_ONLY\n",
                     true, false, "once_depth");
    ok = ok &&
         build(b, &b->once_main, "#define SKIN_BENCH_PASSTHROUGH\n#define SKIN_BENCH_DRAW\n", true, false, "once_main");
    ok = ok && build(b, &b->lerp, "#define SKIN_BENCH_LERP\n", false, true, "lerp");
    for (int m = 0; m < METHODS && ok; m++)
        ok = build_compute(b, &b->compute[m], m);
    return ok;
}

static GLuint make_buffer(const gfx_skin_bench_t *b, const void *data, size_t bytes, const char *what)
{
    GLuint id;
    glCreateBuffers(1, &id);
    glNamedBufferStorage(id, (GLsizeiptr)(bytes ? bytes : 4), data, 0);
    label(GL_BUFFER, id, b->label, what);
    return id;
}

/* The 64-byte layout: floats for position, normal, tangent, weights; integer joints. */
static GLuint make_raw_vao(const gfx_skin_bench_t *b, GLuint buf, const char *what)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, buf, 0, sizeof(raw_vertex_t));
    static const struct {
        GLuint attr, size, offset;
    } f[] = {{ATTR_POSITION, 3, offsetof(raw_vertex_t, pos)},
             {ATTR_NORMAL, 3, offsetof(raw_vertex_t, nrm)},
             {ATTR_TANGENT, 4, offsetof(raw_vertex_t, tan)},
             {ATTR_WEIGHTS, 4, offsetof(raw_vertex_t, weights)}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        glEnableVertexArrayAttrib(vao, f[i].attr);
        glVertexArrayAttribFormat(vao, f[i].attr, (GLint)f[i].size, GL_FLOAT, GL_FALSE, f[i].offset);
        glVertexArrayAttribBinding(vao, f[i].attr, 0);
    }
    glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
    glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, offsetof(raw_vertex_t, joints));
    glVertexArrayAttribBinding(vao, ATTR_JOINTS, 0);
    glVertexArrayElementBuffer(vao, b->ibo.id);
    label(GL_VERTEX_ARRAY, vao, b->label, what);
    return vao;
}

/* The 24-byte layout: the vertex fetch does the unorm/snorm scaling. */
static GLuint make_packed_vao(const gfx_skin_bench_t *b)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, b->packed.id, 0, GFX_SKIN_BENCH_PACKED_BYTES);
    glEnableVertexArrayAttrib(vao, ATTR_POSITION);
    glVertexArrayAttribFormat(vao, ATTR_POSITION, 3, GL_UNSIGNED_SHORT, GL_TRUE, PACKED_POS);
    glEnableVertexArrayAttrib(vao, ATTR_NORMAL);
    glVertexArrayAttribFormat(vao, ATTR_NORMAL, 2, GL_SHORT, GL_TRUE, PACKED_NORMAL);
    glEnableVertexArrayAttrib(vao, ATTR_TANGENT);
    glVertexArrayAttribFormat(vao, ATTR_TANGENT, 4, GL_INT_2_10_10_10_REV, GL_TRUE, PACKED_TANGENT);
    glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
    glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_BYTE, PACKED_JOINTS);
    glEnableVertexArrayAttrib(vao, ATTR_WEIGHTS);
    glVertexArrayAttribFormat(vao, ATTR_WEIGHTS, 4, GL_UNSIGNED_BYTE, GL_TRUE, PACKED_WEIGHTS);
    static const GLuint attrs[] = {ATTR_POSITION, ATTR_NORMAL, ATTR_TANGENT, ATTR_JOINTS, ATTR_WEIGHTS};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        glVertexArrayAttribBinding(vao, attrs[i], 0);
    label(GL_VERTEX_ARRAY, vao, b->label, "vao_packed");
    return vao;
}

/* The transform-feedback output (position, normal, tangent) as vertices. */
static GLuint make_skinned_vao(const gfx_skin_bench_t *b)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, b->tf_out.id, 0, GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
    static const struct {
        GLuint attr, size, offset;
    } f[] = {{ATTR_POSITION, 3, 0}, {ATTR_NORMAL, 3, 3 * sizeof(float)}, {ATTR_TANGENT, 4, 6 * sizeof(float)}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        glEnableVertexArrayAttrib(vao, f[i].attr);
        glVertexArrayAttribFormat(vao, f[i].attr, (GLint)f[i].size, GL_FLOAT, GL_FALSE, f[i].offset);
        glVertexArrayAttribBinding(vao, f[i].attr, 0);
    }
    glVertexArrayElementBuffer(vao, b->ibo.id);
    label(GL_VERTEX_ARRAY, vao, b->label, "vao_skinned");
    return vao;
}

/* Two keys interleaved per vertex: key 0 position, normal, key 1 position,
 * normal (12 floats), in the slots skin_bench.vert's LERP variant reads. */
static GLuint make_keys_vao(const gfx_skin_bench_t *b)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, b->keys.id, 0, 12 * sizeof(float));
    static const GLuint attrs[] = {ATTR_POSITION, ATTR_NORMAL, ATTR_TANGENT, ATTR_WEIGHTS};
    for (GLuint i = 0; i < 4; i++) {
        glEnableVertexArrayAttrib(vao, attrs[i]);
        glVertexArrayAttribFormat(vao, attrs[i], 3, GL_FLOAT, GL_FALSE, 3 * i * sizeof(float));
        glVertexArrayAttribBinding(vao, attrs[i], 0);
    }
    label(GL_VERTEX_ARRAY, vao, b->label, "vao_keys");
    return vao;
}

/* Column-major orthographic view of the sphere (C, R), the camera turned
 * by PITCH about X (0: looking down -Z at the character's front). */
static void ortho_view(const float c[3], float r, float pitch, float out[16])
{
    float cs = cosf(pitch), sn = sinf(pitch);
    float rows[3][3] = {{1, 0, 0}, {0, cs, -sn}, {0, sn, cs}};
    float scale[3] = {1.0f / r, 1.0f / r, -1.0f / r};
    memset(out, 0, 16 * sizeof(float));
    for (int i = 0; i < 3; i++) {
        float t = 0;
        for (int k = 0; k < 3; k++) {
            out[k * 4 + i] = scale[i] * rows[i][k];
            t -= out[k * 4 + i] * c[k];
        }
        out[12 + i] = t;
    }
    out[15] = 1.0f;
}

static GLuint make_texture(const gfx_skin_bench_t *b, GLenum format, const char *what)
{
    GLuint t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, format, b->size, b->size);
    label(GL_TEXTURE, t, b->label, what);
    return t;
}

static bool make_targets(gfx_skin_bench_t *b)
{
    b->shadow_depth.id = make_texture(b, GL_DEPTH_COMPONENT32F, "shadow_depth");
    b->main_color.id = make_texture(b, GL_RGBA8, "main_color");
    b->main_depth.id = make_texture(b, GL_DEPTH_COMPONENT32F, "main_depth");
    glCreateFramebuffers(1, &b->depth_fbo);
    glNamedFramebufferTexture(b->depth_fbo, GL_DEPTH_ATTACHMENT, b->shadow_depth.id, 0);
    glNamedFramebufferDrawBuffer(b->depth_fbo, GL_NONE);
    glNamedFramebufferReadBuffer(b->depth_fbo, GL_NONE);
    glCreateFramebuffers(1, &b->main_fbo);
    glNamedFramebufferTexture(b->main_fbo, GL_COLOR_ATTACHMENT0, b->main_color.id, 0);
    glNamedFramebufferTexture(b->main_fbo, GL_DEPTH_ATTACHMENT, b->main_depth.id, 0);
    label(GL_FRAMEBUFFER, b->depth_fbo, b->label, "depth_pass");
    label(GL_FRAMEBUFFER, b->main_fbo, b->label, "main_pass");
    if (glCheckNamedFramebufferStatus(b->depth_fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE ||
        glCheckNamedFramebufferStatus(b->main_fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        log_error("bench: %s: pass targets of %d px incomplete", b->label, b->size);
        return false;
    }
    return true;
}

static bool validate_desc(const gfx_skin_bench_desc_t *d, const char *name)
{
    char msg[256];
    if (!d->positions || !d->normals || !d->tangents || !d->joints || !d->weights || !d->palette || !d->dq_palette ||
        d->vertex_count < 1) {
        log_error("bench: %s: mesh arrays missing or no vertices", name);
        return false;
    }
    if (!gfx_skin_bench_limits_ok(gfx_get_info(), d->joint_count, msg, sizeof msg)) {
        log_error("bench: %s: %s", name, msg);
        return false;
    }
    for (size_t k = 0; k < (size_t)d->vertex_count * 4; k++) {
        if (d->joints[k] >= d->joint_count) {
            log_error("bench: %s: vertex %zu uses joint %u of %d", name, k / 4, d->joints[k], d->joint_count);
            return false;
        }
    }
    if (d->indices) {
        if (d->index_count < 3 || d->index_count % 3) {
            log_error("bench: %s: %d indices is not a list of triangles", name, d->index_count);
            return false;
        }
        for (int i = 0; i < d->index_count; i++) {
            if (d->indices[i] >= (uint32_t)d->vertex_count) {
                log_error("bench: %s: index %d is vertex %u of %d", name, i, d->indices[i], d->vertex_count);
                return false;
            }
        }
        if (!(d->view_radius > 0.0f)) {
            log_error("bench: %s: the passes need a view radius > 0", name);
            return false;
        }
    }
    if (d->bin_order) {
        long total = 0;
        for (int k = 0; k < GFX_SKIN_BENCH_MAX_INFLUENCES; k++) {
            if (d->bin_first[k] != total || d->bin_count[k] < 0) {
                log_error("bench: %s: influence bins are not contiguous", name);
                return false;
            }
            total += d->bin_count[k];
        }
        if (total != d->vertex_count) {
            log_error("bench: %s: influence bins hold %ld of %d vertices", name, total, d->vertex_count);
            return false;
        }
        for (int v = 0; v < d->vertex_count; v++)
            if (d->bin_order[v] < 0 || d->bin_order[v] >= d->vertex_count) {
                log_error("bench: %s: bin order entry %d out of range", name, v);
                return false;
            }
    }
    if (d->target_size < 0 || d->target_size > MAX_TARGET_SIZE) {
        log_error("bench: %s: target size %d px, 0..%d", name, d->target_size, MAX_TARGET_SIZE);
        return false;
    }
    return true;
}

static bool upload(gfx_skin_bench_t *b, const gfx_skin_bench_desc_t *d)
{
    size_t n = (size_t)d->vertex_count;
    raw_vertex_t *raw = malloc(n * sizeof *raw);
    raw_vertex_t *binned = d->bin_order ? malloc(n * sizeof *binned) : NULL;
    if (!raw || (d->bin_order && !binned)) {
        free(raw);
        free(binned);
        log_error("bench: %s: out of memory for %zu vertices", b->label, n);
        return false;
    }
    for (size_t v = 0; v < n; v++) {
        memcpy(raw[v].pos, d->positions + 3 * v, sizeof raw[v].pos);
        memcpy(raw[v].nrm, d->normals + 3 * v, sizeof raw[v].nrm);
        memcpy(raw[v].tan, d->tangents + 4 * v, sizeof raw[v].tan);
        memcpy(raw[v].joints, d->joints + 4 * v, sizeof raw[v].joints);
        memcpy(raw[v].weights, d->weights + 4 * v, sizeof raw[v].weights);
    }
    if (binned)
        for (size_t v = 0; v < n; v++)
            binned[v] = raw[d->bin_order[v]];
    b->ibo.id = make_buffer(b, d->indices, d->indices ? (size_t)d->index_count * sizeof(uint32_t) : 0, "indices");
    b->raw.id = make_buffer(b, raw, n * sizeof *raw, "vertices");
    b->vao_raw.id = make_raw_vao(b, b->raw.id, "vao_raw");
    if (binned) {
        b->binned.id = make_buffer(b, binned, n * sizeof *binned, "vertices_binned");
        b->vao_binned.id = make_raw_vao(b, b->binned.id, "vao_binned");
    }
    free(raw);
    free(binned);
    if (d->packed) {
        b->packed.id = make_buffer(b, d->packed, n * GFX_SKIN_BENCH_PACKED_BYTES, "vertices_packed");
        b->vao_packed.id = make_packed_vao(b);
    }
    if (d->key0_pos && d->key0_nrm && d->key1_pos && d->key1_nrm) {
        float *keys = malloc(n * 12 * sizeof(float));
        if (!keys) {
            log_error("bench: %s: out of memory for %zu vertices", b->label, n);
            return false;
        }
        const float *src[4] = {d->key0_pos, d->key0_nrm, d->key1_pos, d->key1_nrm};
        for (size_t v = 0; v < n; v++)
            for (int k = 0; k < 4; k++)
                memcpy(keys + 12 * v + 3 * k, src[k] + 3 * v, 3 * sizeof(float));
        b->keys.id = make_buffer(b, keys, n * 12 * sizeof(float), "keys");
        b->vao_keys.id = make_keys_vao(b);
        free(keys);
    }
    b->palette.id = make_buffer(b, d->palette, (size_t)d->joint_count * 12 * sizeof(float), "palette");
    b->dq.id = make_buffer(b, d->dq_palette, (size_t)d->joint_count * 8 * sizeof(float), "dq_palette");
    b->tf_out.id = make_buffer(b, NULL, n * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float), "skinned");
    b->vao_skinned.id = make_skinned_vao(b);
    glCreateTransformFeedbacks(1, &b->tfo);
    label(GL_TRANSFORM_FEEDBACK, b->tfo, b->label, "tfo");
    glCreateQueries(GL_TIME_ELAPSED, 1, &b->query.id);
    label(GL_QUERY, b->query.id, b->label, "time");
    return true;
}

gfx_skin_bench_t *gfx_skin_bench_create(const gfx_skin_bench_desc_t *d)
{
    const char *name = d->label ? d->label : "skin_bench";
    if (!validate_desc(d, name))
        return NULL;
    gfx_skin_bench_t *b = calloc(1, sizeof *b);
    int *order = d->bin_order ? malloc((size_t)d->vertex_count * sizeof *order) : NULL;
    if (!b || (d->bin_order && !order)) {
        free(b);
        free(order);
        log_error("bench: %s: out of memory", name);
        return NULL;
    }
    snprintf(b->label, sizeof b->label, "%s", name);
    b->vertex_count = d->vertex_count;
    b->joint_count = d->joint_count;
    b->index_count = d->indices ? d->index_count : 0;
    b->size = d->target_size ? d->target_size : DEFAULT_TARGET_SIZE;
    b->has_passes = d->indices != NULL;
    b->has_bins = d->bin_order != NULL;
    b->has_packed = d->packed != NULL;
    b->has_keys = d->key0_pos && d->key0_nrm && d->key1_pos && d->key1_nrm;
    b->bin_order = order;
    if (order) {
        memcpy(order, d->bin_order, (size_t)d->vertex_count * sizeof *order);
        memcpy(b->bin_first, d->bin_first, sizeof b->bin_first);
        memcpy(b->bin_count, d->bin_count, sizeof b->bin_count);
    }
    memcpy(b->pos_bias, d->pos_bias, sizeof b->pos_bias);
    memcpy(b->pos_extent, d->pos_extent, sizeof b->pos_extent);
    ortho_view(d->view_center, d->view_radius > 0 ? d->view_radius : 1.0f, 0.0f, b->cam_vp);
    ortho_view(d->view_center, d->view_radius > 0 ? d->view_radius : 1.0f, LIGHT_ELEVATION_RAD, b->light_vp);
    bool ok = upload(b, d) && make_targets(b) && build_programs(b);
    if (ok) {
        const program_t *main_progs[] = {&b->pass_main, &b->pass_main_tf, &b->once_main};
        const float light[3] = {0.3f, 0.6f, 0.742f};
        for (size_t i = 0; i < sizeof main_progs / sizeof main_progs[0]; i++)
            glProgramUniform3fv(main_progs[i]->prog.id, main_progs[i]->u_light_dir, 1, light);
    }
    GLenum err = glGetError();
    if (ok && err != GL_NO_ERROR) {
        log_error("bench: %s: GL error 0x%x while creating", b->label, err);
        ok = false;
    }
    if (!ok) {
        gfx_skin_bench_destroy(b);
        return NULL;
    }
    return b;
}

void gfx_skin_bench_destroy(gfx_skin_bench_t *b)
{
    if (!b)
        return;
    program_t *progs[] = {&b->skin[0],      &b->skin[1],    &b->skin[2],    &b->fixed[0],   &b->fixed[1],
                          &b->fixed[2],     &b->fixed[3],   &b->compressed, &b->pass_depth, &b->pass_main,
                          &b->pass_main_tf, &b->once_depth, &b->once_main,  &b->lerp,       &b->compute[0],
                          &b->compute[1],   &b->compute[2]};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
        gfx_shader_program_free(&progs[i]->prog);
    GLuint bufs[] = {b->raw.id,     b->binned.id, b->packed.id, b->ibo.id,
                     b->palette.id, b->dq.id,     b->tf_out.id, b->keys.id};
    glDeleteBuffers((GLsizei)(sizeof bufs / sizeof bufs[0]), bufs);
    GLuint vaos[] = {b->vao_raw.id, b->vao_binned.id, b->vao_packed.id, b->vao_skinned.id, b->vao_keys.id};
    glDeleteVertexArrays((GLsizei)(sizeof vaos / sizeof vaos[0]), vaos);
    GLuint tex[] = {b->shadow_depth.id, b->main_color.id, b->main_depth.id};
    glDeleteTextures(3, tex);
    GLuint fbos[] = {b->depth_fbo, b->main_fbo};
    glDeleteFramebuffers(2, fbos);
    if (b->tfo)
        glDeleteTransformFeedbacks(1, &b->tfo);
    if (b->query.id)
        glDeleteQueries(1, &b->query.id);
    free(b->bin_order);
    free(b);
}

int gfx_skin_bench_target_size(const gfx_skin_bench_t *b) { return b->size; }

static void use(const program_t *p, int influences)
{
    glUseProgram(p->prog.id);
    glProgramUniform1i(p->prog.id, p->u_influences, influences);
}

/* Skins COUNT vertices from FIRST of VAO with P into the output buffer at
 * the same vertex position (rasterizer discard: no fragments). */
static void capture(const gfx_skin_bench_t *b, GLuint vao, const program_t *p, int influences, int first, int count)
{
    if (count <= 0)
        return;
    size_t stride = GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float);
    glTransformFeedbackBufferRange(b->tfo, 0, b->tf_out.id, (GLintptr)((size_t)first * stride),
                                   (GLsizeiptr)((size_t)count * stride));
    use(p, influences);
    glBindVertexArray(vao);
    glBeginTransformFeedback(GL_POINTS);
    gfx_validate_draw("skin bench capture");
    glDrawArrays(GL_POINTS, first, count);
    glEndTransformFeedback();
}

/* Skins every vertex with P's compute program into the output buffer, and
 * orders the writes before later vertex fetches and read-backs. */
static void compute(const gfx_skin_bench_t *b, const program_t *p, int influences)
{
    use(p, influences);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_SOURCE, b->raw.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_OUT, b->tf_out.id);
    gfx_validate_dispatch("skin bench compute");
    glDispatchCompute(((GLuint)b->vertex_count + DEFORM_GROUP_SIZE - 1) / DEFORM_GROUP_SIZE, 1, 1);
    glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

/* The depth pass (light view) and the main pass (camera view) of VAO's triangles. */
static void passes(const gfx_skin_bench_t *b, GLuint vao, const program_t *depth, const program_t *main_p,
                   int influences)
{
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glViewport(0, 0, b->size, b->size);
    glBindVertexArray(vao);
    glBindFramebuffer(GL_FRAMEBUFFER, b->depth_fbo);
    glClear(GL_DEPTH_BUFFER_BIT);
    use(depth, influences);
    glProgramUniformMatrix4fv(depth->prog.id, depth->u_view_proj, 1, GL_FALSE, b->light_vp);
    gfx_validate_draw("skin bench pass");
    glDrawElements(GL_TRIANGLES, b->index_count, GL_UNSIGNED_INT, NULL);
    glBindFramebuffer(GL_FRAMEBUFFER, b->main_fbo);
    glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    use(main_p, influences);
    glProgramUniformMatrix4fv(main_p->prog.id, main_p->u_view_proj, 1, GL_FALSE, b->cam_vp);
    gfx_validate_draw("skin bench pass");
    glDrawElements(GL_TRIANGLES, b->index_count, GL_UNSIGNED_INT, NULL);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

static void work(const gfx_skin_bench_t *b, const gfx_skin_bench_run_desc_t *r)
{
    bool dq = (r->path == GFX_SKIN_BENCH_SKIN || r->path == GFX_SKIN_BENCH_COMPUTE) && r->method == METHOD_DQS;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, dq ? b->dq.id : b->palette.id);
    int k = r->influences;
    bool tf = r->path != GFX_SKIN_BENCH_PER_PASS && r->path != GFX_SKIN_BENCH_SKIN_ONCE &&
              r->path != GFX_SKIN_BENCH_COMPUTE;
    if (tf) {
        glEnable(GL_RASTERIZER_DISCARD);
        glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, b->tfo);
    }
    switch (r->path) {
    case GFX_SKIN_BENCH_SKIN: capture(b, b->vao_raw.id, &b->skin[r->method], k, 0, b->vertex_count); break;
    case GFX_SKIN_BENCH_UNBINNED: capture(b, b->vao_raw.id, &b->fixed[k - 1], k, 0, b->vertex_count); break;
    case GFX_SKIN_BENCH_BINNED:
        /* Bins above the cap K are contiguous at the end: one draw with K. */
        for (int i = 0; i < k; i++) {
            int count = b->bin_count[i];
            for (int j = i + 1; i == k - 1 && j < GFX_SKIN_BENCH_MAX_INFLUENCES; j++)
                count += b->bin_count[j];
            capture(b, b->vao_binned.id, &b->fixed[i], i + 1, b->bin_first[i], count);
        }
        break;
    case GFX_SKIN_BENCH_COMPRESSED: capture(b, b->vao_packed.id, &b->compressed, k, 0, b->vertex_count); break;
    case GFX_SKIN_BENCH_SKIN_ONCE:
        compute(b, &b->compute[METHOD_LBS_MATRIX], k);
        passes(b, b->vao_skinned.id, &b->once_depth, &b->once_main, k);
        break;
    case GFX_SKIN_BENCH_COMPUTE: compute(b, &b->compute[r->method], k); break;
    case GFX_SKIN_BENCH_PER_PASS: passes(b, b->vao_raw.id, &b->pass_depth, &b->pass_main, k); break;
    case GFX_SKIN_BENCH_LERP:
        glProgramUniform1f(b->lerp.prog.id, b->lerp.u_t, r->lerp_t);
        capture(b, b->vao_keys.id, &b->lerp, k, 0, b->vertex_count);
        break;
    default: break;
    }
    if (tf) {
        glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
        glDisable(GL_RASTERIZER_DISCARD);
    }
    glBindVertexArray(0);
}

bool gfx_skin_bench_run(gfx_skin_bench_t *b, const gfx_skin_bench_run_desc_t *r, gfx_skin_bench_result_t *out)
{
    static const char *const names[GFX_SKIN_BENCH_PATH_COUNT] = {"skin",      "unbinned", "binned", "compressed",
                                                                 "skin-once", "per-pass", "lerp",   "compute"};
    if ((int)r->path < 0 || r->path >= GFX_SKIN_BENCH_PATH_COUNT || r->influences < 1 ||
        r->influences > GFX_SKIN_BENCH_MAX_INFLUENCES || r->repeats < 1 || r->warmup < 0 ||
        ((r->path == GFX_SKIN_BENCH_SKIN || r->path == GFX_SKIN_BENCH_COMPUTE) &&
         (r->method < 0 || r->method >= METHODS))) {
        log_error("bench: %s: bad run (path %d, method %d, influences %d, repeats %d)", b->label, (int)r->path,
                  r->method, r->influences, r->repeats);
        return false;
    }
    const char *why = NULL;
    if (r->path == GFX_SKIN_BENCH_BINNED && !b->has_bins)
        why = "no influence bins were given";
    else if (r->path == GFX_SKIN_BENCH_COMPRESSED && !b->has_packed)
        why = "no compressed stream was given";
    else if (r->path == GFX_SKIN_BENCH_LERP && !b->has_keys)
        why = "no keys were given";
    else if ((r->path == GFX_SKIN_BENCH_SKIN_ONCE || r->path == GFX_SKIN_BENCH_PER_PASS) && !b->has_passes)
        why = "the mesh has no triangles";
    if (why) {
        log_error("bench: %s: path %s: %s", b->label, names[r->path], why);
        return false;
    }
    double *wall = malloc(2 * (size_t)r->repeats * sizeof *wall);
    if (!wall) {
        log_error("bench: %s: out of memory for %d repeats", b->label, r->repeats);
        return false;
    }
    double *query = wall + r->repeats;
    for (int i = 0; i < r->warmup; i++)
        work(b, r);
    for (int i = 0; i < r->repeats; i++) {
        glFinish();
        double t0 = bench_now_s();
        glBeginQuery(GL_TIME_ELAPSED, b->query.id);
        work(b, r);
        glEndQuery(GL_TIME_ELAPSED);
        glFinish();
        wall[i] = bench_now_s() - t0;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(b->query.id, GL_QUERY_RESULT, &ns);
        query[i] = (double)ns * 1e-9;
    }
    memset(out, 0, sizeof *out);
    bench_stats(wall, r->repeats, &out->wall_median_s, &out->wall_min_s, &out->wall_max_s);
    bench_stats(query, r->repeats, &out->query_median_s, &out->query_min_s, &out->query_max_s);
    /* The same repeats queued back to back: a GPU left idle between
     * glFinish-bracketed repeats lowers its clocks (an H200 idled at 345 of
     * 1980 MHz), a game's frames do not let it. Timestamps before the first
     * and after the last: the GPU time per repeat, without counting twice
     * what overlaps (a query per repeat would, for draws). */
    GLuint ts[2];
    glGenQueries(2, ts);
    glQueryCounter(ts[0], GL_TIMESTAMP);
    for (int i = 0; i < r->repeats; i++)
        work(b, r);
    glQueryCounter(ts[1], GL_TIMESTAMP);
    glFinish();
    GLuint64 t0 = 0, t1 = 0;
    glGetQueryObjectui64v(ts[0], GL_QUERY_RESULT, &t0);
    glGetQueryObjectui64v(ts[1], GL_QUERY_RESULT, &t1);
    glDeleteQueries(2, ts);
    out->pipelined_median_s = t1 > t0 ? (double)(t1 - t0) * 1e-9 / r->repeats : NAN;
    free(wall);
    b->last = *r;
    b->ran = true;
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("bench: %s: GL error 0x%x in path %s", b->label, err, names[r->path]);
        return false;
    }
    return true;
}

/* PER_PASS: the main pass's vertex shader once more, capturing the
 * triangles' vertices, scattered back through the index buffer. */
static bool read_per_pass(gfx_skin_bench_t *b, float *out, uint8_t *covered)
{
    size_t nf = GFX_SKIN_BENCH_OUT_FLOATS, ni = (size_t)b->index_count;
    float *data = malloc(ni * nf * sizeof(float));
    uint32_t *idx = malloc(ni * sizeof(uint32_t));
    if (!data || !idx) {
        free(data);
        free(idx);
        log_error("bench: %s: out of memory for the read-back", b->label);
        return false;
    }
    GLuint buf;
    glCreateBuffers(1, &buf);
    glNamedBufferStorage(buf, (GLsizeiptr)(ni * nf * sizeof(float)), NULL, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, b->palette.id);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, b->tfo);
    glTransformFeedbackBufferBase(b->tfo, 0, buf);
    use(&b->pass_main_tf, b->last.influences);
    glProgramUniformMatrix4fv(b->pass_main_tf.prog.id, b->pass_main_tf.u_view_proj, 1, GL_FALSE, b->cam_vp);
    glBindVertexArray(b->vao_raw.id);
    glBeginTransformFeedback(GL_TRIANGLES);
    gfx_validate_draw("skin bench pass");
    glDrawElements(GL_TRIANGLES, b->index_count, GL_UNSIGNED_INT, NULL);
    glEndTransformFeedback();
    glBindVertexArray(0);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glDisable(GL_RASTERIZER_DISCARD);
    glGetNamedBufferSubData(buf, 0, (GLsizeiptr)(ni * nf * sizeof(float)), data);
    glGetNamedBufferSubData(b->ibo.id, 0, (GLsizeiptr)(ni * sizeof(uint32_t)), idx);
    glDeleteBuffers(1, &buf);
    if (covered)
        memset(covered, 0, (size_t)b->vertex_count);
    for (size_t i = 0; i < ni; i++) {
        memcpy(out + idx[i] * nf, data + i * nf, nf * sizeof(float));
        if (covered)
            covered[idx[i]] = 1;
    }
    free(data);
    free(idx);
    return glGetError() == GL_NO_ERROR;
}

bool gfx_skin_bench_read(gfx_skin_bench_t *b, float *out, uint8_t *covered)
{
    if (!b->ran) {
        log_error("bench: %s: nothing to read before a run", b->label);
        return false;
    }
    if (b->last.path == GFX_SKIN_BENCH_PER_PASS)
        return read_per_pass(b, out, covered);
    size_t nf = GFX_SKIN_BENCH_OUT_FLOATS, n = (size_t)b->vertex_count;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (b->last.path != GFX_SKIN_BENCH_BINNED) {
        glGetNamedBufferSubData(b->tf_out.id, 0, (GLsizeiptr)(n * nf * sizeof(float)), out);
    } else {
        float *tmp = malloc(n * nf * sizeof(float));
        if (!tmp) {
            log_error("bench: %s: out of memory for the read-back", b->label);
            return false;
        }
        glGetNamedBufferSubData(b->tf_out.id, 0, (GLsizeiptr)(n * nf * sizeof(float)), tmp);
        /* Un-permute: bin position i holds original vertex bin_order[i]. */
        for (size_t i = 0; i < n; i++)
            memcpy(out + (size_t)b->bin_order[i] * nf, tmp + i * nf, nf * sizeof(float));
        free(tmp);
    }
    if (covered)
        memset(covered, 1, n);
    return glGetError() == GL_NO_ERROR;
}

bool gfx_skin_bench_read_image(gfx_skin_bench_t *b, uint8_t *out_rgba, float *out_depth)
{
    if (!b->has_passes) {
        log_error("bench: %s: no pass images (the mesh has no triangles)", b->label);
        return false;
    }
    GLsizei px = b->size * b->size;
    if (out_rgba)
        glGetTextureImage(b->main_color.id, 0, GL_RGBA, GL_UNSIGNED_BYTE, px * 4, out_rgba);
    if (out_depth)
        glGetTextureImage(b->shadow_depth.id, 0, GL_DEPTH_COMPONENT, GL_FLOAT, px * (GLsizei)sizeof(float), out_depth);
    return glGetError() == GL_NO_ERROR;
}
