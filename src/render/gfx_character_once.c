/* gfx_character_once: skin once per frame (Cebenoyan, "Efficient
 * Animation"). With GPU skinning, the first pass that draws a slot morphs
 * and skins every vertex once by transform feedback (rasterizer discarded)
 * into that slot's feedback buffer; the shadow and the main pass then draw
 * the buffer with the CPU path's programs, which do no deformation. Same
 * vertices as per-pass deformation, one deformation instead of two. */
#include "render/gfx_character_internal.h"

#include "core/log.h"

#include <stdio.h>

/* Skin once (GPU skinning only): one feedback buffer per stream slot, so a
 * frame's pass never writes what an earlier frame still on the GPU reads,
 * and per slot a VAO that draws it with the plain programs. Built the first
 * time skin once is switched on. */
void gfx_char_once_build(gfx_character *gc)
{
    if (gc->once_built)
        return;
    gc->once_built = true;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        glCreateBuffers(1, &gc->skinned[s].id);
        /* GPU-only: written by transform feedback, read as vertex arrays. */
        glNamedBufferStorage(gc->skinned[s].id, (GLsizeiptr)((size_t)gc->vertex_count * FEEDBACK_VERTEX_BYTES), NULL,
                             0);
        snprintf(what, sizeof what, "skinned[%d]", s);
        gfx_char_label(GL_BUFFER, gc->skinned[s].id, gc->label, what);
    }
    glCreateTransformFeedbacks(1, &gc->tfo);
    gfx_char_label(GL_TRANSFORM_FEEDBACK, gc->tfo, gc->label, "skin_once");
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        /* The attributes of a slot's VAO, interleaved in the feedback buffer. */
        snprintf(what, sizeof what, "skinned_vao[%d]", s);
        GLuint vao = gfx_char_make_vao(gc, gc->skinned[s].id, 0, what), buf = gc->skinned[s].id;
        GLsizei stride = (GLsizei)FEEDBACK_VERTEX_BYTES;
        glVertexArrayVertexBuffer(vao, BIND_POS, buf, FEEDBACK_OFF_POS, stride);
        glVertexArrayVertexBuffer(vao, BIND_NORMAL, buf, FEEDBACK_OFF_NORMAL, stride);
        glVertexArrayVertexBuffer(vao, BIND_TANGENT, buf, FEEDBACK_OFF_TANGENT, stride);
        glVertexArrayVertexBuffer(vao, BIND_AO, buf, FEEDBACK_OFF_AO, stride);
        gc->skinned_vao[s].id = vao;
    }
}

void gfx_char_once_destroy(gfx_character *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        if (gc->skinned_vao[s].id)
            glDeleteVertexArrays(1, &gc->skinned_vao[s].id);
        if (gc->skinned[s].id)
            glDeleteBuffers(1, &gc->skinned[s].id);
    }
    if (gc->tfo)
        glDeleteTransformFeedbacks(1, &gc->tfo);
}

bool gfx_character_set_skin_once(gfx_character *gc, bool on)
{
    if (on && !gc->gpu_ok) {
        log_error("render: %s: skin once needs GPU skinning, not available on this context", gc->label);
        return false;
    }
    if (on)
        gfx_char_once_build(gc);
    gc->skin_once = on;
    return true;
}

/* Skin once: slot S's morph and skinning, once, into its feedback buffer
 * (rasterizer discard); returns the morphing draws. The passes of the frame
 * read the buffer after it in GL command order, so no barrier or fence is
 * needed (transform-feedback writes are ordered with later vertex fetches). */
uint32_t gfx_char_once_pass(gfx_character *gc, int s)
{
    uint32_t draws = 0;
    glEnable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, gc->tfo);
    if (gc->slot_morph[s] != GFX_CHARACTER_MORPH_CPU) {
        draws = gfx_char_morph_draw(gc, s, KIND_FEEDBACK, DRAW_FEEDBACK, gc->skinned[s].id);
    } else {
        gfx_char_skin_use_program(gc, &gc->gpu[gc->slot_mode[s]][KIND_FEEDBACK], s);
        glBindVertexArray(gc->vao[s].id);
        gfx_char_draw_range(gc, 0, gc->mesh_count, DRAW_FEEDBACK, gc->skinned[s].id);
        glBindVertexArray(0);
    }
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glDisable(GL_RASTERIZER_DISCARD);
    gc->slot_skinned[s] = true;
    gc->stats.feedback_passes++;
    gc->stats.feedback_morph_draws = draws;
    return draws;
}

void gfx_char_once_draw(gfx_character *gc, int s, int kind, bool main_pass)
{
    /* The frame's first pass deforms the slot once; every pass then draws
     * the feedback buffer with the CPU path's programs. */
    if (!gc->slot_skinned[s])
        gfx_char_once_pass(gc, s);
    const program_locs *p = gfx_char_cpu_program(gc, kind);
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    glBindVertexArray(gc->skinned_vao[s].id);
    gfx_char_draw_range(gc, 0, gc->mesh_count, DRAW_TRIANGLES, 0);
    glBindVertexArray(0);
    if (main_pass)
        gc->stats.morph_draws = gc->stats.feedback_morph_draws;
}
