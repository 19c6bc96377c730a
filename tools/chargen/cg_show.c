#include "cg_show.h"

#include "anim/skin.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool cg_show_create(cg_show_t *v, const chr_character_t *chr)
{
    memset(v, 0, sizeof *v);
    v->chr = chr;
    v->shape_w = calloc(chr->shape_count ? chr->shape_count : 1, sizeof *v->shape_w);
    bool ok = v->shape_w != NULL;
    for (uint32_t m = 0; m < chr->mesh_count && ok; m++) {
        size_t nv = chr->meshes[m].vertex_count, nt = chr->meshes[m].index_count / 3;
        v->pos[m] = malloc(nv * sizeof *v->pos[m]);
        v->nrm[m] = malloc(nv * sizeof *v->nrm[m]);
        v->col[m] = malloc(nv * sizeof *v->col[m]);
        v->ao[m] = malloc(nv * sizeof *v->ao[m]);
        v->tri[m] = malloc(nt * sizeof *v->tri[m]);
        ok = v->pos[m] && v->nrm[m] && v->col[m] && v->ao[m] && v->tri[m];
        if (!ok)
            break;
        for (size_t t = 0; t < nt; t++)
            for (int k = 0; k < 3; k++)
                v->tri[m][t][k] = (int)chr->meshes[m].indices[t * 3 + k];
        for (size_t i = 0; i < nv; i++)
            memcpy(v->col[m][i], chr->materials[chr->meshes[m].vertices[i].material].color, sizeof v->col[m][i]);
    }
    if (!ok) {
        log_error("chargen: out of memory for the preview");
        cg_show_destroy(v);
        return false;
    }
    pose_bind_from_rest(&chr->skel, &v->bind);
    cg_show_pose(v, NULL);
    return true;
}

void cg_show_destroy(cg_show_t *v)
{
    for (int m = 0; m < CHR_MAX_MESHES; m++) {
        free(v->pos[m]);
        free(v->nrm[m]);
        free(v->col[m]);
        free(v->ao[m]);
        free(v->tri[m]);
    }
    free(v->shape_w);
    memset(v, 0, sizeof *v);
}

void cg_show_clear_shapes(cg_show_t *v) { memset(v->shape_w, 0, v->chr->shape_count * sizeof *v->shape_w); }

bool cg_show_set_shape(cg_show_t *v, const char *spec)
{
    char name[CHR_NAME_MAX];
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, spec, n);
    name[n] = 0;
    int s = chr_find_shape(v->chr, name);
    if (s < 0) {
        log_error("chargen: no blend shape called '%s'", name);
        return false;
    }
    v->shape_w[s] = eq ? strtof(eq + 1, NULL) : 1.0f;
    return true;
}

void cg_show_pose(cg_show_t *v, const pose_t *pose)
{
    if (pose)
        v->pose = *pose;
    else
        pose_rest(&v->chr->skel, &v->pose);
}

void cg_show_joint_pos(const cg_show_t *v, int j, float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = v->model[j][4 * k + 3];
}

float cg_show_joint_heading_deg(const cg_show_t *v, int j)
{
    /* The third column of the rotation: where the joint's +Z points. */
    const float *m = v->model[j];
    return atan2f(m[2], m[10]) * 180.0f / 3.14159265f;
}

/* Corrective weight from the driving joint's rotation about the axis. */
static float corrective_weight(const cg_show_t *v, const chr_corrective_t *c)
{
    const float *q = v->pose.rot[c->joint];
    float s = q[3] >= 0.0f ? 1.0f : -1.0f;
    float d = s * (q[0] * c->axis[0] + q[1] * c->axis[1] + q[2] * c->axis[2]);
    float ang = 2.0f * atan2f(d, s * q[3]) * 180.0f / 3.14159265f;
    float w = (ang - c->angle_zero_deg) / (c->angle_full_deg - c->angle_zero_deg);
    return w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
}

