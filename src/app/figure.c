#include "app/figure.h"

#include "asset/chr_bshape.h"
#include "asset/import_file.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size, bool *ok)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *ok = false;
    return p;
}

static void free_mesh(figure_mesh_t *m)
{
    free(m->pos);
    free(m->nrm);
    free(m->tan);
    free(m->ao);
    free(m->joints);
    free(m->weights);
    free(m->m_pos);
    free(m->m_nrm);
    free(m->m_tan);
    free(m->m_ao);
    free(m->active_target);
    free(m->active_weight);
    free(m->joint_reach);
    free(m->target_reach);
    bshape_set_free(&m->set);
    memset(m, 0, sizeof *m);
}

/* M's joint_reach and target_reach (see figure_mesh_t), from its bind pose
 * and the chr's deltas (still loaded). */
static bool mesh_reach(figure_t *f, figure_mesh_t *m, const char *path)
{
    int joints = f->chr.skel.joint_count;
    bool ok = true;
    m->joint_reach = xcalloc((size_t)joints, sizeof *m->joint_reach, &ok);
    m->target_reach = xcalloc(m->set.target_count ? m->set.target_count : 1, sizeof *m->target_reach, &ok);
    if (!ok) {
        log_error("%s: out of memory", path);
        return false;
    }
    float rest[SKEL_MAX_JOINTS][3];
    skel_rest_positions(&f->chr.skel, rest);
    for (int j = 0; j < joints; j++)
        m->joint_reach[j] = -1.0f;
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < SKIN_MAX_INFLUENCES; k++) {
            if (m->weights[i * 4 + k] == 0.0f)
                continue;
            int j = m->joints[i * 4 + k];
            float d2 = 0.0f;
            for (int a = 0; a < 3; a++) {
                float e = m->pos[i * 3 + a] - rest[j][a];
                d2 += e * e;
            }
            m->joint_reach[j] = fmaxf(m->joint_reach[j], sqrtf(d2));
        }
    for (uint32_t t = 0; t < m->set.target_count; t++) {
        uint32_t src = m->set.target_source[t];
        bool shape = t < m->set.shape_count;
        const chr_delta_t *d = shape ? f->chr.shapes[src].deltas : f->chr.correctives[src].deltas;
        uint32_t count = shape ? f->chr.shapes[src].delta_count : f->chr.correctives[src].delta_count;
        float longest = 0.0f;
        for (uint32_t k = 0; k < count; k++)
            longest = fmaxf(longest, sqrtf(d[k].dpos[0] * d[k].dpos[0] + d[k].dpos[1] * d[k].dpos[1] +
                                           d[k].dpos[2] * d[k].dpos[2]));
        m->target_reach[t] = longest;
    }
    return true;
}

static bool prepare_mesh(figure_t *f, uint32_t index, const char *path)
{
    const chr_mesh_t *src = &f->chr.meshes[index];
    figure_mesh_t *m = &f->mesh[index];
    size_t n = src->vertex_count;
    bool ok = true;
    m->vertex_count = src->vertex_count;
    m->pos = xcalloc(n * 3, sizeof(float), &ok);
    m->nrm = xcalloc(n * 3, sizeof(float), &ok);
    m->tan = xcalloc(n * 4, sizeof(float), &ok);
    m->ao = xcalloc(n, sizeof(float), &ok);
    m->joints = xcalloc(n * 4, sizeof(uint16_t), &ok);
    m->weights = xcalloc(n * 4, sizeof(float), &ok);
    if (!ok) {
        log_error("%s: out of memory for mesh '%s'", path, src->name);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const chr_vertex_t *x = &src->vertices[i];
        memcpy(&m->pos[i * 3], x->pos, sizeof x->pos);
        memcpy(&m->nrm[i * 3], x->normal, sizeof x->normal);
        memcpy(&m->tan[i * 4], x->tangent, sizeof x->tangent);
        memcpy(&m->joints[i * 4], x->joints, sizeof x->joints);
        memcpy(&m->weights[i * 4], x->weights, sizeof x->weights);
        m->ao[i] = x->ao;
    }
    /* The sparse layout; the dense one (26 MB for the shipped head) when the
     * menu first asks for it (figure_use_dense). */
    if (!chr_bshape_set_build(&m->set, &f->chr, index, BSHAPE_BUILD_SPARSE))
        return false;
    if (m->set.target_count > 0) {
        m->m_pos = xcalloc(n * 3, sizeof(float), &ok);
        m->m_nrm = xcalloc(n * 3, sizeof(float), &ok);
        m->m_tan = xcalloc(n * 4, sizeof(float), &ok);
        m->m_ao = xcalloc(n, sizeof(float), &ok);
        m->active_target = xcalloc(m->set.target_count, sizeof *m->active_target, &ok);
        m->active_weight = xcalloc(m->set.target_count, sizeof *m->active_weight, &ok);
        if (!ok) {
            log_error("%s: out of memory for the blend shapes of mesh '%s'", path, src->name);
            return false;
        }
    }
    if (!mesh_reach(f, m, path))
        return false;
    skin_job_t check = {.vertex_count = (int)n,
                        .influences = SKIN_MAX_INFLUENCES,
                        .method = SKIN_LBS_MATRIX,
                        .positions = m->pos,
                        .joints_u16 = m->joints,
                        .weights = m->weights,
                        .joint_count = f->chr.skel.joint_count,
                        .palette = &f->palette[0][0],
                        .out_positions = m->pos};
    if (!skin_check_vertices(&check)) {
        log_error("%s: mesh '%s' has skinning data the skinning job refuses", path, src->name);
        return false;
    }
    return true;
}

