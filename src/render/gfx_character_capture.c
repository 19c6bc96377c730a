/* gfx_character_capture: the GPU's deformed vertices read back, for tests
 * and tools; both stall. capture(): the current deformation of the last
 * finished slot (GPU skinning and blend shapes through the capture
 * variants writing an SSBO, a skin-once slot's feedback buffer, or a hybrid
 * slot's blended keys). bake(): one mesh's blend shapes (no skinning) by
 * transform feedback, the morphed bind pose of an active list (GPU Gems 3
 * section 3.4). */
#include "render/gfx_character_internal.h"
#include "render/gfx_validate.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads BYTES of vec4 records (CAPTURE_VEC4S per vertex) from BUF into the
 * caller's spans. */
static bool read_vertices(gfx_character_t *gc, GLuint buf, float *out_pos, float *out_nrm, float *out_tan,
                          float *out_ao)
{
    size_t bytes = (size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float);
    float *data = malloc(bytes);
    if (!data) {
        log_error("render: %s: out of memory for the capture", gc->label);
        return false;
    }
    glGetNamedBufferSubData(buf, 0, (GLsizeiptr)bytes, data);
    for (size_t v = 0; v < gc->vertex_count; v++) {
        const float *d = data + v * CAPTURE_VEC4S * 4;
        memcpy(out_pos + 3 * v, d, 3 * sizeof(float));
        memcpy(out_nrm + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(out_tan + 4 * v, d + 8, 4 * sizeof(float));
        if (out_ao)
            out_ao[v] = d[3];
    }
    free(data);
    return true;
}

_Static_assert(SKIN_FEEDBACK_VEC4S == CAPTURE_VEC4S, "the feedback buffer is read back like a capture");

/* Slot S (hybrid): the blended keys through the capture variant. */
static bool capture_hybrid(gfx_character_t *gc, int s, GLuint buf)
{
    const program_locs_t *p = &gc->hybrid_prog[KIND_CAPTURE];
    if (!p->prog.id) {
        log_error("render: %s: cannot capture the hybrid: no vertex shader storage blocks", gc->label);
        return false;
    }
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->slot[s].model);
    glProgramUniform1f(p->prog.id, p->u_hybrid_t, gc->slot[s].key_single ? 1.0f : gc->slot[s].hybrid_t);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, buf);
    gfx_bind_frame_uniforms();
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(gc->hybrid_vao[gc->slot[s].key].id);
    gfx_validate_draw("character capture");
    glDrawArrays(GL_POINTS, 0, (GLsizei)gc->vertex_count);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, 0);
    return true;
}

bool gfx_character_capture(gfx_character_t *gc, float *out_pos, float *out_nrm, float *out_tan, float *out_ao)
{
    int s = gc->stream.last;
    if (s >= 0 && gc->slot[s].hybrid_t >= 0.0f) {
        GLuint buf;
        glCreateBuffers(1, &buf);
        glNamedBufferStorage(buf, (GLsizeiptr)((size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float)), NULL, 0);
        bool ok = capture_hybrid(gc, s, buf) && read_vertices(gc, buf, out_pos, out_nrm, out_tan, out_ao);
        glDeleteBuffers(1, &buf);
        return ok && glGetError() == GL_NO_ERROR;
    }
    if (s >= 0 && gc->slot[s].mode != GFX_SKIN_CPU && gc->slot[s].skin_once) {
        /* The skin-once buffer itself, as the passes draw it. */
        if (!gc->slot[s].deformed)
            gfx_char_once_pass(gc, s, false);
        return read_vertices(gc, gc->slot[s].skinned.id, out_pos, out_nrm, out_tan, out_ao) &&
               glGetError() == GL_NO_ERROR;
    }
    if (s < 0 || gc->slot[s].mode == GFX_SKIN_CPU) {
        log_error("render: %s: capture needs a GPU-skinned slot", gc->label);
        return false;
    }
    const program_locs_t *p = &gc->gpu[gc->slot[s].mode][KIND_CAPTURE];
    gfx_character_morph_t layout = gc->slot[s].morph;
    if (!p->prog.id) {
        char msg[256];
        gfx_character_gpu_limits_ok(gfx_get_info(), gc->slot[s].joints, 1, msg, sizeof msg);
        log_error("render: %s: cannot capture: %s", gc->label, msg);
        return false;
    }
    if (layout != GFX_CHARACTER_MORPH_CPU && !gc->morph_prog[layout][gc->slot[s].mode][KIND_CAPTURE].prog.id) {
        char msg[256];
        if (gfx_character_morph_limits_ok(gfx_get_info(), 0, MORPH_BLOCKS(layout) + 1, msg, sizeof msg))
            snprintf(msg, sizeof msg, "its program was not built at create");
        log_error("render: %s: cannot capture the GPU blend shapes: %s", gc->label, msg);
        return false;
    }
    size_t bytes = (size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float);
    GLuint buf;
    glCreateBuffers(1, &buf);
    glNamedBufferStorage(buf, (GLsizeiptr)bytes, NULL, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, buf);
    gfx_bind_frame_uniforms();
    glEnable(GL_RASTERIZER_DISCARD);
    gfx_char_morph_draw(gc, s, KIND_CAPTURE, DRAW_POINTS);
    glDisable(GL_RASTERIZER_DISCARD);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    bool ok = read_vertices(gc, buf, out_pos, out_nrm, out_tan, out_ao);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, 0);
    glDeleteBuffers(1, &buf);
    return ok && glGetError() == GL_NO_ERROR;
}

