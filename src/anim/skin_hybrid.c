#include "anim/skin_hybrid.h"

#include "anim/retarget.h"

#include "anim/pose.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG 57.29577951308232

bool skin_hybrid_run(const skin_hybrid_job_t *job)
{
    if (!job || job->vertex_count < 0 || !job->key0_pos || !job->key1_pos || !job->out_pos ||
        ((job->key0_nrm || job->key1_nrm) && (!job->key0_nrm || !job->key1_nrm || !job->out_nrm))) {
        log_error("skin_hybrid: missing arrays");
        return false;
    }
    float t = job->t, s = 1.0f - t;
    size_t n = (size_t)job->vertex_count;
    for (size_t k = 0; k < 3 * n; k++)
        job->out_pos[k] = s * job->key0_pos[k] + t * job->key1_pos[k];
    if (!job->key0_nrm)
        return true;
    for (size_t v = 0; v < n; v++) {
        float x[3], len2 = 0;
        for (int k = 0; k < 3; k++) {
            x[k] = s * job->key0_nrm[3 * v + k] + t * job->key1_nrm[3 * v + k];
            len2 += x[k] * x[k];
        }
        /* Opposite key normals (a half turn between keys) have no lerp:
         * keep the first key's. */
        float inv = len2 > 1e-12f ? 1.0f / sqrtf(len2) : 0.0f;
        for (int k = 0; k < 3; k++)
            job->out_nrm[3 * v + k] = inv > 0.0f ? x[k] * inv : job->key0_nrm[3 * v + k];
    }
    return true;
}

static double angle_deg(const float *a, const float *b)
{
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1], cy = (double)a[2] * b[0] - (double)a[0] * b[2],
           cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), d) * RAD_TO_DEG;
}

/* Skins frame F of the clip into POS/NRM. */
static bool skin_frame(const skin_hybrid_desc_t *d, int f, float *pos, float *nrm)
{
    skin_job_t j = d->mesh;
    j.tangents = NULL;
    j.palette = d->palettes ? d->palettes + (size_t)f * (size_t)j.joint_count * 12 : NULL;
    j.dq_palette = d->dq_palettes ? d->dq_palettes + (size_t)f * (size_t)j.joint_count * 8 : NULL;
    j.out_positions = pos;
    j.out_normals = nrm;
    j.out_tangents = NULL;
    return skin_run(&j);
}

bool skin_hybrid_measure(const skin_hybrid_desc_t *d, skin_hybrid_error_t *out)
{
    memset(out, 0, sizeof *out);
    if (!d || d->frame_count < 2 || d->key_every < 1 || d->mesh.vertex_count < 1 || !d->mesh.normals ||
        (d->mesh.method == SKIN_DQS ? !d->dq_palettes : !d->palettes)) {
        log_error("skin_hybrid: a clip of >= 2 frames, N >= 1, normals and the method's palettes are needed");
        return false;
    }
    size_t n = (size_t)d->mesh.vertex_count, f3 = n * 3 * sizeof(float);
    /* key0, key1, exact, interpolated: positions and normals each. */
    float *buf = malloc(8 * f3);
    if (!buf) {
        log_error("skin_hybrid: out of memory for %zu vertices", n);
        return false;
    }
    float *k0p = buf, *k0n = buf + 3 * n, *k1p = buf + 6 * n, *k1n = buf + 9 * n;
    float *ep = buf + 12 * n, *en = buf + 15 * n, *ip = buf + 18 * n, *in = buf + 21 * n;
    int N = d->key_every, last_key = (d->frame_count - 1) / N * N;
    bool ok = skin_frame(d, 0, k0p, k0n);
    double sum = 0;
    long samples = 0;
    out->keys = 1;
    for (int key = 0; ok && key + N <= last_key; key += N) {
        ok = skin_frame(d, key + N, k1p, k1n);
        out->keys++;
        /* Frames key+1 .. key+N; key+N itself is a key (t = 1). */
        for (int f = key + 1; ok && f <= key + N; f++) {
            skin_hybrid_job_t hj = {.vertex_count = (int)n,
                                    .t = (float)(f - key) / (float)N,
                                    .key0_pos = k0p,
                                    .key1_pos = k1p,
                                    .key0_nrm = k0n,
                                    .key1_nrm = k1n,
                                    .out_pos = ip,
                                    .out_nrm = in};
            ok = skin_hybrid_run(&hj) && skin_frame(d, f, ep, en);
            bool is_key = f == key + N;
            for (size_t v = 0; ok && v < n; v++) {
                double dx = (double)ip[3 * v] - ep[3 * v], dy = (double)ip[3 * v + 1] - ep[3 * v + 1],
                       dz = (double)ip[3 * v + 2] - ep[3 * v + 2];
                double e = sqrt(dx * dx + dy * dy + dz * dz);
                if (is_key) {
                    out->max_key_cm = fmax(out->max_key_cm, e);
                    continue;
                }
                if (e > out->max_cm) {
                    out->max_cm = e;
                    out->worst_frame = f;
                }
                sum += e;
                samples++;
                out->max_normal_deg = fmax(out->max_normal_deg, angle_deg(in + 3 * v, en + 3 * v));
            }
        }
        memcpy(k0p, k1p, f3);
        memcpy(k0n, k1n, f3);
    }
    out->frames = last_key + 1;
    out->mean_cm = samples ? sum / (double)samples : 0.0;
    free(buf);
    return ok;
}