static bool rig_init(figure_t *f, const char *map_path);

/* Every delta is in the meshes' sparse sets now (a reordering of the chr's
 * shape-major arrays, nothing dropped): the chr's copy goes, 6.7 MB of the
 * shipped head. Names, meshes and counts stay; the dense layout and the
 * bake read the deltas back from the sets. */
static void release_chr_deltas(figure_t *f)
{
    for (uint32_t s = 0; s < f->chr.shape_count; s++) {
        free(f->chr.shapes[s].deltas);
        f->chr.shapes[s].deltas = NULL;
    }
    for (uint32_t k = 0; k < f->chr.corrective_count; k++) {
        free(f->chr.correctives[k].deltas);
        f->chr.correctives[k].deltas = NULL;
    }
}

bool figure_load(figure_t *f, const figure_desc_t *desc)
{
    memset(f, 0, sizeof *f);
    const char *path = desc->path;
    if (!paths_copy(path, f->path, sizeof f->path))
        return false;
    if (desc->skeleton_path && !skel_load(&f->rig.source, desc->skeleton_path))
        return false;
    f->correctives = true;
    f->show = true;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    f->gpu_morph = true;
    /* GPU skinning deforms once per frame (a compute pass) unless asked to
     * deform in each pass's vertex shader. */
    f->skin_once = true;
    /* A .chr, or a glTF character imported on the fly (which then needs a
     * joint map when it is to be driven). */
    const skel_t *driver = desc->skeleton_path ? &f->rig.source : NULL;
    if (!imp_load_character(path, desc->map_path, driver, &f->chr, NULL))
        return false;
    f->chr_loaded = true;
    bool ok = true;
    f->shape_weight = xcalloc(f->chr.shape_count, sizeof *f->shape_weight, &ok);
    f->corrective_weight = xcalloc(f->chr.corrective_count, sizeof *f->corrective_weight, &ok);
    if (!ok) {
        log_error("%s: out of memory", path);
        return false;
    }
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        if (!prepare_mesh(f, m, path))
            return false;
    release_chr_deltas(f);
    pose_bind_from_rest(&f->chr.skel, &f->bind);
    if (desc->skeleton_path) {
        if (!rig_init(f, desc->map_path))
            return false;
        f->rigged = true;
    }
    return true;
}

_Static_assert((int)GFX_CHARACTER_DELTA_FLOATS == (int)BSHAPE_DELTA_FLOATS, "gfx and bshape deltas must match");
_Static_assert((int)GFX_CHARACTER_MORPH_DENSE == (int)BSHAPE_DENSE &&
                   (int)GFX_CHARACTER_MORPH_SPARSE == (int)BSHAPE_SPARSE,
               "gfx morph layouts must match bshape's");

/* Every mesh's blend-shape targets as the renderer takes them. */
static void gpu_targets(const figure_t *f, gfx_character_targets_t morph[CHR_MAX_MESHES])
{
    memset(morph, 0, sizeof(gfx_character_targets_t) * CHR_MAX_MESHES);
    for (uint32_t m = 0; m < f->chr.mesh_count; m++) {
        const bshape_set_t *set = &f->mesh[m].set;
        morph[m] = (gfx_character_targets_t){.target_count = set->target_count,
                                             .vertex_offset = set->vertex_offset,
                                             .pair_target = set->pair_target,
                                             .pair_delta = set->pair_delta,
                                             .pair_count = set->pair_count};
    }
}

/* The CPU's dense layout for every morphed mesh, built the first time it is
 * used; false (logged) when memory runs out. */
