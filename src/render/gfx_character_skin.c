/* gfx_character_skin: the joint palette and GPU skinning (shaders/skin.glsl
 * through character.vert). A slot ended in a GPU mode holds this frame's
 * palette (3x4 matrices, or dual quaternions for DQS) and the bind pose of
 * the meshes the caller wrote (use_stream_bind; the others come from the
 * static bind pose) in its fenced stream slot; the vertex shader skins with
 * the slot's method, influence count and joint count. One program per method and kind
 * (lit, unshadowed, shadow, capture, skin-once compute pass), compiled when the
 * method is first chosen: llvmpipe spends ~1 MB and tens of ms per program. */
#include "render/gfx_character_internal.h"

#include "core/log.h"

#include <stdio.h>

bool gfx_character_gpu_limits_ok(const gfx_info_t *info, int joints, int extra_blocks, char *msg, size_t msg_size)
{
    int64_t need = (int64_t)joints * GFX_CHARACTER_MAT_FLOATS * (int64_t)sizeof(float);
    if (joints < 1 || joints > GFX_CHARACTER_MAX_JOINTS) {
        snprintf(msg, msg_size, "GPU skinning: %d joints, the palette holds 1 to %d", joints, GFX_CHARACTER_MAX_JOINTS);
        return false;
    }
    if (info->max_ssbo_block_size < need) {
        snprintf(msg, msg_size,
                 "GPU skinning: a %d-joint palette needs %lld bytes, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld", joints,
                 (long long)need, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < 1 + extra_blocks) {
        snprintf(msg, msg_size,
                 "GPU skinning needs %d vertex shader storage blocks, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS is %d",
                 1 + extra_blocks, info->max_vertex_ssbo_blocks);
        return false;
    }
    if (msg_size > 0)
        msg[0] = '\0';
    return true;
}

/* Whether the limits allow GPU skinning (otherwise the CPU path stays the
 * only one and that is logged once). The programs come later, per method. */
void gfx_char_skin_create(gfx_character_t *gc, const chr_character_t *c)
{
    char msg[256];
    GLint ssbo_align = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &ssbo_align);
    gc->skel_joints = (int)c->skel.joint_count;
    if (!gfx_character_gpu_limits_ok(gfx_get_info(), gc->skel_joints, 0, msg, sizeof msg)) {
        log_warn("render: %s: %s; skinning stays on the CPU", gc->label, msg);
        return;
    }
    if (ssbo_align <= 0 || STREAM_ALIGN % (unsigned)ssbo_align != 0) {
        log_warn(
            "render: %s: GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT %d does not divide %u; skinning stays on the CPU",
            gc->label, ssbo_align, STREAM_ALIGN);
        return;
    }
    gc->gpu_ok = true;
}

bool gfx_char_skin_build(gfx_character_t *gc, int m)
{
    if (gc->gpu_built[m])
        return true;
    if (gc->gpu_failed[m])
        return false;
    /* Meshes not written into a slot are skinned from the bind pose. */
    if (!gfx_char_skin_vertices_ready(gc) || !gfx_char_morph_upload_bind(gc)) {
        gc->gpu_failed[m] = true;
        return false;
    }
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[KINDS] = {{"character.vert", "character.frag", "", "lit"},
                      {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                      {"character_shadow.vert", "character_shadow.frag", "", "shadow"},
                      {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_CAPTURE\n", "capture"},
                      {NULL, NULL, "", "deform"}};
    char msg[256];
    for (int k = 0; k < KINDS; k++) {
        if (k == KIND_CAPTURE && !gfx_character_gpu_limits_ok(gfx_get_info(), gc->skel_joints, 1, msg, sizeof msg))
            continue; /* capture refused later with MSG */
        char defines[160], name[96];
        snprintf(defines, sizeof defines, "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD %d\n%s", m, kinds[k].defines);
        snprintf(name, sizeof name, "%s.gpu%d.%s", gc->label, m, kinds[k].what);
        bool built = k == KIND_DEFORM ? gfx_char_once_load_program(gc, &gc->gpu[m][k], false, defines, name)
                                      : gfx_char_load_program(&gc->gpu[m][k], kinds[k].vs, kinds[k].fs, defines, name);
        if (!built) {
            gc->gpu_failed[m] = true;
            return false;
        }
        if (k == KIND_LIT || k == KIND_NOSHADOW)
            gfx_char_set_materials(gc, &gc->gpu[m][k]);
    }
    gc->gpu_built[m] = true;
    return true;
}

void gfx_char_skin_destroy(gfx_character_t *gc)
{
    for (int m = 0; m < GPU_METHODS; m++)
        for (int k = 0; k < KINDS; k++)
            gfx_shader_program_free(&gc->gpu[m][k].prog);
}

bool gfx_character_gpu_supported(const gfx_character_t *gc) { return gc->gpu_ok; }

bool gfx_char_skin_choose(gfx_character_t *gc, const gfx_character_desc_t *d)
{
    int influences = d->influences ? d->influences : GFX_CHARACTER_MAX_INFLUENCES;
    int joints = d->joint_count ? d->joint_count : gc->skel_joints;
    if (!d->gpu_skin) {
        gc->mode = GFX_SKIN_CPU;
        gc->influences = influences;
        gc->joint_count = joints;
        return true;
    }
    if (!gc->gpu_ok) {
        log_error("render: %s: GPU skinning is not available on this context (see the warning at start)", gc->label);
        return false;
    }
    if (d->method < 0 || d->method >= GPU_METHODS || influences < 1 || influences > GFX_CHARACTER_MAX_INFLUENCES ||
        joints < 1 || joints > GFX_CHARACTER_MAX_JOINTS) {
        log_error("render: %s: GPU skinning method %d, %d influences, %d joints: out of range", gc->label, d->method,
                  influences, joints);
        return false;
    }
    /* The method's programs, compiled the first time it is chosen. */
    if (!gfx_char_skin_build(gc, d->method))
        return false;
    gc->mode = (gfx_skin_mode_t)d->method;
    gc->influences = influences;
    gc->joint_count = joints;
    return true;
}

/* Binds slot S's palette (matrices or dual quaternions) and sets P's skinning uniforms. */
void gfx_char_skin_bind_palette(const gfx_character_t *gc, const program_locs_t *p, int s)
{
    bool dq = gc->slot[s].mode == GFX_SKIN_GPU_DQS;
    GLintptr off = (GLintptr)(dq ? gc->off_dq - gc->off_palette : 0);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, gc->slot[s].frame_data.id, off,
                      (GLsizeiptr)(dq ? gc->dq_bytes : gc->palette_bytes));
    glProgramUniform1i(p->prog.id, p->u_influences, gc->slot[s].influences);
    glProgramUniform1i(p->prog.id, p->u_joint_count, gc->slot[s].joints);
}

void gfx_char_skin_use_program(const gfx_character_t *gc, const program_locs_t *p, int s)
{
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->slot[s].model);
    gfx_char_skin_bind_palette(gc, p, s);
}
