/* gfx_character_morph: GPU blend shapes (Lorach, GPU Gems 3 ch. 3, through
 * shaders/morph.glsl). The first time a layout is asked for
 * (gfx_character_prepare_morph), every morphed mesh's deltas go once into an
 * immutable SSBO in that layout (dense: every target x vertex; sparse:
 * per-vertex runs of (target, delta)); a frame only writes each mesh's
 * active list (dense) and weight table (sparse) into its fenced stream slot.
 * The vertex shader morphs the bind pose (or a per-frame base written into
 * the slot, use_stream_bind) and then skins it. Meshes with no active
 * target that frame share skin-only draws. */
#include "render/gfx_character_internal.h"

#include "core/log.h"
#include "render/gfx_morph_records.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)GFX_CHARACTER_DELTA_FLOATS == (int)GFX_MORPH_CPU_DELTA_FLOATS, "the targets' deltas are bshape's");

bool gfx_character_morph_limits_ok(const gfx_info_t *info, int64_t block_bytes, int blocks, char *msg, size_t msg_size)
{
    if (info->max_ssbo_block_size < block_bytes) {
        snprintf(msg, msg_size, "a %lld-byte storage block is needed, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld",
                 (long long)block_bytes, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < blocks) {
        snprintf(msg, msg_size, "%d vertex shader storage blocks are needed, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS is %d",
                 blocks, info->max_vertex_ssbo_blocks);
        return false;
    }
    if (msg_size > 0)
        msg[0] = '\0';
    return true;
}

/* Limits and data of LAYOUT for every mesh with targets; false with a
 * one-line reason in MSG. */
static bool morph_layout_ok(const gfx_character_t *gc, const gfx_character_targets_t *morph,
                            gfx_character_morph_t layout, char *msg, size_t msg_size)
{
    const gfx_info_t *info = gfx_get_info();
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        const gfx_character_targets_t *t = &morph[m];
        uint64_t vc = gc->mesh_vertices[m], tc = t->target_count;
        if (tc == 0)
            continue;
        int64_t blocks[3] = {0, 0, 0};
        /* Both layouts are built from the sparse arrays. */
        if (!t->vertex_offset || !t->pair_target || !t->pair_delta) {
            snprintf(msg, msg_size, "mesh '%s': the sparse deltas were not built", gc->mesh_name[m]);
            return false;
        }
        for (uint64_t v = 0; v < vc; v++) {
            if (t->vertex_offset[v] > t->vertex_offset[v + 1]) {
                snprintf(msg, msg_size, "mesh '%s': sparse offsets decrease at vertex %llu", gc->mesh_name[m],
                         (unsigned long long)v);
                return false;
            }
        }
        if (t->vertex_offset[0] != 0 || t->vertex_offset[vc] != t->pair_count) {
            snprintf(msg, msg_size, "mesh '%s': sparse offsets do not span the %u pairs", gc->mesh_name[m],
                     t->pair_count);
            return false;
        }
        if (layout == GFX_CHARACTER_MORPH_DENSE) {
            /* morph.glsl indexes records with a uint. */
            if (tc * vc > UINT32_MAX) {
                snprintf(msg, msg_size, "mesh '%s': %llu x %llu dense records overflow a 32-bit index",
                         gc->mesh_name[m], (unsigned long long)tc, (unsigned long long)vc);
                return false;
            }
            blocks[0] = (int64_t)(tc * vc * MORPH_RECORD_BYTES);
            blocks[1] = (int64_t)(MORPH_ACTIVE_HEADER_BYTES + tc * sizeof(morph_entry_t));
        } else {
            blocks[0] = (int64_t)((t->pair_count ? t->pair_count : 1) * MORPH_RECORD_BYTES);
            blocks[1] = (int64_t)((vc + 1 + t->pair_count) * sizeof(uint32_t));
            blocks[2] = (int64_t)(tc * sizeof(float));
        }
        for (int b = 0; b < 3; b++) {
            char why[200];
            if (!gfx_character_morph_limits_ok(info, blocks[b], MORPH_BLOCKS(layout), why, sizeof why)) {
                snprintf(msg, msg_size, "mesh '%s': %s", gc->mesh_name[m], why);
                return false;
            }
        }
    }
    return true;
}

/* The immutable delta buffer of LAYOUT (every mesh's records; sparse: then
 * the offsets), from a staging copy freed before returning. */