static bool use_dense(figure_t *f)
{
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        if (f->mesh[m].set.target_count > 0 && !f->mesh[m].set.dense &&
            !chr_bshape_set_add_layouts(&f->mesh[m].set, &f->chr, BSHAPE_BUILD_DENSE))
            return false;
    return true;
}

/* Whether LAYOUT can morph on the GPU, its deltas and programs built there
 * the first time (the game, skinning on the CPU, never asks). */
static bool gpu_layout_ready(figure_t *f, gfx_character_morph_t layout)
{
    if (!gfx_character_morph_supported(f->gfx, layout))
        return false;
    gfx_character_targets_t morph[CHR_MAX_MESHES];
    gpu_targets(f, morph);
    return gfx_character_prepare_morph(f->gfx, layout, morph);
}

bool figure_gpu_init(figure_t *f, const char *label)
{
    gfx_character_targets_t morph[CHR_MAX_MESHES];
    gpu_targets(f, morph);
    f->gfx = gfx_character_create(&f->chr, morph, label);
    if (!f->gfx)
        return false;
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        f->mesh[m].first = gfx_character_mesh_first_vertex(f->gfx, m);
    return true;
}

void figure_free(figure_t *f)
{
    gfx_character_destroy(f->gfx);
    for (uint32_t m = 0; m < CHR_MAX_MESHES; m++)
        free_mesh(&f->mesh[m]);
    free(f->shape_weight);
    free(f->corrective_weight);
    if (f->chr_loaded)
        chr_free(&f->chr);
    memset(f, 0, sizeof *f);
}

int figure_shape(const figure_t *f, const char *name) { return chr_find_shape(&f->chr, name); }

/* The highest vertex the head joint moves most, relative to that joint at
 * rest (bind frames are world-aligned: a plain offset). */
static void head_top(figure_t *f)
{
    figure_rig_t *r = &f->rig;
    if (r->head < 0)
        return;
    float jp[SKEL_MAX_JOINTS][3], best = -INFINITY;
    skel_rest_positions(&f->chr.skel, jp);
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        for (uint32_t i = 0; i < f->mesh[m].vertex_count; i++) {
            const float *p = &f->mesh[m].pos[i * 3];
            if (f->mesh[m].joints[i * 4] == r->head && p[1] > best) {
                best = p[1];
                for (int k = 0; k < 3; k++)
                    r->head_top[k] = p[k] - jp[r->head][k];
            }
        }
}

/* Each ankle's toe joint (its first child) and how high ankle and toe
 * stand above the soles at rest: what --report measures sinking against. */
static void feet_rest(figure_t *f)
{
    figure_rig_t *r = &f->rig;
    float jp[SKEL_MAX_JOINTS][3];
    skel_rest_positions(&f->chr.skel, jp);
    for (int side = 0; side < 2; side++) {
        int foot = r->foot[side];
        r->toe[side] = -1;
        for (int j = 0; foot >= 0 && j < f->chr.skel.joint_count && r->toe[side] < 0; j++)
            if (f->chr.skel.joint_parent[j] == foot)
                r->toe[side] = j;
        r->foot_rest_height_cm[side][0] = foot >= 0 ? jp[foot][1] - r->floor_y_cm : 0.0f;
        r->foot_rest_height_cm[side][1] = r->toe[side] >= 0 ? jp[r->toe[side]][1] - r->floor_y_cm : 0.0f;
    }
    /* The controller's skeleton stands on its lowest rest point (the toe
     * tips), as anim/retarget.c takes it. */
    float ep[SKEL_MAX_ENDS][3], floor = INFINITY;
    skel_rest_positions(&r->source, jp);
    skel_rest_end_positions(&r->source, (const float(*)[3])jp, ep);
    for (int j = 0; j < r->source.joint_count; j++)
        floor = fminf(floor, jp[j][1]);
    for (int e = 0; e < r->source.end_count; e++)
        floor = fminf(floor, ep[e][1]);
    static const char *const heel[2] = {"lFoot", "rFoot"}, *const toe[2] = {"lFoot_end", "rFoot_end"};
    for (int side = 0; side < 2; side++) {
        int h = skel_find(&r->source, heel[side]), t = skel_find_end(&r->source, toe[side]);
        r->source_rest_height_cm[side][0] = h >= 0 ? jp[h][1] - floor : 0.0f;
        r->source_rest_height_cm[side][1] = t >= 0 ? ep[t][1] - floor : 0.0f;
    }
}

/* Binds the controller's skeleton (already in f->rig.source) through a joint
 * map: as it is when the figure's skeleton is that skeleton, else by
 * retargeting. */
