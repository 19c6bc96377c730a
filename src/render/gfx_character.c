#include "render/gfx_character.h"

#include "core/log.h"
#include "render/gfx_shader.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Offsets of the sub-arrays inside a slot are rounded up to this (bytes),
 * comfortably above GL_MIN_MAP_BUFFER_ALIGNMENT and cache lines. */
#define STREAM_ALIGN 256u
/* A fence still pending after this long means the GPU is hung; give up
 * waiting rather than freeze the app (nanoseconds). */
#define FENCE_TIMEOUT_NS 1000000000ull
/* Vertex buffer binding indices of the VAOs (not attribute locations). */
enum { BIND_POS = 0, BIND_NORMAL, BIND_TANGENT, BIND_AO, BIND_STATIC, BIND_SKIN };
/* GPU skinning variants (gfx_skin_mode >= 0) and program kinds. */
enum { GPU_METHODS = 3, KIND_LIT = 0, KIND_NOSHADOW, KIND_SHADOW, KIND_CAPTURE, KINDS };
/* vec4s per vertex in the capture SSBO (character.vert). */
#define CAPTURE_VEC4S 3
/* Material arrays in character.frag; must match CHR_MAX_MATERIALS. */
#define MATERIAL_SLOTS CHR_MAX_MATERIALS

/* Static per-vertex data: uv and the material index. */
typedef struct static_vertex {
    float uv[2];
    uint32_t material;
} static_vertex;

/* Static skinning data: joint indices (integer attribute) and weights. */
typedef struct skin_vertex {
    uint16_t joints[4];
    float weights[4];
} skin_vertex;

typedef struct program_locs {
    gfx_program prog;
    GLint u_model, u_influences, u_joint_count;
} program_locs;

struct gfx_character {
    char label[64];
    uint32_t vertex_count, index_count, mesh_count;
    uint32_t mesh_first[CHR_MAX_MESHES];
    gfx_buffer stream;            /* GFX_CHARACTER_SLOTS x slot_bytes, persistently mapped */
    gfx_buffer static_vbo, ibo, skin_vbo;
    gfx_vertex_array vao[GFX_CHARACTER_SLOTS];
    uint8_t *mapped;
    size_t slot_bytes;
    size_t off_normal, off_tangent, off_ao; /* inside a slot; positions at 0 */
    size_t off_palette, off_dq;   /* inside a slot: GPU skinning palettes */
    size_t palette_bytes, dq_bytes;
    bool gpu_ok;                  /* limits and shaders allow GPU skinning */
    program_locs gpu[GPU_METHODS][KINDS];
    /* Skinning of each slot, and the one end_update gives the next slot. */
    gfx_skin_mode slot_mode[GFX_CHARACTER_SLOTS], mode;
    int slot_influences[GFX_CHARACTER_SLOTS], influences;
    int slot_joints[GFX_CHARACTER_SLOTS], joint_count;
    GLsync fence[GFX_CHARACTER_SLOTS];
    int writing;                  /* slot handed out by begin_update, -1 none */
    int ready;                    /* slot drawn, -1 until the first end_update */
    program_locs lit, lit_noshadow, shadow;
    float model[16];
    bool visible;
    gfx_character_stats stats;
};

