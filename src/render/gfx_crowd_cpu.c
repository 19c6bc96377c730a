/* gfx_crowd_cpu: the crowd's CPU deformation mode (see gfx_crowd.h). At
 * create each level of detail gets its own vertices (those its triangles
 * use), so a far member skins only what it draws: their bind pose, normals,
 * tangents, joints and weights are the jobs' sources (CPU memory), the rest
 * (uv, AO, material) a static buffer, and the level's indices are remapped
 * onto them. Per update, gfx_crowd_cpu_jobs() culls with the frame's views,
 * lays the members out in the next slot of the skinned-vertex ring and
 * hands out one skin job each; the draw hook draws them with the same
 * instanced draws as the GPU mode, the instance attribute being where the
 * member's vertices start. */
#include "render/gfx_crowd_internal.h"
#include "render/gfx_timer.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The level's vertices: REMAP[v] is full vertex v's place among level L's
 * (UINT32_MAX: unused), in the full mesh's order; returns their count. */
static uint32_t level_vertices(const gfx_crowd_t *gc, const uint32_t *idx, int l, uint32_t *remap)
{
    for (uint32_t v = 0; v < gc->vertex_count; v++)
        remap[v] = 0;
    uint32_t m0 = gc->index_first[l][0],
             m1 = gc->index_first[l][gc->mesh_count - 1] + gc->index_counts[l][gc->mesh_count - 1];
    for (uint32_t k = m0; k < m1; k++)
        remap[idx[k]] = 1;
    uint32_t n = 0;
    for (uint32_t v = 0; v < gc->vertex_count; v++)
        remap[v] = remap[v] ? n++ : UINT32_MAX;
    return n;
}

/* The sources and the static vertices of every level, and the indices onto
 * them (into CPU_IDX, as long as the full index list); false when memory
 * runs out. */
static bool build_levels(gfx_crowd_t *gc, const crowd_vertex_t *v, const uint32_t *idx, crowd_vertex_t **out_static,
                         uint32_t *cpu_idx)
{
    crowd_cpu_t *cpu = &gc->cpu;
    uint32_t *remap = malloc((size_t)gc->vertex_count * GFX_CROWD_LODS * sizeof *remap);
    if (!remap)
        return false;
    uint32_t total = 0;
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        cpu->first[l] = total;
        cpu->vertices[l] = level_vertices(gc, idx, l, remap + (size_t)l * gc->vertex_count);
        total += cpu->vertices[l];
    }
    crowd_vertex_t *st = malloc((size_t)total * sizeof *st);
    cpu->pos = malloc((size_t)total * 3 * sizeof(float));
    cpu->nrm = malloc((size_t)total * 3 * sizeof(float));
    cpu->tan = malloc((size_t)total * 4 * sizeof(float));
    cpu->weights = malloc((size_t)total * 4 * sizeof(float));
    cpu->joints = malloc((size_t)total * 4 * sizeof(uint16_t));
    if (!st || !cpu->pos || !cpu->nrm || !cpu->tan || !cpu->weights || !cpu->joints) {
        free(st);
        free(remap);
        return false;
    }
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        const uint32_t *r = remap + (size_t)l * gc->vertex_count;
        for (uint32_t i = 0; i < gc->vertex_count; i++) {
            if (r[i] == UINT32_MAX)
                continue;
            size_t o = cpu->first[l] + r[i];
            st[o] = v[i];
            memcpy(cpu->pos + 3 * o, v[i].pos, sizeof v[i].pos);
            memcpy(cpu->nrm + 3 * o, v[i].normal, sizeof v[i].normal);
            memcpy(cpu->tan + 4 * o, v[i].tangent, sizeof v[i].tangent);
            memcpy(cpu->weights + 4 * o, v[i].weights, sizeof v[i].weights);
            memcpy(cpu->joints + 4 * o, v[i].joints, sizeof v[i].joints);
        }
        uint32_t m0 = gc->index_first[l][0],
                 m1 = gc->index_first[l][gc->mesh_count - 1] + gc->index_counts[l][gc->mesh_count - 1];
        for (uint32_t k = m0; k < m1; k++)
            cpu_idx[k] = cpu->first[l] + r[idx[k]];
    }
    free(remap);
    *out_static = st;
    return true;
}

