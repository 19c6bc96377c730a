/* gfx_character: the frame of the character renderer. create() lays out
 * the fenced stream slots and uploads the static vertex data, then lets each
 * technique build what it needs (gfx_character_skin, _morph, _once,
 * _hybrid); begin_update/end_update hand out a slot and record how it is to
 * be deformed; the draw hook draws the ready slot in the shadow and main
 * passes, choosing the technique it was ended with. */
#include "render/gfx_character_internal.h"
#include "render/gfx_timer.h"
#include "render/gfx_validate.h"

#include "asset/lod.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void draw_hook(const gfx_pass_info_t *info, void *user);

void gfx_char_label(GLenum kind, GLuint id, const char *base, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", base, what);
    glObjectLabel(kind, id, -1, name);
}

bool gfx_char_load_program(program_locs_t *p, const char *vs, const char *fs, const char *defines, const char *label)
{
    if (!gfx_shader_program_load(&p->prog, vs, fs, defines, label))
        return false;
    p->u_model = glGetUniformLocation(p->prog.id, "u_model");
    p->u_influences = glGetUniformLocation(p->prog.id, "u_influences");
    p->u_joint_count = glGetUniformLocation(p->prog.id, "u_joint_count");
    p->u_morph_first = glGetUniformLocation(p->prog.id, "u_morph_first_vertex");
    p->u_morph_vertices = glGetUniformLocation(p->prog.id, "u_morph_vertex_count");
    p->u_morph_targets = glGetUniformLocation(p->prog.id, "u_morph_target_count");
    p->u_hybrid_t = glGetUniformLocation(p->prog.id, "u_hybrid_t");
    return true;
}

/* The lit programs' material arrays, kept from create so that programs
 * built later (on first use) get them too. */
static void keep_materials(gfx_character_t *gc, const chr_character_t *c)
{
    for (uint32_t i = 0; i < c->material_count && i < MATERIAL_SLOTS; i++) {
        const chr_material_t *m = &c->materials[i];
        memcpy(gc->material_color[i], m->color, sizeof gc->material_color[i]);
        gc->material_params[i][0] = m->roughness;
        gc->material_params[i][1] = m->subsurface;
    }
}

void gfx_char_set_materials(const gfx_character_t *gc, const program_locs_t *p)
{
    GLint lc = glGetUniformLocation(p->prog.id, "u_material_color");
    GLint lp = glGetUniformLocation(p->prog.id, "u_material_params");
    if (lc >= 0)
        glProgramUniform4fv(p->prog.id, lc, MATERIAL_SLOTS, &gc->material_color[0][0]);
    if (lp >= 0)
        glProgramUniform4fv(p->prog.id, lp, MATERIAL_SLOTS, &gc->material_params[0][0]);
}

const program_locs_t *gfx_char_cpu_program(const gfx_character_t *gc, int kind)
{
    return kind == KIND_SHADOW ? &gc->caster : kind == KIND_LIT ? &gc->lit : &gc->lit_noshadow;
}

static bool upload_static(gfx_character_t *gc, const chr_character_t *c)
{
    static_vertex_t *sv = malloc((size_t)gc->vertex_count * sizeof *sv);
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
        /* The mesh's triangles in the vertex cache's order (asset/lod with
         * nothing removed): fewer vertex shader runs, where a GPU's vertex
         * stage is its bottleneck (an H100/H200: docs/GPU.md). The file's
         * order where that fails (logged). */
        chr_lod_t order = {0};
        const uint32_t *src = mesh->index_count > 0 && chr_lod_build(mesh, 1.0f, 0.0f, &order) ? order.indices
                                                                                               : mesh->indices;
        for (uint32_t i = 0; i < mesh->index_count; i++)
            idx[ii++] = src[i] + gc->mesh_first[m];
        chr_lod_free(&order);
    }
    glCreateBuffers(1, &gc->static_vbo.id);
    glNamedBufferStorage(gc->static_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *sv), sv, 0);
    gfx_char_label(GL_BUFFER, gc->static_vbo.id, gc->label, "static_vertices");
    glCreateBuffers(1, &gc->ibo.id);
    glNamedBufferStorage(gc->ibo.id, (GLsizeiptr)((size_t)gc->index_count * sizeof *idx), idx, 0);
    gfx_char_label(GL_BUFFER, gc->ibo.id, gc->label, "indices");
    free(sv);
    gc->cpu_indices = idx; /* the sample cull reads them */
    return true;
}

