/* gfx_character_once: deform once per frame (Cebenoyan, "Efficient
 * Animation"). With GPU skinning, the first pass that draws a slot morphs
 * and skins every vertex once in a compute pass
 * (shaders/character_deform.comp: morph.glsl and skin.glsl, the vertex
 * shader's own code) into that slot's buffer of deformed vertices; the
 * shadow and the main pass then draw the buffer with the CPU path's
 * programs, which do no deformation. Same vertices as per-pass
 * deformation, one deformation instead of two.
 * Why compute and not transform feedback (which did this before): on an
 * NVIDIA H200 a transform-feedback draw of 91,020 points took 461 us
 * whatever its shader did (a pass-through shader as long as skinning),
 * about 0.2 G vertices/s and 14 us for a single point; the same work as a
 * compute pass writes at memory speed. */
#include "render/gfx_character_internal.h"

#include "core/log.h"
#include "render/gfx_validate.h"

#include <stdio.h>
#include <string.h>

/* One buffer of deformed vertices per stream slot, so a frame's pass never
 * writes what an earlier frame still on the GPU reads, and per slot a VAO
 * that draws it with the plain programs. Built the first time skin once is
 * switched on. */
void gfx_char_once_build(gfx_character_t *gc)
{
    if (gc->once_built)
        return;
    gc->once_built = true;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        glCreateBuffers(1, &gc->slot[s].skinned.id);
        /* GPU-only: written by the compute pass, read as vertex arrays. */
        glNamedBufferStorage(gc->slot[s].skinned.id, (GLsizeiptr)((size_t)gc->vertex_count * FEEDBACK_VERTEX_BYTES),
                             NULL, 0);
        snprintf(what, sizeof what, "skinned[%d]", s);
        gfx_char_label(GL_BUFFER, gc->slot[s].skinned.id, gc->label, what);
    }
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        /* The attributes of a slot's VAO, interleaved in the deformed buffer. */
        snprintf(what, sizeof what, "skinned_vao[%d]", s);
        GLuint vao = gfx_char_make_vao(gc, gc->slot[s].skinned.id, 0, what), buf = gc->slot[s].skinned.id;
        GLsizei stride = (GLsizei)FEEDBACK_VERTEX_BYTES;
        glVertexArrayVertexBuffer(vao, BIND_POS, buf, FEEDBACK_OFF_POS, stride);
        glVertexArrayVertexBuffer(vao, BIND_NORMAL, buf, FEEDBACK_OFF_NORMAL, stride);
        glVertexArrayVertexBuffer(vao, BIND_TANGENT, buf, FEEDBACK_OFF_TANGENT, stride);
        glVertexArrayVertexBuffer(vao, BIND_AO, buf, FEEDBACK_OFF_AO, stride);
        gc->slot[s].skinned_vao.id = vao;
    }
}

void gfx_char_once_destroy(gfx_character_t *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        if (gc->slot[s].skinned_vao.id)
            glDeleteVertexArrays(1, &gc->slot[s].skinned_vao.id);
        if (gc->slot[s].skinned.id)
            glDeleteBuffers(1, &gc->slot[s].skinned.id);
    }
}

bool gfx_char_once_load_program(gfx_character_t *gc, program_locs_t *p, bool morph, const char *defines,
                                const char *label)
{
    gfx_shader_program_desc_t d = {.cs = "character_deform.comp", .defines = defines, .label = label};
    memset(p, 0, sizeof *p);
    if (!gfx_shader_program_build(&p->prog, &d))
        return false;
    GLuint id = p->prog.id;
    p->u_model = -1;
    p->u_influences = glGetUniformLocation(id, "u_influences");
    p->u_joint_count = glGetUniformLocation(id, "u_joint_count");
    p->u_morph_first = glGetUniformLocation(id, "u_morph_first_vertex");
    p->u_morph_vertices = glGetUniformLocation(id, "u_morph_vertex_count");
    p->u_morph_targets = glGetUniformLocation(id, "u_morph_target_count");
    p->u_hybrid_t = -1;
    p->u_deform_first = glGetUniformLocation(id, "u_deform_first");
    p->u_deform_count = glGetUniformLocation(id, "u_deform_count");
    p->deform_group_vertices = morph ? DEFORM_MORPH_GROUP_VERTICES : DEFORM_GROUP_SIZE;
    /* The source is laid out as a stream slot (bind_vbo is too): offsets in floats. */
    glProgramUniform1ui(id, glGetUniformLocation(id, "u_source_normal"), (GLuint)(gc->off_normal / sizeof(float)));
    glProgramUniform1ui(id, glGetUniformLocation(id, "u_source_tangent"), (GLuint)(gc->off_tangent / sizeof(float)));
    glProgramUniform1ui(id, glGetUniformLocation(id, "u_source_ao"), (GLuint)(gc->off_ao / sizeof(float)));
    return true;
}

void gfx_char_once_bind_source(const gfx_character_t *gc, int s, bool stream)
{
    size_t bytes = gc->off_ao + (size_t)gc->vertex_count * sizeof(float);
    if (stream)
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_SOURCE, gc->stream.buffer.id,
                          (GLintptr)((size_t)s * gc->slot_bytes), (GLsizeiptr)bytes);
    else
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_SOURCE, gc->bind_vbo.id, 0, (GLsizeiptr)bytes);
}

void gfx_char_once_dispatch(const gfx_character_t *gc, const program_locs_t *p, uint32_t a, uint32_t b)
{
    uint32_t first = gc->mesh_first[a];
    uint32_t n = gc->mesh_first[b - 1] + gc->mesh_vertices[b - 1] - first;
    glProgramUniform1ui(p->prog.id, p->u_deform_first, first);
    glProgramUniform1ui(p->prog.id, p->u_deform_count, n);
    gfx_validate_dispatch("character deform");
    glDispatchCompute((n + p->deform_group_vertices - 1) / p->deform_group_vertices, 1, 1);
}

/* Skin once: slot S's morph and skinning, once, into its deformed-vertex
 * buffer; returns the morphing dispatches. The barrier orders the compute
 * writes before the passes' vertex fetches (and a capture's read-back). */
uint32_t gfx_char_once_pass(gfx_character_t *gc, int s, bool timed)
{
    uint32_t draws = 0;
    int f = gc->gpu_time_frame;
    if (timed)
        glQueryCounter(gc->gpu_time_query[f][4], GL_TIMESTAMP);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_SKIN, gc->skin_vbo.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_OUT, gc->slot[s].skinned.id);
    draws = gfx_char_morph_draw(gc, s, KIND_DEFORM, DRAW_COMPUTE);
    glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (timed) {
        glQueryCounter(gc->gpu_time_query[f][5], GL_TIMESTAMP);
        gc->gpu_time_issued[f][2] = true;
    }
    gc->slot[s].deformed = true;
    gc->stats.feedback_passes++;
    gc->stats.feedback_morph_draws = draws;
    return draws;
}

void gfx_char_once_draw(gfx_character_t *gc, int s, int kind, bool main_pass)
{
    /* The frame's first pass deforms the slot once; every pass then draws
     * the deformed buffer with the CPU path's programs. */
    if (!gc->slot[s].deformed)
        gfx_char_once_pass(gc, s, true);
    const program_locs_t *p = gfx_char_cpu_program(gc, kind);
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->slot[s].model);
    glBindVertexArray(gc->slot[s].skinned_vao.id);
    gfx_char_draw_range(gc, 0, gc->mesh_count, DRAW_TRIANGLES);
    glBindVertexArray(0);
    if (main_pass)
        gc->stats.morph_draws = gc->stats.feedback_morph_draws;
}