static bool upload_morph_layout(gfx_character_t *gc, const gfx_character_targets_t *morph, gfx_character_morph_t layout,
                                char *msg, size_t msg_size)
{
    size_t total = 0;
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        morph_mesh_t *mm = &gc->morph[m];
        const gfx_character_targets_t *t = &morph[m];
        size_t vc = gc->mesh_vertices[m];
        if (mm->target_count == 0)
            continue;
        mm->delta_off[layout] = total;
        if (layout == GFX_CHARACTER_MORPH_DENSE)
            mm->delta_bytes[layout] = (size_t)mm->target_count * vc * MORPH_RECORD_BYTES;
        else /* at least one record: a bound range may not be empty */
            mm->delta_bytes[layout] = (size_t)(t->pair_count ? t->pair_count : 1) * MORPH_RECORD_BYTES;
        total += gfx_char_align(mm->delta_bytes[layout]);
        if (layout == GFX_CHARACTER_MORPH_SPARSE) {
            mm->offsets_off = total;
            /* The offsets, then each pair's target (morph.glsl). */
            mm->offsets_bytes = (vc + 1 + t->pair_count) * sizeof(uint32_t);
            total += gfx_char_align(mm->offsets_bytes);
        }
    }
    uint8_t *staging = calloc(total ? total : 1, 1);
    if (!staging) {
        snprintf(msg, msg_size, "out of memory for %zu bytes of deltas", total);
        return false;
    }
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        const morph_mesh_t *mm = &gc->morph[m];
        const gfx_character_targets_t *t = &morph[m];
        size_t vc = gc->mesh_vertices[m];
        if (mm->target_count == 0)
            continue;
        float *rec = (float *)(staging + mm->delta_off[layout]);
        if (layout == GFX_CHARACTER_MORPH_DENSE) {
            gfx_morph_records_dense_from_pairs(t->vertex_offset, t->pair_target, t->pair_delta, mm->target_count,
                                               (uint32_t)vc, rec);
        } else {
            gfx_morph_records_sparse(t->pair_delta, t->pair_target, t->pair_count, rec);
            memcpy(staging + mm->offsets_off, t->vertex_offset, (vc + 1) * sizeof(uint32_t));
            memcpy(staging + mm->offsets_off + (vc + 1) * sizeof(uint32_t), t->pair_target,
                   (size_t)t->pair_count * sizeof(uint32_t));
        }
    }
    glCreateBuffers(1, &gc->delta_buf[layout].id);
    /* Immutable and never mapped: written once here, read by vertex shaders. */
    glNamedBufferStorage(gc->delta_buf[layout].id, (GLsizeiptr)(total ? total : 1), staging, 0);
    gfx_char_label(GL_BUFFER, gc->delta_buf[layout].id, gc->label,
                   layout == GFX_CHARACTER_MORPH_DENSE ? "blend_deltas_dense" : "blend_deltas_sparse");
    free(staging);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        snprintf(msg, msg_size, "storing %zu bytes of deltas failed (GL error 0x%x)", total, err);
        glDeleteBuffers(1, &gc->delta_buf[layout].id);
        gc->delta_buf[layout].id = 0;
        return false;
    }
    gc->stats.delta_bytes += total;
    return true;
}

/* Which layouts fit the limits; nothing is uploaded or built yet. */
void gfx_char_morph_create(gfx_character_t *gc, const gfx_character_targets_t *morph)
{
    if (!morph || !gc->gpu_ok || gc->max_targets == 0)
        return;
    for (int layout = 0; layout < MORPH_LAYOUTS; layout++) {
        char msg[256];
        const char *name = layout == GFX_CHARACTER_MORPH_DENSE ? "dense" : "sparse";
        gc->morph_fits[layout] = morph_layout_ok(gc, morph, (gfx_character_morph_t)layout, msg, sizeof msg);
        if (!gc->morph_fits[layout])
            log_warn("render: %s: GPU blend shapes (%s): %s; blend shapes stay on the CPU in that layout", gc->label,
                     name, msg);
    }
}

/* A layout is uploaded and its programs (every skinning method and kind,
 * and the bake) built the first time it is asked for: the game skins and
 * morphs on the CPU and never does, and a layout once on the GPU stays
 * there, so slots still in flight keep drawing with the layout they were
 * written for (a rebuild on switch would have to wait for their fences).
 * The price of using both is GPU memory: dense holds every zero (30 MB for
 * the shipped head against 7 MB sparse). */