/* The joints and weights of VAO, read only by the GPU-skinning variants
 * (enabled once skin_vbo exists). */
static void attach_skin(const gfx_character_t *gc, GLuint vao)
{
    if (!vao || !gc->skin_vbo.id)
        return;
    glVertexArrayVertexBuffer(vao, BIND_SKIN, gc->skin_vbo.id, 0, sizeof(skin_vertex_t));
    glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
    glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, (GLuint)offsetof(skin_vertex_t, joints));
    glVertexArrayAttribBinding(vao, ATTR_JOINTS, BIND_SKIN);
    glEnableVertexArrayAttrib(vao, ATTR_WEIGHTS);
    glVertexArrayAttribFormat(vao, ATTR_WEIGHTS, 4, GL_FLOAT, GL_FALSE, (GLuint)offsetof(skin_vertex_t, weights));
    glVertexArrayAttribBinding(vao, ATTR_WEIGHTS, BIND_SKIN);
}

bool gfx_char_skin_vertices_ready(gfx_character_t *gc)
{
    if (gc->skin_vbo.id)
        return true;
    const chr_character_t *c = gc->chr;
    skin_vertex_t *kv = malloc((size_t)gc->vertex_count * sizeof *kv);
    if (!kv) {
        log_error("render: %s: out of memory for the joints and weights of %u vertices", gc->label, gc->vertex_count);
        return false;
    }
    uint32_t iv = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++)
        for (uint32_t v = 0; v < c->meshes[m].vertex_count; v++, iv++) {
            memcpy(kv[iv].joints, c->meshes[m].vertices[v].joints, sizeof kv[iv].joints);
            memcpy(kv[iv].weights, c->meshes[m].vertices[v].weights, sizeof kv[iv].weights);
        }
    glCreateBuffers(1, &gc->skin_vbo.id);
    glNamedBufferStorage(gc->skin_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *kv), kv, 0);
    gfx_char_label(GL_BUFFER, gc->skin_vbo.id, gc->label, "skin_vertices");
    free(kv);
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        attach_skin(gc, gc->slot[s].vao.id);
        attach_skin(gc, gc->slot[s].skinned_vao.id);
    }
    for (int k = 0; k < KEY_SLOTS; k++)
        attach_skin(gc, gc->hybrid_vao[k].id);
    attach_skin(gc, gc->bind_vao.id);
    return true;
}

/* A VAO reading position/normal/tangent/AO from BUF at BASE (+ the slot
 * offsets) and the static attributes (and the joints and weights, once
 * uploaded). */
GLuint gfx_char_make_vao(const gfx_character_t *gc, GLuint buf, GLintptr base, const char *what)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, BIND_POS, buf, base, 3 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_NORMAL, buf, base + (GLintptr)gc->off_normal, 3 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_TANGENT, buf, base + (GLintptr)gc->off_tangent, 4 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_AO, buf, base + (GLintptr)gc->off_ao, sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_STATIC, gc->static_vbo.id, 0, sizeof(static_vertex_t));
    glVertexArrayElementBuffer(vao, gc->ibo.id);
    attach_skin(gc, vao);
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
    glVertexArrayAttribFormat(vao, ATTR_UV, 2, GL_FLOAT, GL_FALSE, (GLuint)offsetof(static_vertex_t, uv));
    glVertexArrayAttribBinding(vao, ATTR_UV, BIND_STATIC);
    /* The character has no vertex colours: its material index rides in
     * the colour slot as an integer attribute. */
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribIFormat(vao, ATTR_COLOR, 1, GL_UNSIGNED_INT, (GLuint)offsetof(static_vertex_t, material));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, BIND_STATIC);
    gfx_char_label(GL_VERTEX_ARRAY, vao, gc->label, what);
    return vao;
}

/* The stream slots' VAOs (the skin-once, bind-pose and hybrid VAOs are
 * made by their techniques). */