/* The static buffer's VAO: uv, AO and material per level vertex (the
 * positions, normals and tangents come from the skinned slot), and the
 * instance attribute from the list ring, divisor 1. */
static void make_vao(gfx_crowd_t *gc)
{
    crowd_cpu_t *cpu = &gc->cpu;
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, BIND_VERTEX, cpu->vbo.id, 0, sizeof(crowd_vertex_t));
    glVertexArrayElementBuffer(vao, cpu->ibo.id);
    gfx_crowd_static_attribs(gc, vao);
    gfx_crowd_label_object(GL_VERTEX_ARRAY, vao, gc->label, "cpu.vao");
    cpu->vao.id = vao;
}

/* Whether this context can read the skinned vertices from a shader
 * storage block of SLOT_BYTES (one logged line when not). */
static bool limits_ok(const gfx_crowd_t *gc, size_t slot_bytes)
{
    const gfx_info_t *info = gfx_get_info();
    size_t lit0 = (size_t)gc->cpu.vertices[0] * CPU_LIT_FLOATS * sizeof(float);
    if (info->max_ssbo_bindings <= SSBO_CROWD_VERTICES || info->max_vertex_ssbo_blocks < 1) {
        log_warn("render: %s: GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS %d: the CPU mode reads binding %d; "
                 "the crowd stays GPU-skinned",
                 gc->label, info->max_ssbo_bindings, SSBO_CROWD_VERTICES);
        return false;
    }
    if (slot_bytes < lit0 || (int64_t)slot_bytes > info->max_ssbo_block_size) {
        log_warn("render: %s: a CPU-skinned slot of %zu bytes: not one member at level 0 (%zu) or over "
                 "GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld; the crowd stays GPU-skinned",
                 gc->label, slot_bytes, lit0, (long long)info->max_ssbo_block_size);
        return false;
    }
    return true;
}

bool gfx_crowd_cpu_create(gfx_crowd_t *gc, const chr_character_t *c, const crowd_vertex_t *v, const uint32_t *indices,
                          size_t slot_bytes)
{
    crowd_cpu_t *cpu = &gc->cpu;
    crowd_vertex_t *st = NULL;
    uint32_t *cpu_idx = malloc((size_t)gc->index_count * sizeof *cpu_idx);
    bool ok = cpu_idx && build_levels(gc, v, indices, &st, cpu_idx);
    if (!ok) {
        free(cpu_idx);
        log_warn("render: %s: out of memory for the CPU mode's vertices; the crowd stays GPU-skinned", gc->label);
        return false;
    }
    size_t max_bytes = (size_t)gfx_get_info()->max_ssbo_block_size;
    if (slot_bytes > max_bytes && max_bytes > 0)
        slot_bytes = max_bytes / SLOT_ALIGN * SLOT_ALIGN;
    uint32_t total = cpu->first[GFX_CROWD_LODS - 1] + cpu->vertices[GFX_CROWD_LODS - 1];
    glCreateBuffers(1, &cpu->vbo.id);
    glNamedBufferStorage(cpu->vbo.id, (GLsizeiptr)((size_t)total * sizeof *st), st, 0);
    gfx_crowd_label_object(GL_BUFFER, cpu->vbo.id, gc->label, "cpu.vertices");
    glCreateBuffers(1, &cpu->ibo.id);
    glNamedBufferStorage(cpu->ibo.id, (GLsizeiptr)((size_t)gc->index_count * sizeof *cpu_idx), cpu_idx, 0);
    gfx_crowd_label_object(GL_BUFFER, cpu->ibo.id, gc->label, "cpu.indices");
    free(st);
    ok = gfx_crowd_cull_create(gc, cpu_idx);
    free(cpu_idx);
    if (!ok || !limits_ok(gc, slot_bytes) ||
        !gfx_crowd_load_programs(gc, c, "#define STRIDER_CROWD_CPU\n", "cpu.", cpu->prog))
        return false;
    if (!gfx_ring_create(&cpu->verts, GFX_CROWD_SLOTS, gfx_crowd_align_up(slot_bytes), gc->label, "skinned",
                         "skinned vertex ring"))
        return false;
    cpu->slot_floats = slot_bytes / sizeof(float);
    cpu->palette = calloc((size_t)gc->max_instances * (size_t)gc->joint_count * GFX_CROWD_MAT_FLOATS, sizeof(float));
    cpu->jobs = calloc((size_t)gc->max_instances, sizeof *cpu->jobs);
    if (!cpu->palette || !cpu->jobs) {
        log_warn("render: %s: out of memory for the CPU mode's palettes; the crowd stays GPU-skinned", gc->label);
        return false;
    }
    make_vao(gc);
    gc->stats.cpu_slot_bytes = slot_bytes;
    cpu->ok = true;
    log_debug("render: %s: CPU mode: %u / %u / %u vertices by level, slots of %zu bytes", gc->label, cpu->vertices[0],
              cpu->vertices[1], cpu->vertices[2], slot_bytes);
    return true;
}