static bool rig_init(figure_t *f, const char *map_path)
{
    figure_rig_t *r = &f->rig;
    if (!retarget_map_resolve(map_path, &r->source, &f->chr.skel, f->path, &r->map))
        return false;
    r->floor_y_cm = INFINITY;
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        for (uint32_t i = 0; i < f->mesh[m].vertex_count; i++)
            r->floor_y_cm = fminf(r->floor_y_cm, f->mesh[m].pos[i * 3 + 1]);
    r->identity = retarget_map_is_identity(&r->map, &r->source, &f->chr.skel);
    r->head = -1;
    r->foot[0] = r->foot[1] = -1;
    if (r->identity) {
        r->head = skel_find(&f->chr.skel, "head");
        r->foot[0] = skel_find(&f->chr.skel, "lFoot");
        r->foot[1] = skel_find(&f->chr.skel, "rFoot");
        head_top(f);
        feet_rest(f);
        return true;
    }
    if (!retarget_init(&r->rt, &r->source, &f->chr.skel, &r->map, r->floor_y_cm, f->path))
        return false;
    int src_head = skel_find(&r->source, "head");
    for (int j = 0; j < f->chr.skel.joint_count && r->head < 0; j++)
        if (r->map.source[j] == src_head && src_head >= 0)
            r->head = j;
    r->foot[0] = r->rt.leg[0][2];
    r->foot[1] = r->rt.leg[1][2];
    head_top(f);
    feet_rest(f);
    log_info("%s: driven through %s: %d of %d joints follow the controller's, legs %.1f cm (%.2fx its)", f->path,
             r->map.how, retarget_mapped_count(&r->map), f->chr.skel.joint_count, (double)r->rt.dst_leg_cm,
             (double)r->rt.scale);
    return true;
}

const pose_t *figure_rig_pose(figure_t *f, retarget_job_t *job)
{
    if (!f->rigged)
        return NULL;
    if (f->rig.identity)
        return job->source;
    job->rt = &f->rig.rt;
    job->out = &f->rig.pose;
    return retarget_run(job) ? &f->rig.pose : NULL;
}

void figure_fk(figure_t *f, const pose_t *pose)
{
    pose_model_job_t fk = {.skel = &f->chr.skel,
                           .local = pose,
                           .capacity = SKEL_MAX_JOINTS,
                           .model_mat = f->model_mat,
                           .model_rot = f->model_rot};
    pose_model_run(&fk);
}

/* The active list of mesh M: non-zero shape weights, then correctives. */
static void build_active(const figure_t *f, figure_mesh_t *m)
{
    int n = 0;
    for (uint32_t t = 0; t < m->set.target_count; t++) {
        uint32_t src = m->set.target_source[t];
        float w;
        if (t < m->set.shape_count)
            w = f->shape_weight[src];
        else
            w = f->correctives ? f->corrective_weight[src] : 0.0f;
        if (w != 0.0f) {
            m->active_target[n] = t;
            m->active_weight[n] = w;
            n++;
        }
    }
    m->active_count = n;
}

/* Palette, dual quaternions and corrective weights of POSE. */
static bool pose_to_palette(figure_t *f, const pose_t *pose)
{
    figure_fk(f, pose);
    pose_palette_job_t pj = {.bind = &f->bind,
                             .joint_count = f->chr.skel.joint_count,
                             .model_mat = (const float(*)[POSE_MAT_FLOATS])f->model_mat,
                             .model_rot = (const float(*)[4])f->model_rot,
                             .palette = f->palette,
                             .dq = f->dq};
    if (!pose_palette_run(&pj))
        return false;
    chr_bshape_corrective_weights(&f->chr, pose, f->corrective_weight);
    int active_shapes = 0;
    for (uint32_t s = 0; s < f->chr.shape_count; s++)
        active_shapes += f->shape_weight[s] != 0.0f;
    f->active_shapes = active_shapes;
    return true;
}

/* CPU blend shapes, then CPU skinning, into OUT's vertex spans; with
 * GPU_SKIN the GPU skins: the spans get the morphed bind pose of the meshes
 * with blend shapes and of those edited per frame (live_bind), handed in
 * with use_stream_bind, and the other meshes are skinned from the bind
 * pose the renderer keeps. */