static void make_vaos(gfx_character_t *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        snprintf(what, sizeof what, "vao[%d]", s);
        gc->slot[s].vao.id = gfx_char_make_vao(gc, gc->stream.buffer.id, (GLintptr)((size_t)s * gc->slot_bytes), what);
    }
}

/* The meshes' ranges in the shared vertex and index arrays, their names
 * and blend-shape target counts, and the totals, checked against the
 * format's limits; false (one line logged) when out of them. */
static bool count_meshes(gfx_character_t *gc, const chr_character_t *c, const gfx_character_targets_t *morph)
{
    uint64_t vcount = 0, icount = 0;
    gc->mesh_count = c->mesh_count;
    gc->cull_meshes = chr_cullable_meshes(c);
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        gc->mesh_first[m] = (uint32_t)vcount;
        gc->mesh_vertices[m] = c->meshes[m].vertex_count;
        memcpy(gc->mesh_name[m], c->meshes[m].name, CHR_NAME_MAX);
        gc->mesh_name[m][CHR_NAME_MAX - 1] = '\0';
        gc->index_first[m] = (uint32_t)icount;
        gc->index_counts[m] = c->meshes[m].index_count;
        vcount += c->meshes[m].vertex_count;
        icount += c->meshes[m].index_count;
        uint32_t tc = morph ? morph[m].target_count : 0;
        if (tc > CHR_MAX_SHAPES + CHR_MAX_CORRECTIVES) {
            log_error("render: %s: mesh %u has %u blend-shape targets, at most %d", gc->label, m, tc,
                      CHR_MAX_SHAPES + CHR_MAX_CORRECTIVES);
            return false;
        }
        gc->morph[m].target_count = tc;
        gc->max_targets = tc > gc->max_targets ? tc : gc->max_targets;
    }
    if (vcount == 0 || icount == 0 || vcount > CHR_MAX_VERTICES || icount > (uint64_t)CHR_MAX_INDICES * 2) {
        log_error("render: %s: %llu vertices, %llu indices: nothing to draw or too many", gc->label,
                  (unsigned long long)vcount, (unsigned long long)icount);
        return false;
    }
    gc->vertex_count = (uint32_t)vcount;
    gc->index_count = (uint32_t)icount;
    return true;
}

/* One stream slot's layout: the deformed positions, normals, tangents and
 * AO, the joint palette and dual quaternions (the frame data), then each
 * morphed mesh's active list (dense) and weight table (sparse). */
static void lay_out_slot(gfx_character_t *gc)
{
    size_t v = gc->vertex_count;
    gc->off_normal = gfx_char_align(v * 3 * sizeof(float));
    gc->off_tangent = gc->off_normal + gfx_char_align(v * 3 * sizeof(float));
    gc->off_ao = gc->off_tangent + gfx_char_align(v * 4 * sizeof(float));
    gc->off_palette = gc->off_ao + gfx_char_align(v * sizeof(float));
    gc->palette_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_MAT_FLOATS * sizeof(float);
    gc->off_dq = gc->off_palette + gfx_char_align(gc->palette_bytes);
    gc->dq_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_DQ_FLOATS * sizeof(float);
    gc->slot_bytes = gc->off_dq + gfx_char_align(gc->dq_bytes);
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        morph_mesh_t *mm = &gc->morph[m];
        if (mm->target_count == 0)
            continue;
        mm->off_active = gc->slot_bytes;
        gc->slot_bytes += gfx_char_align(MORPH_ACTIVE_HEADER_BYTES + (size_t)mm->target_count * sizeof(morph_entry_t));
        mm->off_weights = gc->slot_bytes;
        gc->slot_bytes += gfx_char_align((size_t)mm->target_count * sizeof(float));
    }
}

/* The persistently mapped vertex stream (GFX_CHARACTER_SLOTS slots), the
 * slots' VAOs and their frame-data buffers; false (logged) when the stream
 * cannot be mapped. */