bool gfx_character_prepare_morph(gfx_character_t *gc, gfx_character_morph_t layout,
                                 const gfx_character_targets_t *morph)
{
    if (layout != GFX_CHARACTER_MORPH_SPARSE && layout != GFX_CHARACTER_MORPH_DENSE)
        return false;
    if (gc->morph_ok[layout])
        return true;
    if (!gc->morph_fits[layout] || gc->morph_failed[layout] || !morph)
        return false;
    char msg[256];
    const char *name = layout == GFX_CHARACTER_MORPH_DENSE ? "dense" : "sparse";
    /* The morphing programs skin too, from the bind pose (both uploaded by
     * the first GPU technique that reads them). */
    if (!gfx_char_skin_vertices_ready(gc) || !gfx_char_morph_upload_bind(gc)) {
        gc->morph_failed[layout] = true;
        return false;
    }
    /* The targets may differ from those create() was given in size only if
     * the caller broke the contract: check again. */
    if (!morph_layout_ok(gc, morph, layout, msg, sizeof msg) ||
        !upload_morph_layout(gc, morph, layout, msg, sizeof msg)) {
        log_warn("render: %s: GPU blend shapes (%s): %s; blend shapes stay on the CPU in that layout", gc->label, name,
                 msg);
        gc->morph_failed[layout] = true;
        return false;
    }
    for (int m = 0; m < GPU_METHODS; m++) {
        for (int k = 0; k < KINDS; k++) {
            if (k == KIND_CAPTURE &&
                !gfx_character_morph_limits_ok(gfx_get_info(), 0, MORPH_BLOCKS(layout) + 1, msg, sizeof msg))
                continue; /* capture refused later */
            static const char *const vs[KINDS] = {"character.vert", "character.vert", "character_shadow.vert",
                                                  "character.vert", NULL};
            static const char *const fs[KINDS] = {"character.frag", "character.frag", "character_shadow.frag",
                                                  "character_shadow.frag", NULL};
            static const char *const extra[KINDS] = {"", "#define STRIDER_NO_SHADOWS\n", "",
                                                     "#define STRIDER_SKIN_CAPTURE\n", ""};
            char defines[200], pname[96];
            snprintf(defines, sizeof defines,
                     "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD %d\n#define STRIDER_GPU_MORPH\n"
                     "#define MORPH_LAYOUT %d\n%s",
                     m, (int)layout, extra[k]);
            snprintf(pname, sizeof pname, "%s.morph_%s.gpu%d.%d", gc->label, name, m, k);
            program_locs_t *p = &gc->morph_prog[layout][m][k];
            bool built = k == KIND_DEFORM ? gfx_char_once_load_program(gc, p, true, defines, pname)
                                          : gfx_char_load_program(p, vs[k], fs[k], defines, pname);
            if (!built) {
                gc->morph_failed[layout] = true;
                return false;
            }
            if (k == KIND_LIT || k == KIND_NOSHADOW)
                gfx_char_set_materials(gc, &gc->morph_prog[layout][m][k]);
        }
    }
    char defines[160], pname[96];
    snprintf(defines, sizeof defines,
             "#define STRIDER_GPU_MORPH\n#define MORPH_LAYOUT %d\n#define STRIDER_MORPH_BAKE\n", (int)layout);
    snprintf(pname, sizeof pname, "%s.bake_%s", gc->label, name);
    if (!gfx_char_load_program(&gc->bake_prog[layout], "character.vert", "character_shadow.frag", defines, pname)) {
        gc->morph_failed[layout] = true;
        return false;
    }
    gc->morph_ok[layout] = true;
    return true;
}

/* The unmorphed bind pose, laid out like a stream slot's vertex arrays,
 * and bind_vao reading it (the base of the morphing draws and the bake). */
bool gfx_char_morph_upload_bind(gfx_character_t *gc)
{
    if (gc->bind_vbo.id)
        return true;
    const chr_character_t *c = gc->chr;
    size_t bytes = gc->off_ao + gfx_char_align((size_t)gc->vertex_count * sizeof(float));
    uint8_t *data = calloc(bytes, 1);
    if (!data) {
        log_error("render: %s: out of memory for the bind pose", gc->label);
        return false;
    }
    float *pos = (float *)data, *nrm = (float *)(data + gc->off_normal), *tan = (float *)(data + gc->off_tangent);
    float *ao = (float *)(data + gc->off_ao);
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        for (uint32_t v = 0; v < c->meshes[m].vertex_count; v++) {
            const chr_vertex_t *x = &c->meshes[m].vertices[v];
            size_t i = (size_t)gc->mesh_first[m] + v;
            memcpy(pos + 3 * i, x->pos, sizeof x->pos);
            memcpy(nrm + 3 * i, x->normal, sizeof x->normal);
            memcpy(tan + 4 * i, x->tangent, sizeof x->tangent);
            ao[i] = x->ao;
        }
    }
    glCreateBuffers(1, &gc->bind_vbo.id);
    glNamedBufferStorage(gc->bind_vbo.id, (GLsizeiptr)bytes, data, 0);
    gfx_char_label(GL_BUFFER, gc->bind_vbo.id, gc->label, "bind_pose");
    free(data);
    gc->bind_vao.id = gfx_char_make_vao(gc, gc->bind_vbo.id, 0, "bind_vao");
    return true;
}