void gfx_crowd_cpu_destroy(gfx_crowd_t *gc)
{
    crowd_cpu_t *cpu = &gc->cpu;
    for (int k = 0; k < PROGS; k++)
        gfx_shader_program_free(&cpu->prog[k].prog);
    gfx_ring_destroy(&cpu->verts);
    if (cpu->vao.id)
        glDeleteVertexArrays(1, &cpu->vao.id);
    GLuint bufs[2] = {cpu->vbo.id, cpu->ibo.id};
    glDeleteBuffers(2, bufs);
    free(cpu->pos);
    free(cpu->nrm);
    free(cpu->tan);
    free(cpu->weights);
    free(cpu->joints);
    free(cpu->palette);
    free(cpu->jobs);
    gfx_crowd_cull_destroy(gc);
    memset(cpu, 0, sizeof *cpu);
    gfx_ring_init(&cpu->verts);
    gc->stats.cpu_slot_bytes = 0;
}

/* Member I's job at level L into FLOATS at OFF of the slot: in view
 * (LIT: positions, normals, tangents) or casting only (positions). */
static void fill_job(const gfx_crowd_t *gc, skin_job_t *j, int i, int l, bool lit, float *slot, size_t off)
{
    const crowd_cpu_t *cpu = &gc->cpu;
    size_t f = cpu->first[l], n = cpu->vertices[l];
    float *out = slot + off;
    /* Blended matrices with the level's influences, renormalised: the
     * math of skin.glsl's SKIN_METHOD 1 (the GPU mode's). */
    *j = (skin_job_t){.vertex_count = (int)n,
                      .influences = gfx_crowd_lod_influences(l),
                      .method = SKIN_LBS_MATRIX,
                      .isa = SKIN_ISA_AUTO,
                      .positions = cpu->pos + 3 * f,
                      .normals = lit ? cpu->nrm + 3 * f : NULL,
                      .tangents = lit ? cpu->tan + 4 * f : NULL,
                      .joints_u16 = cpu->joints + 4 * f,
                      .weights = cpu->weights + 4 * f,
                      .joint_count = gc->joint_count,
                      .palette = cpu->palette + (size_t)i * (size_t)gc->joint_count * GFX_CROWD_MAT_FLOATS,
                      .out_positions = out,
                      .out_normals = lit ? out + 3 * n : NULL,
                      .out_tangents = lit ? out + 6 * n : NULL};
}

/* Lays the update's members out in vertex slot VS and the lists; the jobs
 * they need into cpu->jobs. False when they do not fit the slot. */