static bool cpu_deform(figure_t *f, const gfx_character_stream_t *out, bool gpu_skin)
{
    bool ok = true;
    for (uint32_t mi = 0; mi < f->chr.mesh_count && ok; mi++) {
        figure_mesh_t *m = &f->mesh[mi];
        const float *pos = m->pos, *nrm = m->nrm, *tan = m->tan, *ao = m->ao;
        if (m->set.target_count > 0) {
            build_active(f, m);
            bshape_job_t bj = {.set = &m->set,
                               .layout = f->dense ? BSHAPE_DENSE : BSHAPE_SPARSE,
                               .active_count = m->active_count,
                               .active_target = m->active_target,
                               .active_weight = m->active_weight,
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .ao = m->ao,
                               .out_positions = m->m_pos,
                               .out_normals = m->m_nrm,
                               .out_tangents = m->m_tan,
                               .out_ao = m->m_ao};
            ok = bshape_run(&bj);
            pos = m->m_pos;
            nrm = m->m_nrm;
            tan = m->m_tan;
            ao = m->m_ao;
        }
        if (gpu_skin) {
            if (m->set.target_count == 0 && !m->live_bind)
                continue; /* the renderer's bind pose */
            /* The GPU skins: hand it the (morphed) bind pose. */
            memcpy(out->positions + (size_t)m->first * 3, pos, m->vertex_count * 3 * sizeof(float));
            memcpy(out->normals + (size_t)m->first * 3, nrm, m->vertex_count * 3 * sizeof(float));
            memcpy(out->tangents + (size_t)m->first * 4, tan, m->vertex_count * 4 * sizeof(float));
            memcpy(out->ao + m->first, ao, m->vertex_count * sizeof(float));
            ok = ok && gfx_character_use_stream_bind(f->gfx, mi);
            continue;
        }
        skin_job_t sj = {.vertex_count = (int)m->vertex_count,
                         .influences = f->influences,
                         .method = (skin_method_t)f->method,
                         .isa = SKIN_ISA_AUTO,
                         .positions = pos,
                         .normals = nrm,
                         .tangents = tan,
                         .joints_u16 = m->joints,
                         .weights = m->weights,
                         .joint_count = f->chr.skel.joint_count,
                         .palette = &f->palette[0][0],
                         .dq_palette = &f->dq[0][0],
                         .out_positions = out->positions + (size_t)m->first * 3,
                         .out_normals = out->normals + (size_t)m->first * 3,
                         .out_tangents = out->tangents + (size_t)m->first * 4};
        ok = ok && skin_run(&sj);
        memcpy(out->ao + m->first, ao, m->vertex_count * sizeof(float));
    }
    return ok;
}

/* GPU blend shapes: each morphed mesh's active list into the slot, and the
 * bind pose of every live_bind mesh (edited since create) into OUT's spans. */
static bool gpu_morph_lists(figure_t *f, const gfx_character_stream_t *out)
{
    bool ok = true;
    for (uint32_t mi = 0; mi < f->chr.mesh_count && ok; mi++) {
        figure_mesh_t *m = &f->mesh[mi];
        if (m->live_bind) {
            memcpy(out->positions + (size_t)m->first * 3, m->pos, m->vertex_count * 3 * sizeof(float));
            memcpy(out->normals + (size_t)m->first * 3, m->nrm, m->vertex_count * 3 * sizeof(float));
            memcpy(out->tangents + (size_t)m->first * 4, m->tan, m->vertex_count * 4 * sizeof(float));
            memcpy(out->ao + m->first, m->ao, m->vertex_count * sizeof(float));
            ok = gfx_character_use_stream_bind(f->gfx, mi);
        }
        if (m->set.target_count == 0)
            continue;
        build_active(f, m);
        ok = ok && gfx_character_write_active(f->gfx, mi, m->active_count, m->active_target, m->active_weight);
    }
    return ok;
}

/* A sphere (CENTER, the returned radius; model space, cm) that holds every
 * vertex the last cpu_deform() skinned by blended points or matrices; -1
 * where that bound does not hold: dual quaternions, or a bind pose edited
 * between deforms. A vertex v that joint j moves goes to J_j + A_j (v - b_j)
 * (the palette is affine: J_j the joint's posed position, the translation
 * of its model matrix, b_j its bind one), so no farther than |J_j - c| +
 * |A_j| |v - b_j| from any c, where |A_j| <= its Frobenius norm and
 * |v - b_j| <= the joint's reach plus the blend shapes' |weight| times their
 * longest delta; a blend of such points by weights that sum to 1 stays
 * within the largest bound. The centre is the first joint's posed position
 * (the root). */
