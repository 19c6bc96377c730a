/* gfx_crowd_cull: the CPU mode's sample cull on software rasterisers
 * (sample_cull.h), as gfx_character_cull.c does for the player. Each pass
 * projects every listed member's skinned positions (world space, in the
 * mapped slot) through its own view, keeps the triangles whose box holds a
 * pixel or shadow-texel centre (and, of meshes drawn with GL_CULL_FACE,
 * those not surely facing away), uploads them once into that pass's index
 * buffer and draws each member with its own. A software rasteriser then
 * transforms, sets up and bins only those; the pixels are those of the
 * instanced draws of every triangle, drawn in the same order (level, run
 * of meshes, member). */
#include "render/gfx_crowd_internal.h"

#include "core/log.h"
#include "render/gfx_validate.h"

#include <stdlib.h>
#include <string.h>

/* Kept indices a pass may hold (16 MiB): beyond, members are drawn whole. */
enum { CULL_ROOM_MAX = 4u << 20 };
#define CULL_UNCUT UINT32_MAX

bool gfx_crowd_cull_create(gfx_crowd_t *gc, const uint32_t *cpu_idx)
{
    crowd_cpu_t *cpu = &gc->cpu;
    /* A GPU rejects such triangles itself: no copies, no buffers there. */
    if (!gfx_get_info()->software || gc->every_triangle)
        return true;
    size_t room = (size_t)gc->max_instances * (gc->index_first[0][gc->mesh_count - 1] +
                                               gc->index_counts[0][gc->mesh_count - 1] - gc->index_first[0][0]);
    cpu->cull_room = (uint32_t)(room < CULL_ROOM_MAX ? room : CULL_ROOM_MAX);
    cpu->cull_idx = malloc((size_t)gc->index_count * sizeof *cpu->cull_idx);
    cpu->cull_projected = malloc((size_t)cpu->vertices[0] * sizeof *cpu->cull_projected);
    cpu->cull_kept = malloc((size_t)cpu->cull_room * sizeof *cpu->cull_kept);
    cpu->cull_ranges = malloc((size_t)gc->max_instances * gc->mesh_count * sizeof *cpu->cull_ranges);
    if (!cpu->cull_idx || !cpu->cull_projected || !cpu->cull_kept || !cpu->cull_ranges) {
        log_warn("render: %s: out of memory for the sample cull; the CPU mode draws every triangle", gc->label);
        gfx_crowd_cull_destroy(gc);
        return true;
    }
    /* The levels' indices onto their own vertices, from 0 (the draws add
     * the level's first vertex back as their base vertex). */
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        uint32_t m0 = gc->index_first[l][0],
                 m1 = gc->index_first[l][gc->mesh_count - 1] + gc->index_counts[l][gc->mesh_count - 1];
        for (uint32_t k = m0; k < m1; k++)
            cpu->cull_idx[k] = cpu_idx[k] - cpu->first[l];
    }
    for (int pass = 0; pass < 2; pass++) {
        glCreateBuffers(1, &cpu->cull_ibo[pass].id);
        glNamedBufferStorage(cpu->cull_ibo[pass].id, (GLsizeiptr)((size_t)cpu->cull_room * sizeof(uint32_t)), NULL,
                             GL_DYNAMIC_STORAGE_BIT);
        gfx_crowd_label_object(GL_BUFFER, cpu->cull_ibo[pass].id, gc->label,
                               pass == GFX_CROWD_PASS_MAIN ? "cpu.sampled_main" : "cpu.sampled_shadow");
    }
    return true;
}

void gfx_crowd_cull_destroy(gfx_crowd_t *gc)
{
    crowd_cpu_t *cpu = &gc->cpu;
    free(cpu->cull_idx);
    free(cpu->cull_projected);
    free(cpu->cull_kept);
    free(cpu->cull_ranges);
    cpu->cull_idx = cpu->cull_kept = NULL;
    cpu->cull_projected = NULL;
    cpu->cull_ranges = NULL;
    cpu->cull_room = 0;
    for (int pass = 0; pass < 2; pass++)
        if (cpu->cull_ibo[pass].id)
            glDeleteBuffers(1, &cpu->cull_ibo[pass].id);
}

/* The end of the run of meshes alike in culling back faces from mesh M. */
static uint32_t run_end(const gfx_crowd_t *gc, uint32_t m)
{
    bool cull = (gc->cull_meshes >> m) & 1u;
    uint32_t e = m + 1;
    while (e < gc->mesh_count && ((gc->cull_meshes >> e) & 1u) == cull)
        e++;
    return e;
}

/* Culls the members of pass PASS's lists (level by level, each member's
 * runs of meshes) into cull_kept and cull_ranges; returns the indices
 * kept. */