static bool create_stream(gfx_character_t *gc)
{
    if (!gfx_ring_create(&gc->stream, GFX_CHARACTER_SLOTS, gc->slot_bytes, gc->label, "deformed_stream",
                         "vertex stream"))
        return false;
    make_vaos(gc);
    gc->frame_data_bytes = gc->slot_bytes - gc->off_palette;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        glCreateBuffers(1, &gc->slot[s].frame_data.id);
        glNamedBufferStorage(gc->slot[s].frame_data.id, (GLsizeiptr)gc->frame_data_bytes, NULL, 0);
        snprintf(what, sizeof what, "frame_data[%d]", s);
        gfx_char_label(GL_BUFFER, gc->slot[s].frame_data.id, gc->label, what);
    }
    return true;
}

gfx_character_t *gfx_character_create(const chr_character_t *c, const gfx_character_targets_t *morph, const char *label)
{
    if (!c || c->mesh_count == 0 || c->mesh_count > CHR_MAX_MESHES) {
        log_error("render: %s: no meshes to draw", label ? label : "character");
        return NULL;
    }
    gfx_character_t *gc = calloc(1, sizeof *gc);
    if (!gc) {
        log_error("render: out of memory for a character");
        return NULL;
    }
    snprintf(gc->label, sizeof gc->label, "%s", label ? label : "character");
    gc->chr = c;
    gfx_ring_init(&gc->stream);
    gfx_ring_init(&gc->keys);
    gc->hybrid_t = -1.0f;
    gc->visible = true;
    for (int k = 0; k < 16; k++)
        gc->next_model[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    if (!count_meshes(gc, c, morph)) {
        free(gc);
        return NULL;
    }
    lay_out_slot(gc);
    gc->mode = GFX_SKIN_CPU;
    gc->morph_mode = GFX_CHARACTER_MORPH_CPU;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        gc->slot[s].mode = GFX_SKIN_CPU;
        gc->slot[s].morph = GFX_CHARACTER_MORPH_CPU;
        gc->slot[s].hybrid_t = -1.0f;
    }
    gc->weight_scratch = calloc(gc->max_targets ? gc->max_targets : 1, sizeof *gc->weight_scratch);
    if (!gc->weight_scratch) {
        log_error("render: out of memory for a character");
        free(gc);
        return NULL;
    }

    /* The CPU path's lit program now (its shadow pass draws with the
     * renderer's depth program); its program without shadows (the menu's
     * toggle, noshadow_ready) and every other
     * technique's programs and buffers when first used (a few of those
     * compile dozens of shader variants and hold deltas that llvmpipe
     * copies: ~70 MB; each program held costs about 1 MB there). */
    keep_materials(gc, c);
    char name[96];
    snprintf(name, sizeof name, "%s.lit", gc->label);
    bool ok = gfx_char_load_program(&gc->lit, "character.vert", "character.frag", NULL, name);
    if (!ok || !upload_static(gc, c) || !gfx_char_cull_create(gc)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    gfx_char_skin_create(gc, c);
    gfx_char_morph_create(gc, morph);
    gfx_char_set_materials(gc, &gc->lit);

    if (!create_stream(gc)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    if (!gfx_add_draw_hook(draw_hook, gc)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    glGenQueries(GPU_TIME_FRAMES * 6, &gc->gpu_time_query[0][0]);
    gc->stats.gpu_ms = -1.0;
    gc->stats.vertex_count = gc->vertex_count;
    gc->stats.triangle_count = gc->index_count / 3;
    gc->stats.stream_bytes = (uint32_t)gc->slot_bytes;
    log_debug("render: %s: %u vertices, %u triangles, %zu bytes per stream slot", gc->label, gc->vertex_count,
              gc->index_count / 3, gc->slot_bytes);
    return gc;
}

void gfx_character_destroy(gfx_character_t *gc)
{
    if (!gc)
        return;
    gfx_remove_draw_hook(draw_hook, gc);
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++)
        if (gc->slot[s].vao.id)
            glDeleteVertexArrays(1, &gc->slot[s].vao.id);
    if (gc->gpu_time_query[0][0])
        glDeleteQueries(GPU_TIME_FRAMES * 6, &gc->gpu_time_query[0][0]);
    gfx_char_once_destroy(gc);
    gfx_char_cull_destroy(gc);
    gfx_char_hybrid_destroy(gc);
    gfx_char_morph_destroy(gc);
    gfx_char_skin_destroy(gc);
    gfx_ring_destroy(&gc->stream);
    GLuint bufs[3] = {gc->static_vbo.id, gc->ibo.id, gc->skin_vbo.id};
    glDeleteBuffers(3, bufs);
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++)
        if (gc->slot[s].frame_data.id)
            glDeleteBuffers(1, &gc->slot[s].frame_data.id);
    free(gc->weight_scratch);
    gfx_shader_program_free(&gc->lit.prog);
    gfx_shader_program_free(&gc->lit_noshadow.prog);
    gfx_shader_program_free(&gc->lit_nofog[0].prog);
    gfx_shader_program_free(&gc->lit_nofog[1].prog);
    free(gc);
}

uint32_t gfx_character_mesh_first_vertex(const gfx_character_t *gc, uint32_t mesh)
{
    return mesh < gc->mesh_count ? gc->mesh_first[mesh] : gc->vertex_count;
}

/* Waits for *FENCE (if any) and deletes it; counts a wait in the stats.
 * False (one logged line naming WHAT) when the GPU does not get there. */
bool gfx_char_wait_fence(gfx_character_t *gc, GLsync *fence, const char *what)
{
    if (!*fence)
        return true;
    GLenum r = glClientWaitSync(*fence, 0, 0);
    gc->stats.last_wait_ms = 0.0;
    if (r == GL_TIMEOUT_EXPIRED) {
        /* The GPU is more than two frames behind: wait, and count it. */
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        r = glClientWaitSync(*fence, GL_SYNC_FLUSH_COMMANDS_BIT, FENCE_TIMEOUT_NS);
        timespec_get(&t1, TIME_UTC);
        gc->stats.fence_waits++;
        gc->stats.last_wait_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED) {
        log_error("render: %s: %s fence wait failed", gc->label, what);
        return false;
    }
    glDeleteSync(*fence);
    *fence = NULL;
    return true;
}

/* DESC's settings for the update, built and checked as each technique
 * needs (one line and false when it cannot run here). */
static bool take_desc(gfx_character_t *gc, const gfx_character_desc_t *d)
{
    if (!gfx_char_skin_choose(gc, d))
        return false;
    gc->morph_mode = GFX_CHARACTER_MORPH_CPU;
    if (d->gpu_skin && d->gpu_morph) {
        gfx_character_morph_t layout = d->dense ? GFX_CHARACTER_MORPH_DENSE : GFX_CHARACTER_MORPH_SPARSE;
        if (!gc->morph_ok[layout]) {
            log_error("render: %s: GPU blend shapes in the %s layout are not prepared (gfx_character_prepare_morph)",
                      gc->label, d->dense ? "dense" : "sparse");
            return false;
        }
        gc->morph_mode = layout;
    }
    gc->skin_once = d->gpu_skin && d->skin_once;
    if (gc->skin_once)
        gfx_char_once_build(gc);
    float t = d->hybrid_t;
    gc->hybrid_t = d->gpu_skin || !d->hybrid ? -1.0f : !(t > 0.0f) ? 0.0f : t > 1.0f ? 1.0f : t;
    for (int k = 0; k < 16; k++)
        gc->next_model[k] = d->transform ? d->model[k] : (k % 5 == 0) ? 1.0f : 0.0f;
    return true;
}

bool gfx_character_begin_update(gfx_character_t *gc, const gfx_character_desc_t *desc, gfx_character_stream_t *out)
{
    if (!take_desc(gc, desc))
        return false;
    int s = gfx_ring_next(&gc->stream);
    if (!gfx_char_wait_fence(gc, &gc->stream.fence[s], "vertex stream"))
        return false;
    gfx_ring_begin(&gc->stream, s);
    gc->reach[3] = -1.0f;
    memset(gc->active_written, 0, sizeof gc->active_written);
    memset(gc->stream_bind, 0, sizeof gc->stream_bind);
    uint8_t *base = gfx_ring_slot(&gc->stream, s);
    out->vertex_count = gc->vertex_count;
    /* With the sample cull, positions go to cacheable memory first: it reads them. */
    out->positions = gc->slot[s].pos ? gc->slot[s].pos : (float *)base;
    out->normals = (float *)(base + gc->off_normal);
    out->tangents = (float *)(base + gc->off_tangent);
    out->ao = (float *)(base + gc->off_ao);
    out->palette = (float *)(base + gc->off_palette);
    out->dq_palette = (float *)(base + gc->off_dq);
    out->slot = s;
    return true;
}

void gfx_character_end_update(gfx_character_t *gc)
{
    if (gc->stream.writing < 0)
        return;
    gfx_ring_end(&gc->stream);
    int s = gc->stream.last;
    char_slot_t *sl = &gc->slot[s];
    /* The slot's palettes and lists into device memory, before the draws. */
    glCopyNamedBufferSubData(gc->stream.buffer.id, sl->frame_data.id,
                             (GLintptr)((size_t)s * gc->slot_bytes + gc->off_palette), 0,
                             (GLsizeiptr)gc->frame_data_bytes);
    if (sl->pos)
        memcpy(gfx_ring_slot(&gc->stream, s), sl->pos, (size_t)gc->vertex_count * 3 * sizeof(float));
    sl->mode = gc->mode;
    memcpy(sl->reach, gc->reach, sizeof gc->reach);
    memcpy(sl->model, gc->next_model, sizeof gc->next_model);
    sl->influences = gc->influences;
    sl->joints = gc->joint_count;
    /* CPU skinning takes vertices the CPU has morphed. */
    sl->morph = gc->mode == GFX_SKIN_CPU ? GFX_CHARACTER_MORPH_CPU : gc->morph_mode;
    for (uint32_t m = 0; m < gc->mesh_count; m++)
        sl->active[m] = gc->active_written[m] ? gc->active_now[m] : 0;
    memcpy(sl->stream_bind, gc->stream_bind, sizeof gc->stream_bind);
    /* Skin once needs the compute programs (built with the GPU ones). */
    sl->skin_once = gc->skin_once && gc->mode != GFX_SKIN_CPU && sl->skinned.id;
    sl->deformed = false;
    /* The hybrid blends keys on the CPU path only, once a key exists. */
    bool hybrid = gc->hybrid_t >= 0.0f && gc->mode == GFX_SKIN_CPU && gc->keys.last >= 0;
    sl->hybrid_t = hybrid ? gc->hybrid_t : -1.0f;
    sl->key = gc->keys.last;
    sl->key_single = gc->key_single;
    gc->stats.frames_updated++;
}

void gfx_character_set_reach(gfx_character_t *gc, const float center[3], float radius_cm)
{
    bool ok = isfinite(center[0]) && isfinite(center[1]) && isfinite(center[2]) && isfinite(radius_cm);
    memcpy(gc->reach, center, 3 * sizeof(float));
    gc->reach[3] = ok ? radius_cm : -1.0f;
}

void gfx_character_set_fog_everywhere(gfx_character_t *gc, bool on) { gc->fog_everywhere = on; }

void gfx_character_set_all_triangles(gfx_character_t *gc, bool on) { gc->all_triangles = on; }

void gfx_character_set_visible(gfx_character_t *gc, bool visible) { gc->visible = visible; }

const gfx_character_stats_t *gfx_character_get_stats(const gfx_character_t *gc) { return &gc->stats; }

/* Meshes [A, B) as triangles, or as points (capture, bake). */
void gfx_char_draw_range(const gfx_character_t *gc, uint32_t a, uint32_t b, draw_how_t how)
{
    if (how == DRAW_POINTS) {
        uint32_t n = gc->mesh_first[b - 1] + gc->mesh_vertices[b - 1] - gc->mesh_first[a];
        gfx_validate_draw("character points");
        glDrawArrays(GL_POINTS, (GLint)gc->mesh_first[a], (GLsizei)n);
    } else {
        gfx_char_draw_triangles(gc, a, b, gc->index_first, gc->index_counts);
    }
}

void gfx_char_draw_triangles(const gfx_character_t *gc, uint32_t a, uint32_t b, const uint32_t *first,
                             const uint32_t *counts)
{
    /* Runs of meshes alike in being culled: one draw each (the meshes'
     * indices follow one another). A closed (or one-sided) surface seen
     * from outside shows only its front faces, so culling the back ones
     * changes no pixel (of the picture or the shadow map) and halves the
     * triangles a software rasteriser sets up. */
    for (uint32_t m = a; m < b;) {
        bool cull = (gc->cull_meshes >> m) & 1u;
        uint32_t e = m + 1;
        while (e < b && ((gc->cull_meshes >> e) & 1u) == cull)
            e++;
        uint32_t n = first[e - 1] + counts[e - 1] - first[m];
        if (n > 0) {
            if (cull)
                glEnable(GL_CULL_FACE);
            gfx_validate_draw("character triangles");
            glDrawElements(GL_TRIANGLES, (GLsizei)n, GL_UNSIGNED_INT,
                           (const void *)((uintptr_t)first[m] * sizeof(uint32_t)));
            if (cull)
                glDisable(GL_CULL_FACE);
        }
        m = e;
    }
}

/* The CPU path's program without the shadow lookup, built the first time
 * a frame has shadows off. False if it cannot be (logged once): the lit
 * program draws instead. */
static bool noshadow_ready(gfx_character_t *gc)
{
    if (gc->lit_noshadow.prog.id)
        return true;
    if (gc->noshadow_failed)
        return false;
    char name[96];
    snprintf(name, sizeof name, "%s.lit_noshadow", gc->label);
    if (!gfx_char_load_program(&gc->lit_noshadow, "character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n",
                               name)) {
        gc->noshadow_failed = true;
        return false;
    }
    gfx_char_set_materials(gc, &gc->lit_noshadow);
    return true;
}

/* The CPU path's program of KIND (lit, or without the shadow lookup)
 * without the fog, built the first time it is asked for; NULL if it cannot
 * be (logged once): the one with the fog draws instead. */
static const program_locs_t *nofog_program(gfx_character_t *gc, int kind)
{
    int k = kind == KIND_NOSHADOW;
    program_locs_t *p = &gc->lit_nofog[k];
    if (!p->prog.id && !gc->nofog_failed[k]) {
        char name[96];
        snprintf(name, sizeof name, "%s.lit%s_nofog", gc->label, k ? "_noshadow" : "");
        if (gfx_char_load_program(
                p, "character.vert", "character.frag",
                k ? "#define STRIDER_NO_SHADOWS\n#define STRIDER_NO_FOG\n" : "#define STRIDER_NO_FOG\n", name))
            gfx_char_set_materials(gc, p);
        else
            gc->nofog_failed[k] = true;
    }
    return p->prog.id ? p : NULL;
}

/* Whether every vertex of slot S lies nearer INFO's eye than the fog's
 * start (or the fog is off): the fog amount is 0 for all of them. */
static bool slot_before_fog(const gfx_character_t *gc, int s, const gfx_pass_info_t *info)
{
    if (gc->fog_everywhere)
        return false;
    if (info->fog_free_cm < 0.0f)
        return true;
    const float *r = gc->slot[s].reach;
    if (!(r[3] >= 0.0f))
        return false;
    /* The transform stretches no length by more than the Frobenius norm
     * of its 3x3 part (sqrt 3 for the rotation it is meant to be). */
    float f2 = 0.0f, d2 = 0.0f;
    for (int c = 0; c < 3; c++) {
        const float *model = gc->slot[s].model, *col = &model[4 * c];
        f2 += col[0] * col[0] + col[1] * col[1] + col[2] * col[2];
        float w = model[c] * r[0] + model[4 + c] * r[1] + model[8 + c] * r[2] + model[12 + c];
        float e = info->frame->eye[c] - w;
        d2 += e * e;
    }
    float scale = sqrtf(f2);
    float reach = r[3];
    return sqrtf(d2) + scale * reach < info->fog_free_cm;
}

/* Frame F's character GPU time, if both passes were timed and the last
 * timestamp is back; the ring entry is free again either way. */
static void collect_gpu_time(gfx_character_t *gc, int f)
{
    bool *issued = gc->gpu_time_issued[f];
    if (!issued[0] && !issued[1] && !issued[2])
        return;
    GLuint *q = gc->gpu_time_query[f];
    if (gfx_timestamp_ready(q[issued[1] ? 3 : 1])) {
        gc->stats.gpu_ms = gfx_timestamp_passes_ms(q, issued, 2);
        gc->stats.gpu_deform_ms = issued[2] ? gfx_timestamp_span_ms(q[4], q[5]) : 0.0;
        gc->stats.gpu_samples++;
    }
    issued[0] = issued[1] = issued[2] = false;
}

static void draw_slot(gfx_character_t *gc, const gfx_pass_info_t *info);

/* One pass of the frame (shadow, then main), timed on the GPU: the main
 * pass ends the character's frame and collects the oldest frame's time. */
static void draw_hook(const gfx_pass_info_t *info, void *user)
{
    gfx_character_t *gc = user;
    if (!gc->visible || gc->stream.last < 0)
        return;
    int f = gc->gpu_time_frame, pass = info->pass == GFX_PASS_MAIN;
    glQueryCounter(gc->gpu_time_query[f][2 * pass], GL_TIMESTAMP);
    draw_slot(gc, info);
    glQueryCounter(gc->gpu_time_query[f][2 * pass + 1], GL_TIMESTAMP);
    gc->gpu_time_issued[f][pass] = true;
    if (pass) {
        gc->gpu_time_frame = (f + 1) % GPU_TIME_FRAMES;
        collect_gpu_time(gc, gc->gpu_time_frame);
    }
}

/* One pass of the frame (shadow, then main): the ready slot, drawn the way
 * it was ended with. Order of the techniques: skin once, the hybrid, GPU
 * blend shapes (with GPU skinning), then one draw of the slot (GPU skinning
 * of the slot's bind pose, or the CPU's deformed vertices). */
static void draw_slot(gfx_character_t *gc, const gfx_pass_info_t *info)
{
    int s = gc->stream.last;
    int kind = info->pass == GFX_PASS_SHADOW               ? KIND_SHADOW
               : (info->frame->layers & GFX_LAYER_SHADOWS) ? KIND_LIT
                                                           : KIND_NOSHADOW;
    if (kind == KIND_NOSHADOW && !noshadow_ready(gc))
        kind = KIND_LIT;
    if (kind == KIND_SHADOW)
        gc->caster = (program_locs_t){.prog = info->caster,
                                      .u_model = info->caster_u_model,
                                      .u_influences = -1,
                                      .u_joint_count = -1,
                                      .u_morph_first = -1,
                                      .u_morph_vertices = -1,
                                      .u_morph_targets = -1,
                                      .u_hybrid_t = -1};
    bool main_pass = info->pass == GFX_PASS_MAIN;
    if (main_pass)
        gc->stats.fog_free = false;
    /* Every triangle, unless the sample cull says otherwise. */
    gc->stats.triangles_drawn[main_pass] = gc->index_count / 3;
    gc->stats.triangles_culled[main_pass] = 0;
    bool once = gc->slot[s].mode != GFX_SKIN_CPU && gc->slot[s].skin_once;
    if (once) {
        gfx_char_once_draw(gc, s, kind, main_pass);
    } else if (gc->slot[s].hybrid_t >= 0.0f) {
        gfx_char_hybrid_draw(gc, s, kind, main_pass);
    } else if (gc->slot[s].mode != GFX_SKIN_CPU) {
        uint32_t draws = gfx_char_morph_draw(gc, s, kind, DRAW_TRIANGLES);
        if (main_pass)
            gc->stats.morph_draws = draws;
    } else {
        const program_locs_t *p = gfx_char_cpu_program(gc, kind), *q;
        bool fog_free = kind != KIND_SHADOW && slot_before_fog(gc, s, info) && (q = nofog_program(gc, kind));
        if (fog_free)
            p = q;
        if (main_pass)
            gc->stats.fog_free = fog_free;
        glUseProgram(p->prog.id);
        glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->slot[s].model);
        glBindVertexArray(gc->slot[s].vao.id);
        if (!gfx_char_cull_draw(gc, s, info))
            gfx_char_draw_range(gc, 0, gc->mesh_count, DRAW_TRIANGLES);
        glBindVertexArray(0);
        if (main_pass)
            gc->stats.morph_draws = 0;
    }
    if (main_pass) {
        /* The main pass is the slot's last reader this frame. */
        gfx_ring_fence(&gc->stream, s);
        if (gc->slot[s].hybrid_t >= 0.0f)
            gfx_char_hybrid_fence_keys(gc, s);
    }
}