static float deform_reach(const figure_t *f, float center[3])
{
    int joints = f->chr.skel.joint_count;
    if (f->method == SKIN_DQS || joints < 1)
        return -1.0f;
    float jp[SKEL_MAX_JOINTS][3], norm[SKEL_MAX_JOINTS];
    for (int j = 0; j < joints; j++) {
        const float *M = f->model_mat[j], *P = f->palette[j];
        float n2 = 0.0f;
        for (int r = 0; r < 3; r++) {
            jp[j][r] = M[r * 4 + 3];
            n2 += P[r * 4] * P[r * 4] + P[r * 4 + 1] * P[r * 4 + 1] + P[r * 4 + 2] * P[r * 4 + 2];
        }
        norm[j] = sqrtf(n2);
    }
    memcpy(center, jp[0], sizeof jp[0]);
    float reach = 0.0f;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        const figure_mesh_t *m = &f->mesh[mi];
        if (m->live_bind)
            return -1.0f;
        float morph = 0.0f;
        for (int k = 0; m->set.target_count > 0 && k < m->active_count; k++)
            morph += fabsf(m->active_weight[k]) * m->target_reach[m->active_target[k]];
        for (int j = 0; j < joints; j++) {
            if (m->joint_reach[j] < 0.0f)
                continue;
            float d[3] = {jp[j][0] - center[0], jp[j][1] - center[1], jp[j][2] - center[2]};
            float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            reach = fmaxf(reach, len + norm[j] * (m->joint_reach[j] + morph));
        }
    }
    return isfinite(reach) ? reach : -1.0f;
}

/* Cebenoyan's hybrid: a CPU-skinned key when one is due (every
 * hybrid_every frames, or at once when N changed or the hybrid just
 * started), else no pose work at all; the update blends the last two keys
 * at hybrid_t. */
static bool deform_hybrid(figure_t *f, const pose_t *pose)
{
    int n = f->hybrid_every;
    bool restart = f->hybrid_key_every == 0, ok = true;
    if (restart || n != f->hybrid_key_every || f->hybrid_phase + 1 >= n) {
        gfx_character_stream_t key;
        ok = pose_to_palette(f, pose) && gfx_character_begin_key(f->gfx, &key);
        ok = ok && cpu_deform(f, &key, false);
        if (ok)
            gfx_character_end_key(f->gfx, restart);
        f->hybrid_phase = 0;
        f->hybrid_key_every = n;
    } else {
        f->hybrid_phase++;
    }
    /* The newer key is reached N - 1 frames after it was skinned. */
    f->hybrid_t = (float)(f->hybrid_phase + 1) / (float)n;
    return ok;
}

/* The update's description: how this frame is deformed and drawn. */
static gfx_character_desc_t deform_desc(const figure_t *f, bool hybrid, const float world[16])
{
    gfx_character_desc_t d = {.gpu_skin = f->gpu_skin,
                              .method = f->method,
                              .influences = f->influences,
                              .joint_count = f->chr.skel.joint_count,
                              .gpu_morph = f->morph_on_gpu,
                              .dense = f->dense,
                              .skin_once = f->skin_once,
                              .hybrid = hybrid,
                              .hybrid_t = f->hybrid_t,
                              .transform = true};
    memcpy(d.model, world, sizeof d.model);
    return d;
}

/* Where the blend shapes go this frame: the GPU layout, prepared the first
 * time (morph_on_gpu), or the CPU (in a dense layout built the first time
 * the menu asks for it). */
static void choose_morph(figure_t *f)
{
    gfx_character_morph_t layout = f->dense ? GFX_CHARACTER_MORPH_DENSE : GFX_CHARACTER_MORPH_SPARSE;
    f->morph_on_gpu = f->gpu_skin && f->gpu_morph && gpu_layout_ready(f, layout);
    if (f->dense && !f->morph_on_gpu && !use_dense(f))
        f->dense = false;
}