void gfx_char_morph_destroy(gfx_character_t *gc)
{
    if (gc->bind_vao.id)
        glDeleteVertexArrays(1, &gc->bind_vao.id);
    GLuint bufs[3] = {gc->bind_vbo.id, gc->delta_buf[0].id, gc->delta_buf[1].id};
    glDeleteBuffers(3, bufs);
    for (int l = 0; l < MORPH_LAYOUTS; l++) {
        for (int m = 0; m < GPU_METHODS; m++)
            for (int k = 0; k < KINDS; k++)
                gfx_shader_program_free(&gc->morph_prog[l][m][k].prog);
        gfx_shader_program_free(&gc->bake_prog[l].prog);
    }
}

bool gfx_character_morph_supported(const gfx_character_t *gc, gfx_character_morph_t layout)
{
    return (layout == GFX_CHARACTER_MORPH_SPARSE || layout == GFX_CHARACTER_MORPH_DENSE) && gc->morph_fits[layout] &&
           !gc->morph_failed[layout];
}

/* Sums COUNT (target, weight) entries per target in the scratch and writes
 * the dense active list (ascending, non-zero: bshape_run's order) to ACTIVE
 * and the per-target weight table to WEIGHTS; returns the list's length.
 * The destinations may be write-combined mapped memory: written once. */
uint32_t gfx_char_morph_fill_lists(gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                   const float *weights, uint8_t *active, float *table)
{
    uint32_t tc = gc->morph[mesh].target_count;
    float *w = gc->weight_scratch;
    memset(w, 0, tc * sizeof *w);
    for (int i = 0; i < count; i++)
        w[targets[i]] += weights[i];
    morph_entry_t *e = (morph_entry_t *)(active + MORPH_ACTIVE_HEADER_BYTES);
    uint32_t n = 0;
    for (uint32_t t = 0; t < tc; t++) {
        if (w[t] != 0.0f) {
            e[n].target = t;
            e[n].weight = w[t];
            n++;
        }
    }
    uint32_t header[2] = {n, 0};
    memcpy(active, header, sizeof header);
    memcpy(table, w, tc * sizeof *w);
    return n;
}

bool gfx_char_morph_check_active(const gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                 const float *weights)
{
    if (mesh >= gc->mesh_count || gc->morph[mesh].target_count == 0) {
        log_error("render: %s: mesh %u has no blend shapes", gc->label, mesh);
        return false;
    }
    uint32_t tc = gc->morph[mesh].target_count;
    if (count < 0 || (count > 0 && (!targets || !weights))) {
        log_error("render: %s: mesh %u: bad active list (%d entries)", gc->label, mesh, count);
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (targets[i] >= tc || !isfinite(weights[i])) {
            log_error("render: %s: mesh %u active entry %d: target %u (of %u), weight %g", gc->label, mesh, i,
                      targets[i], tc, (double)weights[i]);
            return false;
        }
    }
    return true;
}

bool gfx_character_write_active(gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                const float *weights)
{
    if (gc->stream.writing < 0) {
        log_error("render: %s: write_active outside begin_update/end_update", gc->label);
        return false;
    }
    if (!gfx_char_morph_check_active(gc, mesh, count, targets, weights))
        return false;
    uint8_t *base = gfx_ring_slot(&gc->stream, gc->stream.writing);
    const morph_mesh_t *mm = &gc->morph[mesh];
    gc->active_now[mesh] = gfx_char_morph_fill_lists(gc, mesh, count, targets, weights, base + mm->off_active,
                                                     (float *)(base + mm->off_weights));
    gc->active_written[mesh] = true;
    return true;
}