static uint32_t cull_pass(gfx_crowd_t *gc, const float vp[16], int width, int height, int pass, uint64_t *tris)
{
    crowd_cpu_t *cpu = &gc->cpu;
    const float *slot = (const float *)gfx_ring_slot(&cpu->verts, cpu->verts.last);
    const uint32_t *lists = (const uint32_t *)gfx_ring_slot(&gc->lists, gc->lists.last);
    uint32_t kept = 0, (*range)[2] = cpu->cull_ranges;
    *tris = 0;
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        int list = pass * GFX_CROWD_LODS + l;
        const uint32_t *offsets = lists + (size_t)list * (size_t)gc->max_instances;
        for (int j = 0; j < gc->list_count[list]; j++) {
            /* The member's positions lead its span of the slot. */
            sample_cull_project(vp, width, height, slot + offsets[j], cpu->vertices[l], cpu->cull_projected);
            for (uint32_t m = 0; m < gc->mesh_count;) {
                uint32_t e = run_end(gc, m);
                uint32_t whole = gc->index_first[l][e - 1] + gc->index_counts[l][e - 1] - gc->index_first[l][m];
                *tris += whole / 3;
                if (kept + whole > cpu->cull_room) {
                    (*range)[0] = CULL_UNCUT;
                    (*range)[1] = whole;
                } else {
                    (*range)[0] = kept;
                    bool back = (gc->cull_meshes >> m) & 1u;
                    for (; m < e; m++)
                        kept += sample_cull_triangles(cpu->cull_projected, back, cpu->cull_idx + gc->index_first[l][m],
                                                      gc->index_counts[l][m], cpu->cull_kept + kept);
                    (*range)[1] = kept - (*range)[0];
                }
                m = e;
                range++;
            }
        }
    }
    return kept;
}

int gfx_crowd_cpu_draw_culled(gfx_crowd_t *gc, const crowd_program_t *p, const gfx_pass_info_t *info, int pass)
{
    crowd_cpu_t *cpu = &gc->cpu;
    const gfx_info_t *gi = gfx_get_info();
    bool main_pass = pass == GFX_CROWD_PASS_MAIN;
    /* Centres are the only samples of a single-sample target filled with
     * triangles; lines (wireframe) make fragments a triangle would not. */
    if (!cpu->cull_idx || (main_pass && (info->frame->wireframe || gi->msaa_samples > 1)))
        return -1;
    int width = main_pass ? info->frame->width : gi->shadow_map_size;
    int height = main_pass ? info->frame->height : gi->shadow_map_size;
    if (width > SAMPLE_CULL_MAX_SIZE || height > SAMPLE_CULL_MAX_SIZE)
        return -1;
    uint64_t tris = 0;
    uint32_t kept = cull_pass(gc, main_pass ? info->view_proj : info->light_view_proj, width, height, pass, &tris);
    GLuint ibo = cpu->cull_ibo[pass].id, vao = cpu->vao.id;
    if (kept > 0)
        glNamedBufferSubData(ibo, 0, (GLsizeiptr)((size_t)kept * sizeof(uint32_t)), cpu->cull_kept);
    glVertexArrayElementBuffer(vao, ibo);
    GLuint bound = ibo;
    int draws = 0;
    uint32_t(*range)[2] = cpu->cull_ranges;
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        int list = pass * GFX_CROWD_LODS + l, n = gc->list_count[list];
        if (n == 0)
            continue;
        gfx_crowd_cpu_set_lod(gc, p, l);
        GLuint base = (GLuint)((size_t)list * (size_t)gc->max_instances);
        int runs = 0;
        for (uint32_t m = 0; m < gc->mesh_count; m = run_end(gc, m))
            runs++;
        /* Ranges are member-major; GL draws run-major, as the instanced draw. */
        for (uint32_t m = 0, r = 0; m < gc->mesh_count; m = run_end(gc, m), r++) {
            bool cull = (gc->cull_meshes >> m) & 1u;
            if (cull)
                glEnable(GL_CULL_FACE);
            for (int j = 0; j < n; j++) {
                const uint32_t *rg = range[(size_t)j * (size_t)runs + r];
                if (rg[1] == 0)
                    continue;
                bool uncut = rg[0] == CULL_UNCUT;
                GLuint want = uncut ? cpu->ibo.id : ibo;
                if (want != bound) {
                    glVertexArrayElementBuffer(vao, want);
                    bound = want;
                }
                /* Kept indices count from the level's first vertex; the
                 * whole ones are the static buffer's own. */
                size_t first = uncut ? gc->index_first[l][m] : rg[0];
                gfx_validate_draw("crowd_culled");
                glDrawElementsInstancedBaseVertexBaseInstance(GL_TRIANGLES, (GLsizei)rg[1], GL_UNSIGNED_INT,
                                                              (const void *)(first * sizeof(uint32_t)), 1,
                                                              uncut ? 0 : (GLint)cpu->first[l], base + (GLuint)j);
                draws++;
            }
            if (cull)
                glDisable(GL_CULL_FACE);
        }
        range += (size_t)n * (size_t)runs;
    }
    if (bound != cpu->ibo.id)
        glVertexArrayElementBuffer(vao, cpu->ibo.id);
    gc->stats.cpu_triangles[pass] = tris;
    gc->stats.cpu_triangles_kept[pass] = kept / 3;
    return draws;
}