bool figure_deform(figure_t *f, const pose_t *pose, const float world[16])
{
    if (!f->gfx)
        return false;
    gfx_character_set_visible(f->gfx, f->show);
    if (!f->show)
        return true;
    if (f->hybrid_every < 0 || f->hybrid_every > FIGURE_HYBRID_MAX)
        f->hybrid_every = 0;
    if (f->influences < 1 || f->influences > SKIN_MAX_INFLUENCES)
        f->influences = SKIN_MAX_INFLUENCES;
    bool hybrid = f->hybrid_every > 0 && !f->gpu_skin;
    f->reach_radius = -1.0f;
    if (hybrid) {
        if (!deform_hybrid(f, pose))
            return false;
    } else {
        f->hybrid_key_every = 0;
        if (!pose_to_palette(f, pose))
            return false;
    }
    choose_morph(f);
    gfx_character_desc_t desc = deform_desc(f, hybrid, world);
    gfx_character_stream_t out;
    if (!gfx_character_begin_update(f->gfx, &desc, &out)) {
        /* A refused GPU mode (limits or a shader, logged) falls back to the
         * CPU for good. */
        if (!f->gpu_skin)
            return false;
        f->gpu_skin = false;
        choose_morph(f);
        desc = deform_desc(f, false, world);
        if (!gfx_character_begin_update(f->gfx, &desc, &out))
            return false;
    }
    if (f->gpu_skin) {
        int joints = f->chr.skel.joint_count;
        memcpy(out.palette, f->palette, (size_t)joints * sizeof f->palette[0]);
        memcpy(out.dq_palette, f->dq, (size_t)joints * sizeof f->dq[0]);
    }
    bool ok = true;
    if (desc.hybrid) {
        /* The slot's own vertex arrays are not read: the keys are drawn. */
    } else if (f->morph_on_gpu) {
        /* The bind pose is static on the GPU (live_bind meshes aside): the
         * active lists change. */
        ok = gpu_morph_lists(f, &out);
    } else {
        ok = cpu_deform(f, &out, f->gpu_skin);
        if (ok && !f->gpu_skin) {
            f->reach_radius = deform_reach(f, f->reach_center);
            gfx_character_set_reach(f->gfx, f->reach_center, f->reach_radius);
        }
    }
    gfx_character_end_update(f->gfx);
    f->deform_count++;
    return ok;
}

/* Mesh M's shape-only active list (no correctives) into TARGETS/WEIGHTS. */
static int shape_active(const figure_t *f, const figure_mesh_t *m, uint32_t *targets, float *weights)
{
    int n = 0;
    for (uint32_t t = 0; t < m->set.shape_count; t++) {
        float w = f->shape_weight[m->set.target_source[t]];
        if (w != 0.0f) {
            targets[n] = t;
            weights[n] = w;
            n++;
        }
    }
    return n;
}

/* The baked bind pose of mesh MI (with N active shapes) into OUT, a copy of
 * its vertices with position, normal, tangent and AO replaced. */
static bool bake_mesh(figure_t *f, uint32_t mi, int n, const uint32_t *targets, const float *weights, chr_vertex_t *out,
                      const char *path)
{
    figure_mesh_t *m = &f->mesh[mi];
    size_t vc = m->vertex_count;
    bool ok = true;
    float *pos = xcalloc(vc * 3, sizeof(float), &ok), *nrm = xcalloc(vc * 3, sizeof(float), &ok);
    float *tan = xcalloc(vc * 4, sizeof(float), &ok), *ao = xcalloc(vc, sizeof(float), &ok);
    if (!ok) {
        log_error("%s: out of memory baking mesh '%s'", path, f->chr.meshes[mi].name);
    } else {
        /* The user's layout first, then the other one; the CPU job if the
         * GPU has neither (same math, see anim/bshape.h). */
        gfx_character_morph_t first = f->dense ? GFX_CHARACTER_MORPH_DENSE : GFX_CHARACTER_MORPH_SPARSE;
        gfx_character_morph_t other = first == GFX_CHARACTER_MORPH_DENSE ? GFX_CHARACTER_MORPH_SPARSE
                                                                         : GFX_CHARACTER_MORPH_DENSE;
        gfx_character_morph_t layout = gpu_layout_ready(f, first) ? first : other;
        if (gpu_layout_ready(f, layout)) {
            gfx_character_bake_job_t job = {.mesh = mi,
                                            .layout = layout,
                                            .active_count = n,
                                            .active_target = targets,
                                            .active_weight = weights,
                                            .out_positions = pos,
                                            .out_normals = nrm,
                                            .out_tangents = tan,
                                            .out_ao = ao};
            ok = gfx_character_bake(f->gfx, &job);
        } else {
            log_info("%s: baking mesh '%s' on the CPU (no GPU blend shapes here)", path, f->chr.meshes[mi].name);
            bshape_job_t job = {.set = &m->set,
                                .layout = m->set.dense ? BSHAPE_DENSE : BSHAPE_SPARSE,
                                .active_count = n,
                                .active_target = targets,
                                .active_weight = weights,
                                .positions = m->pos,
                                .normals = m->nrm,
                                .tangents = m->tan,
                                .ao = m->ao,
                                .out_positions = pos,
                                .out_normals = nrm,
                                .out_tangents = tan,
                                .out_ao = ao};
            ok = bshape_run(&job);
        }
    }
    if (ok) {
        memcpy(out, f->chr.meshes[mi].vertices, vc * sizeof *out);
        for (size_t v = 0; v < vc; v++) {
            memcpy(out[v].pos, pos + 3 * v, sizeof out[v].pos);
            memcpy(out[v].normal, nrm + 3 * v, sizeof out[v].normal);
            memcpy(out[v].tangent, tan + 4 * v, sizeof out[v].tangent);
            out[v].ao = ao[v];
        }
    }
    free(pos);
    free(nrm);
    free(tan);
    free(ao);
    return ok;
}