static size_t align_up(size_t v) { return (v + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN; }

bool gfx_character_gpu_limits_ok(const gfx_info *info, int joints, int extra_blocks, char *msg, size_t msg_size)
{
    int64_t need = (int64_t)joints * GFX_CHARACTER_MAT_FLOATS * (int64_t)sizeof(float);
    if (joints < 1 || joints > GFX_CHARACTER_MAX_JOINTS) {
        snprintf(msg, msg_size, "GPU skinning: %d joints, the palette holds 1 to %d", joints,
                 GFX_CHARACTER_MAX_JOINTS);
        return false;
    }
    if (info->max_ssbo_block_size < need) {
        snprintf(msg, msg_size,
                 "GPU skinning: a %d-joint palette needs %lld bytes, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld", joints,
                 (long long)need, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < 1 + extra_blocks) {
        snprintf(msg, msg_size, "GPU skinning needs %d vertex shader storage blocks, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS is %d",
                 1 + extra_blocks, info->max_vertex_ssbo_blocks);
        return false;
    }
    if (msg_size > 0)
        msg[0] = '\0';
    return true;
}

static void label_object(GLenum kind, GLuint id, const char *base, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", base, what);
    glObjectLabel(kind, id, -1, name);
}

static bool load_program(program_locs *p, const char *vs, const char *fs, const char *defines, const char *label)
{
    if (!gfx_shader_program_load(&p->prog, vs, fs, defines, label))
        return false;
    p->u_model = glGetUniformLocation(p->prog.id, "u_model");
    p->u_influences = glGetUniformLocation(p->prog.id, "u_influences");
    p->u_joint_count = glGetUniformLocation(p->prog.id, "u_joint_count");
    return true;
}

static void set_materials(const program_locs *p, const chr_character_t *c)
{
    float color[MATERIAL_SLOTS][4], params[MATERIAL_SLOTS][4];
    memset(color, 0, sizeof color);
    memset(params, 0, sizeof params);
    for (uint32_t i = 0; i < c->material_count && i < MATERIAL_SLOTS; i++) {
        const chr_material_t *m = &c->materials[i];
        memcpy(color[i], m->color, sizeof color[i]);
        params[i][0] = m->roughness;
        params[i][1] = m->subsurface;
    }
    GLint lc = glGetUniformLocation(p->prog.id, "u_material_color");
    GLint lp = glGetUniformLocation(p->prog.id, "u_material_params");
    if (lc >= 0)
        glProgramUniform4fv(p->prog.id, lc, MATERIAL_SLOTS, &color[0][0]);
    if (lp >= 0)
        glProgramUniform4fv(p->prog.id, lp, MATERIAL_SLOTS, &params[0][0]);
}

static void draw_hook(const gfx_pass_info *info, void *user);

/* The GPU-skinning programs, when the limits allow them (otherwise the CPU
 * path stays the only one and that is logged once). False on a shader error. */
static bool load_gpu_programs(gfx_character *gc, const chr_character_t *c)
{
    char msg[256];
    GLint ssbo_align = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &ssbo_align);
    if (!gfx_character_gpu_limits_ok(gfx_get_info(), (int)c->skel.joint_count, 0, msg, sizeof msg)) {
        log_warn("render: %s: %s; skinning stays on the CPU", gc->label, msg);
        return true;
    }
    if (ssbo_align <= 0 || STREAM_ALIGN % (unsigned)ssbo_align != 0) {
        log_warn("render: %s: GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT %d does not divide %u; skinning stays on the CPU",
                 gc->label, ssbo_align, STREAM_ALIGN);
        return true;
    }
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[KINDS] = {{"character.vert", "character.frag", "", "lit"},
                      {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                      {"character_shadow.vert", "character_shadow.frag", "", "shadow"},
                      {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_CAPTURE\n", "capture"}};
    for (int m = 0; m < GPU_METHODS; m++) {
        for (int k = 0; k < KINDS; k++) {
            if (k == KIND_CAPTURE && !gfx_character_gpu_limits_ok(gfx_get_info(), (int)c->skel.joint_count, 1, msg,
                                                                  sizeof msg))
                continue; /* capture refused later with MSG */
            char defines[160], name[96];
            snprintf(defines, sizeof defines, "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD %d\n%s", m,
                     kinds[k].defines);
            snprintf(name, sizeof name, "%s.gpu%d.%s", gc->label, m, kinds[k].what);
            if (!load_program(&gc->gpu[m][k], kinds[k].vs, kinds[k].fs, defines, name))
                return false;
            if (k != KIND_SHADOW)
                set_materials(&gc->gpu[m][k], c);
        }
    }
    gc->gpu_ok = true;
    return true;
}

static bool upload_static(gfx_character *gc, const chr_character_t *c)
{
    static_vertex *sv = malloc((size_t)gc->vertex_count * sizeof *sv);
    skin_vertex *kv = malloc((size_t)gc->vertex_count * sizeof *kv);
    uint32_t *idx = malloc((size_t)gc->index_count * sizeof *idx);
    if (!sv || !idx || !kv) {
        free(sv);
        free(kv);
        free(idx);
        log_error("render: %s: out of memory for %u vertices", gc->label, gc->vertex_count);
        return false;
    }
    uint32_t iv = 0, ii = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        const chr_mesh_t *mesh = &c->meshes[m];
        for (uint32_t v = 0; v < mesh->vertex_count; v++, iv++) {
            sv[iv].uv[0] = mesh->vertices[v].uv[0];
            sv[iv].uv[1] = mesh->vertices[v].uv[1];
            sv[iv].material = mesh->vertices[v].material;
            memcpy(kv[iv].joints, mesh->vertices[v].joints, sizeof kv[iv].joints);
            memcpy(kv[iv].weights, mesh->vertices[v].weights, sizeof kv[iv].weights);
        }
        for (uint32_t i = 0; i < mesh->index_count; i++)
            idx[ii++] = mesh->indices[i] + gc->mesh_first[m];
    }
    glCreateBuffers(1, &gc->static_vbo.id);
    glNamedBufferStorage(gc->static_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *sv), sv, 0);
    label_object(GL_BUFFER, gc->static_vbo.id, gc->label, "static_vertices");
    glCreateBuffers(1, &gc->skin_vbo.id);
    glNamedBufferStorage(gc->skin_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *kv), kv, 0);
    label_object(GL_BUFFER, gc->skin_vbo.id, gc->label, "skin_vertices");
    free(kv);
    glCreateBuffers(1, &gc->ibo.id);
    glNamedBufferStorage(gc->ibo.id, (GLsizeiptr)((size_t)gc->index_count * sizeof *idx), idx, 0);
    label_object(GL_BUFFER, gc->ibo.id, gc->label, "indices");
    free(sv);
    free(idx);
    return true;
}

static void make_vaos(gfx_character *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        GLuint vao;
        glCreateVertexArrays(1, &vao);
        gc->vao[s].id = vao;
        GLintptr base = (GLintptr)((size_t)s * gc->slot_bytes);
        glVertexArrayVertexBuffer(vao, BIND_POS, gc->stream.id, base, 3 * sizeof(float));
        glVertexArrayVertexBuffer(vao, BIND_NORMAL, gc->stream.id, base + (GLintptr)gc->off_normal, 3 * sizeof(float));
        glVertexArrayVertexBuffer(vao, BIND_TANGENT, gc->stream.id, base + (GLintptr)gc->off_tangent,
                                  4 * sizeof(float));
        glVertexArrayVertexBuffer(vao, BIND_AO, gc->stream.id, base + (GLintptr)gc->off_ao, sizeof(float));
        glVertexArrayVertexBuffer(vao, BIND_STATIC, gc->static_vbo.id, 0, sizeof(static_vertex));
        glVertexArrayVertexBuffer(vao, BIND_SKIN, gc->skin_vbo.id, 0, sizeof(skin_vertex));
        glVertexArrayElementBuffer(vao, gc->ibo.id);
        /* Read only by the GPU-skinning variants. */
        glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
        glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, (GLuint)offsetof(skin_vertex, joints));
        glVertexArrayAttribBinding(vao, ATTR_JOINTS, BIND_SKIN);
        glEnableVertexArrayAttrib(vao, ATTR_WEIGHTS);
        glVertexArrayAttribFormat(vao, ATTR_WEIGHTS, 4, GL_FLOAT, GL_FALSE, (GLuint)offsetof(skin_vertex, weights));
        glVertexArrayAttribBinding(vao, ATTR_WEIGHTS, BIND_SKIN);
        static const struct {
            GLuint attr, binding, size;
        } floats[] = {{ATTR_POSITION, BIND_POS, 3},
                      {ATTR_NORMAL, BIND_NORMAL, 3},
                      {ATTR_TANGENT, BIND_TANGENT, 4},
                      {ATTR_AO, BIND_AO, 1}};
        for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
            glEnableVertexArrayAttrib(vao, floats[i].attr);
            glVertexArrayAttribFormat(vao, floats[i].attr, (GLint)floats[i].size, GL_FLOAT, GL_FALSE, 0);
            glVertexArrayAttribBinding(vao, floats[i].attr, floats[i].binding);
        }
        glEnableVertexArrayAttrib(vao, ATTR_UV);
        glVertexArrayAttribFormat(vao, ATTR_UV, 2, GL_FLOAT, GL_FALSE, (GLuint)offsetof(static_vertex, uv));
        glVertexArrayAttribBinding(vao, ATTR_UV, BIND_STATIC);
        /* The character has no vertex colours: its material index rides in
         * the colour slot as an integer attribute. */
        glEnableVertexArrayAttrib(vao, ATTR_COLOR);
        glVertexArrayAttribIFormat(vao, ATTR_COLOR, 1, GL_UNSIGNED_INT, (GLuint)offsetof(static_vertex, material));
        glVertexArrayAttribBinding(vao, ATTR_COLOR, BIND_STATIC);
        char what[32];
        snprintf(what, sizeof what, "vao[%d]", s);
        label_object(GL_VERTEX_ARRAY, vao, gc->label, what);
    }
}