bool skin_hybrid_clip_palettes(const bvh_t *clip, const skel_t *skel, int first, int count, float *out_palettes,
                               float *out_dq)
{
    if (first < 0 || count < 1 || first + count > clip->frame_count) {
        log_error("%s: frames %d..%d asked, the clip has %d", clip->source, first, first + count - 1,
                  clip->frame_count);
        return false;
    }
    /* Scratch of a few hundred KB: too big for the stack, allocated once. */
    typedef struct scratch_t {
        skel_t clip_skel;
        bvh_map_t clip_map;
        pose_t clip_pose, pose;
        pose_bind_t bind;
        float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS], rot[SKEL_MAX_JOINTS][4];
        float pal[SKEL_MAX_JOINTS][POSE_MAT_FLOATS], dq[SKEL_MAX_JOINTS][POSE_DQ_FLOATS];
        int from[SKEL_MAX_JOINTS];
        retarget_map_t map;
        retarget_t rt;
    } scratch_t;
    scratch_t *s = malloc(sizeof *s);
    if (!s) {
        log_error("%s: out of memory", clip->source);
        return false;
    }
    bool ok = bvh_to_skel(clip, &s->clip_skel) && bvh_map_skel(clip, &s->clip_skel, &s->clip_map);
    int matched = 0, nj = skel->joint_count;
    for (int j = 0; ok && j < nj; j++) {
        s->from[j] = -1;
        for (int b = 0; b < s->clip_skel.joint_count; b++)
            if (strcmp(skel->joint_name[j], s->clip_skel.joint_name[b]) == 0)
                s->from[j] = b;
        matched += s->from[j] >= 0;
    }
    /* A skeleton of other names (an imported character): retargeted
     * through the built-in CMU 31-joint map, the legs by FK only. */
    bool retarget = false;
    if (ok && matched == 0) {
        float floor = INFINITY, jp[SKEL_MAX_JOINTS][3];
        skel_rest_positions(skel, jp);
        for (int j = 0; j < nj; j++)
            floor = fminf(floor, jp[j][1]);
        retarget = retarget_map_builtin(&s->clip_skel, skel, &s->map) &&
                   retarget_init(&s->rt, &s->clip_skel, skel, &s->map, floor, clip->source);
        if (!retarget) {
            log_error("%s: no joint of the skeleton is in the clip, and no joint map fits it", clip->source);
            ok = false;
        }
    }
    pose_bind_from_rest(skel, &s->bind);
    for (int i = 0; ok && i < count; i++) {
        ok = bvh_frame_pose(clip, &s->clip_skel, &s->clip_map, first + i, &s->clip_pose);
        pose_rest(skel, &s->pose);
        if (ok && retarget) {
            retarget_job_t job = {.rt = &s->rt, .source = &s->clip_pose, .scale_xz = 1.0f, .out = &s->pose};
            ok = retarget_run(&job);
        }
        for (int j = 0; ok && !retarget && j < nj; j++) {
            int b = s->from[j];
            if (b < 0)
                continue;
            memcpy(s->pose.rot[j], s->clip_pose.rot[b], sizeof s->pose.rot[j]);
            /* The clip's position channels move the joint away from the
             * clip's rest offset; apply the same motion to ours. */
            for (int k = 0; k < 3; k++)
                s->pose.trans[j][k] += s->clip_pose.trans[b][k] - s->clip_skel.joint_offset[b][k];
        }
        pose_model_job_t mj = {
            .skel = skel, .local = &s->pose, .capacity = SKEL_MAX_JOINTS, .model_mat = s->model, .model_rot = s->rot};
        pose_palette_job_t pj = {.bind = &s->bind,
                                 .joint_count = nj,
                                 .model_mat = (const float(*)[POSE_MAT_FLOATS])s->model,
                                 .model_rot = (const float(*)[4])s->rot,
                                 .palette = s->pal,
                                 .dq = s->dq};
        ok = ok && pose_model_run(&mj) && pose_palette_run(&pj);
        if (ok && out_palettes)
            memcpy(out_palettes + (size_t)i * (size_t)nj * POSE_MAT_FLOATS, s->pal, (size_t)nj * sizeof s->pal[0]);
        if (ok && out_dq)
            memcpy(out_dq + (size_t)i * (size_t)nj * POSE_DQ_FLOATS, s->dq, (size_t)nj * sizeof s->dq[0]);
    }
    free(s);
    return ok;
}
