/* gfx_character_cull: the CPU path's sample cull (sample_cull.h). Each pass
 * projects the slot's positions through its own view (the shadow map's or
 * the camera's), keeps the triangles whose box holds a texel or pixel
 * centre (and, of meshes drawn with GL_CULL_FACE, those not surely facing
 * away), uploads them into that pass's index buffer and draws them with
 * the slot's vertex array. A software rasteriser then transforms and sets
 * up only those: at the game's camera 6,031 of the figure's 31,842
 * triangles in the main pass and 5,180 in the shadow pass. */
#include "render/gfx_character_internal.h"

#include "core/log.h"

#include <cglm/cglm.h>
#include <stdlib.h>
#include <string.h>

bool gfx_char_cull_create(gfx_character_t *gc)
{
    /* A GPU rejects such triangles itself: no copies, no buffers there. */
    if (!gfx_get_info()->software) {
        free(gc->cpu_indices);
        gc->cpu_indices = NULL;
        return true;
    }
    size_t nv = gc->vertex_count, ni = gc->index_count;
    bool ok = gc->cpu_indices != NULL;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++)
        ok = ok && (gc->slot[s].pos = calloc(nv * 3, sizeof(float))) != NULL;
    ok = ok && (gc->cull_projected = malloc(nv * sizeof *gc->cull_projected)) != NULL;
    ok = ok && (gc->cull_kept = malloc(ni * sizeof(uint32_t))) != NULL;
    if (!ok) {
        log_error("render: %s: out of memory for %zu vertices' positions", gc->label, nv);
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        glCreateBuffers(1, &gc->cull_ibo[pass].id);
        glNamedBufferStorage(gc->cull_ibo[pass].id, (GLsizeiptr)(ni * sizeof(uint32_t)), NULL, GL_DYNAMIC_STORAGE_BIT);
        gfx_char_label(GL_BUFFER, gc->cull_ibo[pass].id, gc->label, pass ? "sampled_main" : "sampled_shadow");
    }
    return true;
}

void gfx_char_cull_destroy(gfx_character_t *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        free(gc->slot[s].pos);
        gc->slot[s].pos = NULL;
    }
    free(gc->cpu_indices);
    free(gc->cull_projected);
    free(gc->cull_kept);
    gc->cpu_indices = NULL;
    gc->cull_projected = NULL;
    gc->cull_kept = NULL;
    for (int pass = 0; pass < 2; pass++)
        if (gc->cull_ibo[pass].id)
            glDeleteBuffers(1, &gc->cull_ibo[pass].id);
}

bool gfx_char_cull_draw(gfx_character_t *gc, int s, const gfx_pass_info_t *info)
{
    const gfx_info_t *gi = gfx_get_info();
    bool main_pass = info->pass == GFX_PASS_MAIN;
    /* Centres are the only samples of a single-sample target filled with
     * triangles; lines (wireframe) make fragments a triangle would not. */
    if (!gc->slot[s].pos || gc->all_triangles || (main_pass && (info->frame->wireframe || gi->msaa_samples > 1)))
        return false;
    int width = main_pass ? info->frame->width : gi->shadow_map_size;
    int height = main_pass ? info->frame->height : gi->shadow_map_size;
    if (width > SAMPLE_CULL_MAX_SIZE || height > SAMPLE_CULL_MAX_SIZE)
        return false;
    /* The pass's projection times the figure's model matrix. */
    mat4 vp, model, mvp;
    memcpy(vp, main_pass ? info->view_proj : info->light_view_proj, sizeof vp);
    memcpy(model, gc->slot[s].model, sizeof model);
    glm_mat4_mul(vp, model, mvp);
    sample_cull_project((const float *)mvp, width, height, gc->slot[s].pos, gc->vertex_count, gc->cull_projected);
    uint32_t first[CHR_MAX_MESHES], counts[CHR_MAX_MESHES], kept = 0;
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        first[m] = kept;
        /* Meshes drawn with GL_CULL_FACE lose their back faces here already. */
        bool back = (gc->cull_meshes >> m) & 1u;
        counts[m] = sample_cull_triangles(gc->cull_projected, back, gc->cpu_indices + gc->index_first[m],
                                          gc->index_counts[m], gc->cull_kept + kept);
        kept += counts[m];
    }
    if (kept > 0)
        glNamedBufferSubData(gc->cull_ibo[main_pass].id, 0, (GLsizeiptr)(kept * sizeof(uint32_t)), gc->cull_kept);
    GLuint vao = gc->slot[s].vao.id;
    glVertexArrayElementBuffer(vao, gc->cull_ibo[main_pass].id);
    gfx_char_draw_triangles(gc, 0, gc->mesh_count, first, counts);
    glVertexArrayElementBuffer(vao, gc->ibo.id);
    gc->stats.triangles_drawn[main_pass] = kept / 3;
    gc->stats.triangles_culled[main_pass] = (gc->index_count - kept) / 3;
    return true;
}