bool cg_show_deform(cg_show_t *v)
{
    const chr_character_t *chr = v->chr;
    pose_model_job_t model_job = {
        .skel = &chr->skel, .local = &v->pose, .capacity = SKEL_MAX_JOINTS, .model_mat = v->model};
    pose_palette_job_t palette_job = {.bind = &v->bind,
                                      .joint_count = chr->skel.joint_count,
                                      .model_mat = (const float(*)[POSE_MAT_FLOATS])v->model,
                                      .palette = v->palette};
    if (!pose_model_run(&model_job) || !pose_palette_run(&palette_job))
        return false;
    bool ok = true;
    for (uint32_t m = 0; m < chr->mesh_count && ok; m++) {
        const chr_mesh_t *mesh = &chr->meshes[m];
        size_t nv = mesh->vertex_count;
        float(*p)[3] = malloc(nv * sizeof *p);
        float(*n)[3] = malloc(nv * sizeof *n);
        uint16_t(*jt)[CHR_MAX_INFLUENCES] = malloc(nv * sizeof *jt);
        float(*wt)[CHR_MAX_INFLUENCES] = malloc(nv * sizeof *wt);
        if (!p || !n || !jt || !wt) {
            free(p);
            free(n);
            free(jt);
            free(wt);
            continue;
        }
        for (size_t i = 0; i < nv; i++) {
            memcpy(p[i], mesh->vertices[i].pos, sizeof p[i]);
            memcpy(n[i], mesh->vertices[i].normal, sizeof n[i]);
            v->ao[m][i] = mesh->vertices[i].ao;
            memcpy(jt[i], mesh->vertices[i].joints, sizeof jt[i]);
            memcpy(wt[i], mesh->vertices[i].weights, sizeof wt[i]);
        }
        /* Blend shapes and correctives act in bind space, before skinning. */
        for (uint32_t s = 0; s < chr->shape_count; s++) {
            const chr_shape_t *sh = &chr->shapes[s];
            float w = v->shape_w[s];
            if (sh->mesh != m || w == 0.0f)
                continue;
            for (uint32_t d = 0; d < sh->delta_count; d++) {
                const chr_delta_t *dl = &sh->deltas[d];
                for (int k = 0; k < 3; k++) {
                    p[dl->vertex][k] += w * dl->dpos[k];
                    n[dl->vertex][k] += w * dl->dnormal[k];
                }
                v->ao[m][dl->vertex] += w * dl->dao;
            }
        }
        for (uint32_t c = 0; c < chr->corrective_count; c++) {
            const chr_corrective_t *co = &chr->correctives[c];
            float w = co->mesh == m && !v->no_correctives ? corrective_weight(v, co) : 0.0f;
            if (w == 0.0f)
                continue;
            for (uint32_t d = 0; d < co->delta_count; d++)
                for (int k = 0; k < 3; k++)
                    p[co->deltas[d].vertex][k] += w * co->deltas[d].dpos[k];
        }
        for (size_t i = 0; i < nv; i++)
            v->ao[m][i] = v->ao[m][i] < 0.0f ? 0.0f : (v->ao[m][i] > 1.0f ? 1.0f : v->ao[m][i]);
        /* The runtime's linear-blend job; scalar, so a preview does not
         * depend on the CPU that draws it. */
        skin_job_t job = {.vertex_count = (int)nv,
                          .influences = CHR_MAX_INFLUENCES,
                          .method = SKIN_LBS_MATRIX,
                          .isa = SKIN_ISA_SCALAR,
                          .positions = &p[0][0],
                          .normals = &n[0][0],
                          .joints_u16 = &jt[0][0],
                          .weights = &wt[0][0],
                          .joint_count = chr->skel.joint_count,
                          .palette = &v->palette[0][0],
                          .out_positions = &v->pos[m][0][0],
                          .out_normals = &v->nrm[m][0][0]};
        ok = skin_run(&job);
        free(p);
        free(n);
        free(jt);
        free(wt);
        cg_draw_mesh_t *dm = &v->draw[m];
        dm->nv = (int)nv;
        dm->nt = (int)(mesh->index_count / 3);
        dm->p = (const float(*)[3])v->pos[m];
        dm->n = (const float(*)[3])v->nrm[m];
        dm->color = (const float(*)[3])v->col[m];
        dm->ao = v->ao[m];
        dm->t = (const int(*)[3])v->tri[m];
    }
    return ok;
}