gfx_character *gfx_character_create(const chr_character_t *c, const char *label)
{
    if (!c || c->mesh_count == 0 || c->mesh_count > CHR_MAX_MESHES) {
        log_error("render: %s: no meshes to draw", label ? label : "character");
        return NULL;
    }
    gfx_character *gc = calloc(1, sizeof *gc);
    if (!gc) {
        log_error("render: out of memory for a character");
        return NULL;
    }
    snprintf(gc->label, sizeof gc->label, "%s", label ? label : "character");
    gc->writing = -1;
    gc->ready = -1;
    gc->visible = true;
    for (int k = 0; k < 16; k++)
        gc->model[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    uint64_t vcount = 0, icount = 0;
    gc->mesh_count = c->mesh_count;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        gc->mesh_first[m] = (uint32_t)vcount;
        vcount += c->meshes[m].vertex_count;
        icount += c->meshes[m].index_count;
    }
    if (vcount == 0 || icount == 0 || vcount > CHR_MAX_VERTICES || icount > (uint64_t)CHR_MAX_INDICES * 2) {
        log_error("render: %s: %llu vertices, %llu indices: nothing to draw or too many", gc->label,
                  (unsigned long long)vcount, (unsigned long long)icount);
        free(gc);
        return NULL;
    }
    gc->vertex_count = (uint32_t)vcount;
    gc->index_count = (uint32_t)icount;

    size_t v = gc->vertex_count;
    gc->off_normal = align_up(v * 3 * sizeof(float));
    gc->off_tangent = gc->off_normal + align_up(v * 3 * sizeof(float));
    gc->off_ao = gc->off_tangent + align_up(v * 4 * sizeof(float));
    gc->off_palette = gc->off_ao + align_up(v * sizeof(float));
    gc->palette_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_MAT_FLOATS * sizeof(float);
    gc->off_dq = gc->off_palette + align_up(gc->palette_bytes);
    gc->dq_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_DQ_FLOATS * sizeof(float);
    gc->slot_bytes = gc->off_dq + align_up(gc->dq_bytes);
    gc->mode = GFX_SKIN_CPU;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++)
        gc->slot_mode[s] = GFX_SKIN_CPU;

    char name[96];
    snprintf(name, sizeof name, "%s.lit", gc->label);
    bool ok = load_program(&gc->lit, "character.vert", "character.frag", NULL, name);
    snprintf(name, sizeof name, "%s.lit_noshadow", gc->label);
    ok = ok && load_program(&gc->lit_noshadow, "character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n",
                            name);
    snprintf(name, sizeof name, "%s.shadow", gc->label);
    ok = ok && load_program(&gc->shadow, "character_shadow.vert", "character_shadow.frag", NULL, name);
    ok = ok && load_gpu_programs(gc, c);
    if (!ok || !upload_static(gc, c)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    set_materials(&gc->lit, c);
    set_materials(&gc->lit_noshadow, c);

    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr total = (GLsizeiptr)(gc->slot_bytes * GFX_CHARACTER_SLOTS);
    glCreateBuffers(1, &gc->stream.id);
    glNamedBufferStorage(gc->stream.id, total, NULL, flags);
    label_object(GL_BUFFER, gc->stream.id, gc->label, "deformed_stream");
    gc->mapped = glMapNamedBufferRange(gc->stream.id, 0, total, flags);
    if (!gc->mapped) {
        log_error("render: %s: cannot map the %lld-byte vertex stream", gc->label, (long long)total);
        gfx_character_destroy(gc);
        return NULL;
    }
    make_vaos(gc);
    if (!gfx_add_draw_hook(draw_hook, gc)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    gc->stats.vertex_count = gc->vertex_count;
    gc->stats.triangle_count = gc->index_count / 3;
    gc->stats.stream_bytes = (uint32_t)gc->slot_bytes;
    log_debug("render: %s: %u vertices, %u triangles, %zu bytes per stream slot", gc->label, gc->vertex_count,
              gc->index_count / 3, gc->slot_bytes);
    return gc;
}

void gfx_character_destroy(gfx_character *gc)
{
    if (!gc)
        return;
    gfx_remove_draw_hook(draw_hook, gc);
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        if (gc->fence[s])
            glDeleteSync(gc->fence[s]);
        if (gc->vao[s].id)
            glDeleteVertexArrays(1, &gc->vao[s].id);
    }
    if (gc->mapped)
        glUnmapNamedBuffer(gc->stream.id);
    GLuint bufs[4] = {gc->stream.id, gc->static_vbo.id, gc->ibo.id, gc->skin_vbo.id};
    glDeleteBuffers(4, bufs);
    for (int m = 0; m < GPU_METHODS; m++)
        for (int k = 0; k < KINDS; k++)
            gfx_shader_program_free(&gc->gpu[m][k].prog);
    gfx_shader_program_free(&gc->lit.prog);
    gfx_shader_program_free(&gc->lit_noshadow.prog);
    gfx_shader_program_free(&gc->shadow.prog);
    free(gc);
}