/* The deltas of target T of mesh MESH read back from its set into a new
 * array of COUNT (the chr's count); NULL (logged) when memory runs out or
 * the set disagrees. */
static chr_delta_t *target_deltas(const figure_t *f, uint32_t mesh, int t, uint32_t count, const char *path)
{
    chr_delta_t *d = malloc((count ? count : 1) * sizeof *d);
    const bshape_set_t *set = mesh < f->chr.mesh_count ? &f->mesh[mesh].set : NULL;
    if (!d || !set || t < 0 || chr_bshape_target_deltas(set, (uint32_t)t, d, count) != count) {
        log_error("%s: %s reading back the blend-shape deltas", path, d ? "mismatch" : "out of memory");
        free(d);
        return NULL;
    }
    return d;
}

/* OUT's shapes and correctives as copies of F's with their deltas (which
 * only the sets hold) read back; free_restored() undoes it. */
static bool restore_deltas(const figure_t *f, chr_character_t *out, const char *path)
{
    const chr_character_t *c = &f->chr;
    out->shapes = calloc(c->shape_count ? c->shape_count : 1, sizeof *out->shapes);
    out->correctives = calloc(c->corrective_count ? c->corrective_count : 1, sizeof *out->correctives);
    if (!out->shapes || !out->correctives) {
        log_error("%s: out of memory", path);
        return false;
    }
    for (uint32_t s = 0; s < c->shape_count; s++) {
        const chr_shape_t *src = &c->shapes[s];
        out->shapes[s] = *src;
        int t = src->mesh < c->mesh_count ? bshape_set_find_shape(&f->mesh[src->mesh].set, s) : -1;
        out->shapes[s].deltas = target_deltas(f, src->mesh, t, src->delta_count, path);
        if (!out->shapes[s].deltas)
            return false;
    }
    for (uint32_t k = 0; k < c->corrective_count; k++) {
        const chr_corrective_t *src = &c->correctives[k];
        out->correctives[k] = *src;
        int t = src->mesh < c->mesh_count ? bshape_set_find_corrective(&f->mesh[src->mesh].set, k) : -1;
        out->correctives[k].deltas = target_deltas(f, src->mesh, t, src->delta_count, path);
        if (!out->correctives[k].deltas)
            return false;
    }
    return true;
}

static void free_restored(chr_character_t *out)
{
    for (uint32_t s = 0; out->shapes && s < out->shape_count; s++)
        free(out->shapes[s].deltas);
    for (uint32_t k = 0; out->correctives && k < out->corrective_count; k++)
        free(out->correctives[k].deltas);
    free(out->shapes);
    free(out->correctives);
}

bool figure_bake_save(figure_t *f, const char *path)
{
    if (!f || !f->gfx || !path) {
        log_error("%s: bake needs a figure uploaded to the renderer", path ? path : "(no path)");
        return false;
    }
    /* A shallow copy: it shares the skeleton, materials and unbaked meshes'
     * arrays with f->chr, has the baked meshes' vertices and the deltas
     * read back from the sets, and is never freed through chr_free(). */
    chr_character_t out = f->chr;
    out.shapes = NULL;
    out.correctives = NULL;
    chr_vertex_t *baked[CHR_MAX_MESHES] = {0};
    bool ok = restore_deltas(f, &out, path);
    for (uint32_t mi = 0; mi < f->chr.mesh_count && ok; mi++) {
        figure_mesh_t *m = &f->mesh[mi];
        if (m->set.shape_count == 0)
            continue;
        uint32_t *targets = xcalloc(m->set.shape_count, sizeof *targets, &ok);
        float *weights = xcalloc(m->set.shape_count, sizeof *weights, &ok);
        baked[mi] = xcalloc(m->vertex_count, sizeof *baked[mi], &ok);
        if (!ok) {
            log_error("%s: out of memory baking mesh '%s'", path, f->chr.meshes[mi].name);
        } else {
            int n = shape_active(f, m, targets, weights);
            if (n > 0) {
                ok = bake_mesh(f, mi, n, targets, weights, baked[mi], path);
                out.meshes[mi].vertices = baked[mi];
            }
        }
        free(targets);
        free(weights);
    }
    ok = ok && chr_save(&out, path);
    for (uint32_t mi = 0; mi < CHR_MAX_MESHES; mi++)
        free(baked[mi]);
    free_restored(&out);
    return ok;
}
