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
enum { BIND_POS = 0, BIND_NORMAL, BIND_TANGENT, BIND_AO, BIND_STATIC };
/* Material arrays in character.frag; must match CHR_MAX_MATERIALS. */
#define MATERIAL_SLOTS CHR_MAX_MATERIALS

/* Static per-vertex data: uv and the material index. */
typedef struct static_vertex {
    float uv[2];
    uint32_t material;
} static_vertex;

typedef struct program_locs {
    gfx_program prog;
    GLint u_model;
} program_locs;

struct gfx_character {
    char label[64];
    uint32_t vertex_count, index_count, mesh_count;
    uint32_t mesh_first[CHR_MAX_MESHES];
    gfx_buffer stream;            /* GFX_CHARACTER_SLOTS x slot_bytes, persistently mapped */
    gfx_buffer static_vbo, ibo;
    gfx_vertex_array vao[GFX_CHARACTER_SLOTS];
    uint8_t *mapped;
    size_t slot_bytes;
    size_t off_normal, off_tangent, off_ao; /* inside a slot; positions at 0 */
    GLsync fence[GFX_CHARACTER_SLOTS];
    int writing;                  /* slot handed out by begin_update, -1 none */
    int ready;                    /* slot drawn, -1 until the first end_update */
    program_locs lit, lit_noshadow, shadow;
    float model[16];
    bool visible;
    gfx_character_stats stats;
};

static size_t align_up(size_t v) { return (v + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN; }

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

static bool upload_static(gfx_character *gc, const chr_character_t *c)
{
    static_vertex *sv = malloc((size_t)gc->vertex_count * sizeof *sv);
    uint32_t *idx = malloc((size_t)gc->index_count * sizeof *idx);
    if (!sv || !idx) {
        free(sv);
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
        }
        for (uint32_t i = 0; i < mesh->index_count; i++)
            idx[ii++] = mesh->indices[i] + gc->mesh_first[m];
    }
    glCreateBuffers(1, &gc->static_vbo.id);
    glNamedBufferStorage(gc->static_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *sv), sv, 0);
    label_object(GL_BUFFER, gc->static_vbo.id, gc->label, "static_vertices");
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
        glVertexArrayElementBuffer(vao, gc->ibo.id);
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
    gc->slot_bytes = gc->off_ao + align_up(v * sizeof(float));

    char name[96];
    snprintf(name, sizeof name, "%s.lit", gc->label);
    bool ok = load_program(&gc->lit, "character.vert", "character.frag", NULL, name);
    snprintf(name, sizeof name, "%s.lit_noshadow", gc->label);
    ok = ok && load_program(&gc->lit_noshadow, "character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n",
                            name);
    snprintf(name, sizeof name, "%s.shadow", gc->label);
    ok = ok && load_program(&gc->shadow, "character_shadow.vert", "character_shadow.frag", NULL, name);
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
    GLuint bufs[3] = {gc->stream.id, gc->static_vbo.id, gc->ibo.id};
    glDeleteBuffers(3, bufs);
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
    return true;
}

void gfx_character_end_update(gfx_character *gc)
{
    if (gc->writing < 0)
        return;
    gc->ready = gc->writing;
    gc->writing = -1;
    gc->stats.frames_updated++;
}

void gfx_character_set_transform(gfx_character *gc, const float model[16]) { memcpy(gc->model, model, sizeof gc->model); }

void gfx_character_set_visible(gfx_character *gc, bool visible) { gc->visible = visible; }

const gfx_character_stats *gfx_character_get_stats(const gfx_character *gc) { return &gc->stats; }

static void draw_hook(const gfx_pass_info *info, void *user)
{
    gfx_character *gc = user;
    if (!gc->visible || gc->ready < 0)
        return;
    const program_locs *p;
    if (info->pass == GFX_PASS_SHADOW)
        p = &gc->shadow;
    else if (info->frame->layers & GFX_LAYER_SHADOWS)
        p = &gc->lit;
    else
        p = &gc->lit_noshadow;
    int s = gc->ready;
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