uint32_t gfx_character_mesh_first_vertex(const gfx_character *gc, uint32_t mesh)
{
    return mesh < gc->mesh_count ? gc->mesh_first[mesh] : gc->vertex_count;
}

bool gfx_character_begin_update(gfx_character *gc, gfx_character_stream *out)
{
    int s = (gc->ready + 1) % GFX_CHARACTER_SLOTS;
    if (gc->fence[s]) {
        GLenum r = glClientWaitSync(gc->fence[s], 0, 0);
        gc->stats.last_wait_ms = 0.0;
        if (r == GL_TIMEOUT_EXPIRED) {
            /* The GPU is more than two frames behind: wait, and count it. */
            struct timespec t0, t1;
            timespec_get(&t0, TIME_UTC);
            r = glClientWaitSync(gc->fence[s], GL_SYNC_FLUSH_COMMANDS_BIT, FENCE_TIMEOUT_NS);
            timespec_get(&t1, TIME_UTC);
            gc->stats.fence_waits++;
            gc->stats.last_wait_ms =
                (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
        }
        if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED) {
            log_error("render: %s: vertex stream fence wait failed", gc->label);
            return false;
        }
        glDeleteSync(gc->fence[s]);
        gc->fence[s] = NULL;
    }
    gc->writing = s;
    uint8_t *base = gc->mapped + (size_t)s * gc->slot_bytes;
    out->vertex_count = gc->vertex_count;
    out->positions = (float *)base;
    out->normals = (float *)(base + gc->off_normal);
    out->tangents = (float *)(base + gc->off_tangent);
    out->ao = (float *)(base + gc->off_ao);
    out->palette = (float *)(base + gc->off_palette);
    out->dq_palette = (float *)(base + gc->off_dq);
    out->slot = s;
    return true;
}