bool gfx_character_use_stream_bind(gfx_character_t *gc, uint32_t mesh)
{
    if (gc->stream.writing < 0 || mesh >= gc->mesh_count) {
        log_error("render: %s: use_stream_bind: mesh %u outside begin_update/end_update or out of range", gc->label,
                  mesh);
        return false;
    }
    gc->stream_bind[mesh] = true;
    return true;
}

/* Binds mesh M's blend-shape ranges of LAYOUT (the lists from LIST_BUF at
 * ACTIVE_OFF / WEIGHTS_OFF) and sets P's morph uniforms. */
void gfx_char_morph_bind(const gfx_character_t *gc, const program_locs_t *p, gfx_character_morph_t layout, uint32_t m,
                         GLuint list_buf, size_t active_off, size_t weights_off)
{
    const morph_mesh_t *mm = &gc->morph[m];
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_DELTAS, gc->delta_buf[layout].id,
                      (GLintptr)mm->delta_off[layout], (GLsizeiptr)mm->delta_bytes[layout]);
    if (layout == GFX_CHARACTER_MORPH_DENSE) {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_WEIGHTS, list_buf, (GLintptr)active_off,
                          (GLsizeiptr)(MORPH_ACTIVE_HEADER_BYTES + mm->target_count * sizeof(morph_entry_t)));
    } else {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_WEIGHTS, list_buf, (GLintptr)weights_off,
                          (GLsizeiptr)(mm->target_count * sizeof(float)));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_OFFSETS, gc->delta_buf[layout].id,
                          (GLintptr)mm->offsets_off, (GLsizeiptr)mm->offsets_bytes);
    }
    glProgramUniform1i(p->prog.id, p->u_morph_first, (GLint)gc->mesh_first[m]);
    glProgramUniform1ui(p->prog.id, p->u_morph_vertices, gc->mesh_vertices[m]);
    glProgramUniform1ui(p->prog.id, p->u_morph_targets, mm->target_count);
}

/* Meshes [A, B) of slot S with P (its palette and blocks bound), their
 * base vertices from the slot's arrays (STREAM) or the bind pose: drawn HOW,
 * or dispatched by the skin-once compute pass. */
static void issue(const gfx_character_t *gc, int s, const program_locs_t *p, bool stream, uint32_t a, uint32_t b,
                  draw_how_t how)
{
    if (how == DRAW_COMPUTE) {
        gfx_char_once_bind_source(gc, s, stream);
        gfx_char_once_dispatch(gc, p, a, b);
    } else {
        glBindVertexArray(stream ? gc->slot[s].vao.id : gc->bind_vao.id);
        gfx_char_draw_range(gc, a, b, how);
    }
}

/* GPU-skinned slot S: with GPU blend shapes, each mesh with an active list
 * this frame is its own morphing draw; runs of the other meshes share one
 * skin-only draw.
 * A mesh's base vertices come from the bind pose, or from the slot's own
 * arrays where the caller wrote a per-frame bind pose there; the shaders
 * are the same, only the source changes. Returns the number of morphing
 * draws. */
uint32_t gfx_char_morph_draw(const gfx_character_t *gc, int s, int kind, draw_how_t how)
{
    gfx_character_morph_t layout = gc->slot[s].morph;
    int method = (int)gc->slot[s].mode;
    const program_locs_t *skin = &gc->gpu[method][kind];
    const program_locs_t *mp = layout != GFX_CHARACTER_MORPH_CPU ? &gc->morph_prog[layout][method][kind] : NULL;
    uint32_t draws = 0, run = UINT32_MAX;
    bool run_stream = false;
    for (uint32_t m = 0; m <= gc->mesh_count; m++) {
        bool end = m == gc->mesh_count;
        bool morph = !end && mp && gc->slot[s].active[m] > 0 && mp->prog.id;
        bool stream = !end && gc->slot[s].stream_bind[m];
        if (run != UINT32_MAX && (end || morph || stream != run_stream)) {
            gfx_char_skin_use_program(gc, skin, s);
            issue(gc, s, skin, run_stream, run, m, how);
            run = UINT32_MAX;
        }
        if (end)
            break;
        if (!morph) {
            if (run == UINT32_MAX) {
                run = m;
                run_stream = stream;
            }
            continue;
        }
        gfx_char_skin_use_program(gc, mp, s);
        gfx_char_morph_bind(gc, mp, layout, m, gc->slot[s].frame_data.id, gc->morph[m].off_active - gc->off_palette,
                            gc->morph[m].off_weights - gc->off_palette);
        issue(gc, s, mp, stream, m, m + 1, how);
        draws++;
    }
    glBindVertexArray(0);
    return draws;
}