static bool lay_out(gfx_crowd_t *gc, const crowd_view_t *view, int vs, uint32_t *lists, int *jobs, int *bad)
{
    crowd_cpu_t *cpu = &gc->cpu;
    int count = gc->writing_count;
    const float *bounds = gc->bounds + (size_t)gc->palettes.writing * (size_t)gc->max_instances * 4;
    float *slot = (float *)gfx_ring_slot(&cpu->verts, vs);
    size_t used = 0, n = (size_t)gc->max_instances;
    int lit = 0, shadow_only = 0;
    uint64_t vertices = 0;
    *jobs = *bad = 0;
    for (int i = 0; i < count; i++) {
        bool seen, casts;
        int lod, slod;
        if (!gfx_crowd_classify(gc, view, &bounds[4 * i], &seen, &lod, &casts, &slod)) {
            ++*bad;
            continue;
        }
        if (!seen && !casts)
            continue;
        /* One in view casts with the vertices it is drawn with. */
        int l = seen ? lod : slod;
        size_t need = (size_t)cpu->vertices[l] * (seen ? CPU_LIT_FLOATS : CPU_SHADOW_FLOATS);
        if (used + need > cpu->slot_floats)
            return false;
        fill_job(gc, &cpu->jobs[(*jobs)++], i, l, seen, slot, used);
        int ml = GFX_CROWD_PASS_MAIN * GFX_CROWD_LODS + lod, sl = GFX_CROWD_PASS_SHADOW * GFX_CROWD_LODS + slod;
        if (seen)
            lists[(size_t)ml * n + (size_t)gc->list_count[ml]++] = (uint32_t)used;
        if (casts)
            lists[(size_t)sl * n + (size_t)gc->list_count[sl]++] = (uint32_t)used;
        used += need;
        vertices += cpu->vertices[l];
        lit += seen;
        shadow_only += !seen;
    }
    cpu->used_floats[vs] = used;
    gc->stats.cpu_lit = lit;
    gc->stats.cpu_shadow_only = shadow_only;
    gc->stats.cpu_vertices = vertices;
    gc->stats.cpu_bytes_used = used * sizeof(float);
    return true;
}

bool gfx_crowd_cpu_jobs(gfx_crowd_t *gc, const gfx_frame_desc_t *frame, const skin_job_t **jobs, int *count)
{
    crowd_cpu_t *cpu = &gc->cpu;
    *jobs = cpu->jobs;
    *count = 0;
    if (gc->palettes.writing < 0 || gc->writing_deform != GFX_CROWD_DEFORM_CPU || !cpu->ok || cpu->laid_out)
        return false;
    double t0 = gfx_wall_seconds();
    float vp[16], lvp[16];
    gfx_frame_matrices(frame, vp, lvp);
    crowd_view_t view;
    gfx_crowd_view_init(&view, vp, lvp, frame, (frame->layers & GFX_LAYER_SHADOWS) != 0);
    int vs = gfx_ring_next(&cpu->verts);
    bool waited = false;
    double wait_ms;
    if (!gfx_ring_wait(&cpu->verts, vs, FENCE_TIMEOUT_NS, &waited, &wait_ms)) {
        log_error("render: %s: skinned vertex ring fence wait failed", gc->label);
        return false;
    }
    gc->stats.fence_waits += waited;
    int ls, n = 0, bad = 0;
    uint32_t *lists = gfx_crowd_lists_begin(gc, &ls);
    if (!lists)
        return false;
    if (!lay_out(gc, &view, vs, lists, &n, &bad)) {
        /* The list slot is left unwritten (nothing waits on it). */
        gc->lists.writing = -1;
        gc->stats.cpu_overflow_frames++;
        if (!cpu->overflow_logged)
            log_warn("render: %s: the members to skin do not fit a %zu-byte slot: such frames are GPU-skinned "
                     "(logged once)",
                     gc->label, cpu->slot_floats * sizeof(float));
        cpu->overflow_logged = true;
        return false;
    }
    gfx_crowd_lists_end(gc, gc->writing_count, bad, t0);
    gfx_ring_begin(&cpu->verts, vs);
    cpu->laid_out = true;
    *count = n;
    return true;
}

const crowd_program_t *gfx_crowd_cpu_use(gfx_crowd_t *gc, int k)
{
    crowd_cpu_t *cpu = &gc->cpu;
    const crowd_program_t *p = &cpu->prog[k];
    int s = cpu->verts.last;
    size_t used = cpu->used_floats[s] * sizeof(float);
    glUseProgram(p->prog.id);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_CROWD_VERTICES, cpu->verts.buffer.id,
                      (GLintptr)((size_t)s * cpu->verts.slot_bytes), (GLsizeiptr)(used > 0 ? used : sizeof(float)));
    glBindVertexArray(cpu->vao.id);
    return p;
}

void gfx_crowd_cpu_set_lod(const gfx_crowd_t *gc, const crowd_program_t *p, int lod)
{
    glProgramUniform1i(p->prog.id, p->u_lod_first, (GLint)gc->cpu.first[lod]);
    glProgramUniform1i(p->prog.id, p->u_lod_vertices, (GLint)gc->cpu.vertices[lod]);
}