void gfx_character_end_update(gfx_character *gc)
{
    if (gc->writing < 0)
        return;
    gc->ready = gc->writing;
    gc->slot_mode[gc->ready] = gc->mode;
    gc->slot_influences[gc->ready] = gc->influences;
    gc->slot_joints[gc->ready] = gc->joint_count;
    gc->writing = -1;
    gc->stats.frames_updated++;
}

void gfx_character_set_transform(gfx_character *gc, const float model[16]) { memcpy(gc->model, model, sizeof gc->model); }

void gfx_character_set_visible(gfx_character *gc, bool visible) { gc->visible = visible; }

const gfx_character_stats *gfx_character_get_stats(const gfx_character *gc) { return &gc->stats; }

bool gfx_character_gpu_supported(const gfx_character *gc) { return gc->gpu_ok; }

bool gfx_character_set_skinning(gfx_character *gc, gfx_skin_mode mode, int influences, int joint_count)
{
    if (mode == GFX_SKIN_CPU) {
        gc->mode = mode;
        return true;
    }
    if (!gc->gpu_ok) {
        log_error("render: %s: GPU skinning is not available on this context (see the warning at start)", gc->label);
        return false;
    }
    if ((int)mode < 0 || (int)mode >= GPU_METHODS || influences < 1 || influences > 4 || joint_count < 1 ||
        joint_count > GFX_CHARACTER_MAX_JOINTS) {
        log_error("render: %s: GPU skinning method %d, %d influences, %d joints: out of range", gc->label, (int)mode,
                  influences, joint_count);
        return false;
    }
    gc->mode = mode;
    gc->influences = influences;
    gc->joint_count = joint_count;
    return true;
}