bool gfx_character_bake(gfx_character_t *gc, const gfx_character_bake_job_t *job)
{
    if (!job || !job->out_positions || !job->out_normals || !job->out_tangents || !job->out_ao) {
        log_error("render: %s: bake without output spans", gc->label);
        return false;
    }
    if (job->layout < 0 || (int)job->layout >= MORPH_LAYOUTS || !gc->morph_ok[job->layout] ||
        !gc->bake_prog[job->layout].prog.id) {
        log_error("render: %s: cannot bake: GPU blend shapes in layout %d are not prepared", gc->label,
                  (int)job->layout);
        return false;
    }
    if (!gfx_char_morph_check_active(gc, job->mesh, job->active_count, job->active_target, job->active_weight))
        return false;
    uint32_t m = job->mesh, vc = gc->mesh_vertices[m];
    const morph_mesh_t *mm = &gc->morph[m];
    size_t active_bytes = gfx_char_align(MORPH_ACTIVE_HEADER_BYTES + (size_t)mm->target_count * sizeof(morph_entry_t));
    size_t list_bytes = active_bytes + (size_t)mm->target_count * sizeof(float);
    size_t out_bytes = (size_t)vc * BAKE_VEC4S * 4 * sizeof(float);
    uint8_t *lists = calloc(list_bytes, 1);
    float *data = malloc(out_bytes ? out_bytes : 1);
    if (!lists || !data || vc == 0) {
        free(lists);
        free(data);
        log_error("render: %s: cannot bake mesh %u (%u vertices, out of memory?)", gc->label, m, vc);
        return false;
    }
    gfx_char_morph_fill_lists(gc, m, job->active_count, job->active_target, job->active_weight, lists,
                              (float *)(lists + active_bytes));
    GLuint bufs[2], tfo, query;
    glCreateBuffers(2, bufs);
    glNamedBufferStorage(bufs[0], (GLsizeiptr)list_bytes, lists, 0);
    glNamedBufferStorage(bufs[1], (GLsizeiptr)out_bytes, NULL, 0);
    gfx_char_label(GL_BUFFER, bufs[1], gc->label, "bake_feedback");
    glCreateTransformFeedbacks(1, &tfo);
    glTransformFeedbackBufferBase(tfo, 0, bufs[1]);
    glCreateQueries(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, 1, &query);
    const program_locs_t *p = &gc->bake_prog[job->layout];
    /* The bake streams out bind-space vertices: the model matrix only
     * places the (discarded) points. */
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, identity);
    gfx_char_morph_bind(gc, p, job->layout, m, bufs[0], 0, active_bytes);
    gfx_bind_frame_uniforms();
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(gc->bind_vao.id);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, tfo);
    glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query);
    glBeginTransformFeedback(GL_POINTS);
    gfx_validate_draw("character bake");
    glDrawArrays(GL_POINTS, (GLint)gc->mesh_first[m], (GLsizei)vc);
    glEndTransformFeedback();
    glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    GLuint written = 0;
    glGetQueryObjectuiv(query, GL_QUERY_RESULT, &written);
    glGetNamedBufferSubData(bufs[1], 0, (GLsizeiptr)out_bytes, data);
    glDeleteQueries(1, &query);
    glDeleteTransformFeedbacks(1, &tfo);
    glDeleteBuffers(2, bufs);
    for (size_t v = 0; v < vc; v++) {
        const float *d = data + v * BAKE_VEC4S * 4;
        memcpy(job->out_positions + 3 * v, d, 3 * sizeof(float));
        job->out_ao[v] = d[3];
        memcpy(job->out_normals + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(job->out_tangents + 4 * v, d + 8, 4 * sizeof(float));
    }
    free(lists);
    free(data);
    GLenum err = glGetError();
    if (written != vc || err != GL_NO_ERROR) {
        log_error("render: %s: bake of mesh %u wrote %u of %u vertices (GL error 0x%x)", gc->label, m, written, vc,
                  err);
        return false;
    }
    return true;
}