/* Binds slot S's palette (matrices or dual quaternions) and sets P's skinning uniforms. */
static void bind_palette(const gfx_character *gc, const program_locs *p, int s)
{
    bool dq = gc->slot_mode[s] == GFX_SKIN_GPU_DQS;
    GLintptr off = (GLintptr)((size_t)s * gc->slot_bytes + (dq ? gc->off_dq : gc->off_palette));
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, gc->stream.id, off,
                      (GLsizeiptr)(dq ? gc->dq_bytes : gc->palette_bytes));
    glProgramUniform1i(p->prog.id, p->u_influences, gc->slot_influences[s]);
    glProgramUniform1i(p->prog.id, p->u_joint_count, gc->slot_joints[s]);
}

bool gfx_character_capture(gfx_character *gc, float *out_pos, float *out_nrm, float *out_tan)
{
    int s = gc->ready;
    if (s < 0 || gc->slot_mode[s] == GFX_SKIN_CPU) {
        log_error("render: %s: capture needs a GPU-skinned slot", gc->label);
        return false;
    }
    const program_locs *p = &gc->gpu[gc->slot_mode[s]][KIND_CAPTURE];
    if (!p->prog.id) {
        char msg[256];
        gfx_character_gpu_limits_ok(gfx_get_info(), gc->slot_joints[s], 1, msg, sizeof msg);
        log_error("render: %s: cannot capture: %s", gc->label, msg);
        return false;
    }
    size_t bytes = (size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float);
    float *data = malloc(bytes);
    if (!data) {
        log_error("render: %s: out of memory for the capture", gc->label);
        return false;
    }
    GLuint buf;
    glCreateBuffers(1, &buf);
    glNamedBufferStorage(buf, (GLsizeiptr)bytes, NULL, 0);
    bind_palette(gc, p, s);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, buf);
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(gc->vao[s].id);
    glDrawArrays(GL_POINTS, 0, (GLsizei)gc->vertex_count);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(buf, 0, (GLsizeiptr)bytes, data);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, 0);
    glDeleteBuffers(1, &buf);
    for (size_t v = 0; v < gc->vertex_count; v++) {
        const float *d = data + v * CAPTURE_VEC4S * 4;
        memcpy(out_pos + 3 * v, d, 3 * sizeof(float));
        memcpy(out_nrm + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(out_tan + 4 * v, d + 8, 4 * sizeof(float));
    }
    free(data);
    return glGetError() == GL_NO_ERROR;
}

static void draw_hook(const gfx_pass_info *info, void *user)
{
    gfx_character *gc = user;
    if (!gc->visible || gc->ready < 0)
        return;
    int s = gc->ready;
    const program_locs *p;
    int kind = info->pass == GFX_PASS_SHADOW                 ? KIND_SHADOW
               : (info->frame->layers & GFX_LAYER_SHADOWS) ? KIND_LIT
                                                           : KIND_NOSHADOW;
    if (gc->slot_mode[s] != GFX_SKIN_CPU) {
        p = &gc->gpu[gc->slot_mode[s]][kind];
        bind_palette(gc, p, s);
    } else {
        p = kind == KIND_SHADOW ? &gc->shadow : kind == KIND_LIT ? &gc->lit : &gc->lit_noshadow;
    }
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    glBindVertexArray(gc->vao[s].id);
    glDrawElements(GL_TRIANGLES, (GLsizei)gc->index_count, GL_UNSIGNED_INT, NULL);
    glBindVertexArray(0);
    if (info->pass == GFX_PASS_MAIN) {
        /* The main pass is the slot's last reader this frame. */
        if (gc->fence[s])
            glDeleteSync(gc->fence[s]);
        gc->fence[s] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    }
}
