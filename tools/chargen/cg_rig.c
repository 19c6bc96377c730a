#include "cg_rig.h"

#include "anim/pose.h"
#include "anim/skin.h"
#include "core/mathx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Softness of primitive ownership (cm): a vertex 1 sigma farther from a
 * primitive's surface than from the nearest one gets e^-1 of its weight. */
#define CG_OWN_SIGMA_CM 1.3f
/* Weights below this are dropped before normalising. */
#define CG_MIN_WEIGHT 1e-3f
/* Corrective deltas are computed within this distance of the joint (cm). */
#define CG_CORR_RADIUS_CM 14.0f
#define CG_CORR_MAX_CM 3.0f

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p) {
        fprintf(stderr, "strider: error: chargen: out of memory\n");
        exit(1);
    }
    return p;
}

/* Keeps the 4 largest of W[0..n) (joint ids J), sorted, normalised. */
static void top4(const float *w, int n, int jout[CG_INFL], float wout[CG_INFL])
{
    for (int k = 0; k < CG_INFL; k++) {
        jout[k] = 0;
        wout[k] = 0.0f;
    }
    for (int j = 0; j < n; j++) {
        if (w[j] <= CG_MIN_WEIGHT)
            continue;
        /* Insertion into the sorted top list; ties keep the lower index. */
        for (int k = 0; k < CG_INFL; k++) {
            if (w[j] > wout[k]) {
                for (int m = CG_INFL - 1; m > k; m--) {
                    wout[m] = wout[m - 1];
                    jout[m] = jout[m - 1];
                }
                wout[k] = w[j];
                jout[k] = j;
                break;
            }
        }
    }
    float s = wout[0] + wout[1] + wout[2] + wout[3];
    if (s <= 0.0f) {
        wout[0] = 1.0f;
        return;
    }
    for (int k = 0; k < CG_INFL; k++)
        wout[k] /= s;
    /* Make the sum exactly 1 in float: give the rounding to the largest. */
    float s2 = wout[1] + wout[2] + wout[3];
    wout[0] = 1.0f - s2;
    /* Unused slots point at the dominant joint with zero weight. */
    for (int k = 1; k < CG_INFL; k++)
        if (wout[k] == 0.0f)
            jout[k] = jout[0];
}

void cg_rig_weights(const cg_figure_t *f, const cg_mesh_t *m, const cg_adj_t *adj, int smooth_iters, cg_skin_t *out)
{
    int nj = SKEL_MAX_JOINTS;
    float *dist = xcalloc((size_t)f->count, sizeof *dist);
    /* Dense per-vertex weights over the 21-ish joints in use. */
    int used = 0;
    for (int i = 0; i < f->count; i++)
        if (f->prim[i].bone + 1 > used)
            used = f->prim[i].bone + 1;
    nj = used;
    float *w = xcalloc((size_t)m->nv * nj, sizeof *w);
    for (int v = 0; v < m->nv; v++) {
        cg_figure_prim_distances(f, m->p[v], dist);
        float dmin = FLT_MAX;
        for (int i = 0; i < f->count; i++)
            if (dist[i] < dmin)
                dmin = dist[i];
        for (int i = 0; i < f->count; i++) {
            if (dist[i] == FLT_MAX)
                continue;
            float e = (dist[i] - dmin) / CG_OWN_SIGMA_CM;
            if (e < 12.0f)
                w[(size_t)v * nj + f->prim[i].bone] += expf(-e);
        }
        float s = 0.0f;
        for (int j = 0; j < nj; j++)
            s += w[(size_t)v * nj + j];
        for (int j = 0; j < nj; j++)
            w[(size_t)v * nj + j] /= s;
    }
    float *tmp = xcalloc((size_t)m->nv * nj, sizeof *tmp);
    for (int it = 0; it < smooth_iters; it++) {
        for (int v = 0; v < m->nv; v++) {
            int a = adj->off[v], b = adj->off[v + 1];
            for (int j = 0; j < nj; j++) {
                float acc = 0.0f;
                for (int i = a; i < b; i++)
                    acc += w[(size_t)adj->adj[i] * nj + j];
                float avg = b > a ? acc / (float)(b - a) : w[(size_t)v * nj + j];
                tmp[(size_t)v * nj + j] = 0.5f * w[(size_t)v * nj + j] + 0.5f * avg;
            }
        }
        memcpy(w, tmp, (size_t)m->nv * nj * sizeof *w);
    }
    for (int v = 0; v < m->nv; v++)
        top4(&w[(size_t)v * nj], nj, out->joint[v], out->weight[v]);
    free(tmp);
    free(w);
    free(dist);
}

/* ---------------------------------------------------------------- extension */

typedef struct extra_def_t {
    char name[SKEL_NAME_MAX];
    int parent;
    float pos[3];             /* model-space rest position */
    int kind;                 /* 0 twist, 1 toe, 2 finger, 3 face */
    float seg_a[3], seg_b[3]; /* twist: the limb segment */
    float radius;             /* face/finger influence radius, cm */
} extra_def_t;

static float dist3(const float a[3], const float b[3])
{
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
}

static int append_joint(skel_t *s, const float (*jp)[3], const extra_def_t *d)
{
    if (s->joint_count >= SKEL_MAX_JOINTS)
        return -1;
    int j = s->joint_count++;
    snprintf(s->joint_name[j], SKEL_NAME_MAX, "%s", d->name);
    s->joint_parent[j] = d->parent;
    for (int k = 0; k < 3; k++)
        s->joint_offset[j][k] = d->pos[k] - jp[d->parent][k];
    return j;
}

/* Moves SHARE of vertex V's weight on joint FROM to joint TO. */
static void move_weight(cg_skin_t *skin, int v, int from, int to, float share)
{
    int ids[CG_INFL + 1];
    float ws[CG_INFL + 1];
    int n = 0;
    float moved = 0.0f;
    for (int k = 0; k < CG_INFL; k++) {
        if (skin->weight[v][k] <= 0.0f)
            continue;
        float wk = skin->weight[v][k];
        if (skin->joint[v][k] == from) {
            moved = wk * share;
            wk -= moved;
        }
        ids[n] = skin->joint[v][k];
        ws[n++] = wk;
    }
    if (moved <= 0.0f)
        return;
    ids[n] = to;
    ws[n++] = moved;
    /* Re-select the top 4 of at most 5 influences. */
    float dense[CG_INFL + 1];
    int jout[CG_INFL];
    float wout[CG_INFL];
    for (int i = 0; i < n; i++)
        dense[i] = ws[i];
    top4(dense, n, jout, wout);
    for (int k = 0; k < CG_INFL; k++) {
        skin->joint[v][k] = ids[jout[k]];
        skin->weight[v][k] = wout[k];
    }
}

int cg_rig_extend(skel_t *s, const cg_figure_t *f, int extra, const cg_mesh_t *m, cg_skin_t *skin)
{
    float jp[SKEL_MAX_JOINTS][3];
    skel_rest_positions(s, jp);
    static extra_def_t defs[SKEL_MAX_JOINTS];
    int nd = 0;
    const char *sides[2] = {"l", "r"};
    /* Twist joints at 1/3 and 2/3 of each limb segment. */
    const char *limbs[4][2] = {{"Shldr", "ForeArm"}, {"ForeArm", "Hand"}, {"Thigh", "Shin"}, {"Shin", "Foot"}};
    for (int pass = 0; pass < 2; pass++)
        for (int sd = 0; sd < 2; sd++)
            for (int l = 0; l < 4; l++) {
                char a[16], b[16];
                snprintf(a, sizeof a, "%s%s", sides[sd], limbs[l][0]);
                snprintf(b, sizeof b, "%s%s", sides[sd], limbs[l][1]);
                int ja = skel_find(s, a), jb = skel_find(s, b);
                if (ja < 0 || jb < 0)
                    continue;
                extra_def_t *d = &defs[nd++];
                memset(d, 0, sizeof *d);
                snprintf(d->name, sizeof d->name, "%sTwist%d", a, pass + 1);
                d->parent = ja;
                float t = pass == 0 ? 0.5f : 0.8f;
                for (int k = 0; k < 3; k++) {
                    d->pos[k] = jp[ja][k] + t * (jp[jb][k] - jp[ja][k]);
                    d->seg_a[k] = jp[ja][k];
                    d->seg_b[k] = jp[jb][k];
                }
                d->kind = 0;
            }
    /* Toes at the ball of each foot. */
    for (int sd = 0; sd < 2; sd++) {
        char a[SKEL_NAME_MAX];
        snprintf(a, sizeof a, "%sFoot", sides[sd]);
        int ja = skel_find(s, a);
        if (ja < 0)
            continue;
        extra_def_t *d = &defs[nd++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%sToe", sides[sd]);
        d->parent = ja;
        d->pos[0] = jp[ja][0] + (sd ? -0.6f : 0.6f);
        d->pos[1] = f->floor_y + 2.5f;
        d->pos[2] = jp[ja][2] + 9.0f;
        d->kind = 1;
        d->radius = 5.0f;
    }
    /* Fingers: 5 chains of 3 along each hand. */
    for (int sd = 0; sd < 2; sd++) {
        char a[SKEL_NAME_MAX], e[SKEL_NAME_MAX];
        snprintf(a, sizeof a, "%sHand", sides[sd]);
        snprintf(e, sizeof e, "%sHand_end", sides[sd]);
        int ja = skel_find(s, a), je = skel_find_end(s, e);
        if (ja < 0 || je < 0)
            continue;
        float dir[3] = {s->end_offset[je][0], s->end_offset[je][1], s->end_offset[je][2]};
        float l = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        for (int k = 0; k < 3; k++)
            dir[k] /= l;
        /* The thumb side: cross(dir, up) for the left hand, mirrored for the right. */
        float front[3] = {-dir[2], 0.0f, dir[0]};
        if (sd) {
            front[0] = -front[0];
            front[2] = -front[2];
        }
        const char *fingers[5] = {"Thumb", "Index", "Middle", "Ring", "Pinky"};
        for (int fi = 0; fi < 5; fi++) {
            int parent = ja;
            for (int seg = 0; seg < 3; seg++) {
                extra_def_t *d = &defs[nd++];
                memset(d, 0, sizeof *d);
                snprintf(d->name, sizeof d->name, "%s%s%d", sides[sd], fingers[fi], seg + 1);
                float along = fi == 0 ? 2.0f + 1.8f * (float)seg : 7.0f + 2.2f * (float)seg;
                float across = fi == 0 ? 3.2f + 0.8f * (float)seg : 2.7f - 1.8f * (float)(fi - 1);
                for (int k = 0; k < 3; k++)
                    d->pos[k] = jp[ja][k] + along * dir[k] + across * front[k];
                d->parent = parent;
                d->kind = 2;
                d->radius = 1.6f;
                /* The parent of the next segment is this one, once added. */
                parent = -(nd); /* resolved when appended */
            }
        }
    }
    /* Named face joints, then numbered ones spread over the face. */
    const cg_face_marks_t *fm = &f->face;
    int head = skel_find(s, "head");
    struct {
        const char *name;
        float p[3];
        float r;
    } face[] = {
        {"jaw", {fm->jaw_pivot[0], fm->jaw_pivot[1], fm->jaw_pivot[2]}, 0},
        {"lEye", {fm->eye_c[0][0], fm->eye_c[0][1], fm->eye_c[0][2]}, 1.5f},
        {"rEye", {fm->eye_c[1][0], fm->eye_c[1][1], fm->eye_c[1][2]}, 1.5f},
        {"lLidUpper", {fm->eye_c[0][0], fm->eye_c[0][1] + 0.9f, fm->eye_c[0][2] + 1.2f}, 1.0f},
        {"rLidUpper", {fm->eye_c[1][0], fm->eye_c[1][1] + 0.9f, fm->eye_c[1][2] + 1.2f}, 1.0f},
        {"lLidLower", {fm->eye_c[0][0], fm->eye_c[0][1] - 0.8f, fm->eye_c[0][2] + 1.2f}, 1.0f},
        {"rLidLower", {fm->eye_c[1][0], fm->eye_c[1][1] - 0.8f, fm->eye_c[1][2] + 1.2f}, 1.0f},
        {"lBrowInner", {1.6f, fm->brow_c[0][1], fm->brow_c[0][2] + 0.3f}, 1.5f},
        {"rBrowInner", {-1.6f, fm->brow_c[1][1], fm->brow_c[1][2] + 0.3f}, 1.5f},
        {"lBrowOuter", {4.6f, fm->brow_c[0][1], fm->brow_c[0][2] - 1.2f}, 1.5f},
        {"rBrowOuter", {-4.6f, fm->brow_c[1][1], fm->brow_c[1][2] - 1.2f}, 1.5f},
        {"lLipCorner", {fm->mouth_half_w, fm->mouth_c[1], fm->mouth_c[2] - 0.8f}, 1.2f},
        {"rLipCorner", {-fm->mouth_half_w, fm->mouth_c[1], fm->mouth_c[2] - 0.8f}, 1.2f},
        {"upperLip", {0, fm->mouth_c[1] + 0.6f, fm->lip_z - 0.3f}, 1.2f},
        {"lowerLip", {0, fm->mouth_c[1] - 0.6f, fm->lip_z - 0.4f}, 1.2f},
        {"lCheek", {fm->cheek_c[0][0], fm->cheek_c[0][1] + 1.5f, fm->cheek_c[0][2]}, 2.0f},
        {"rCheek", {fm->cheek_c[1][0], fm->cheek_c[1][1] + 1.5f, fm->cheek_c[1][2]}, 2.0f},
        {"nose", {fm->nose_tip[0], fm->nose_tip[1], fm->nose_tip[2] - 0.8f}, 1.2f},
        {"chin", {fm->chin[0], fm->chin[1], fm->chin[2] - 0.5f}, 1.8f},
        {"tongue", {0, fm->mouth_c[1] - 0.2f, fm->mouth_c[2] - 3.0f}, 0},
    };
    for (size_t i = 0; i < sizeof face / sizeof face[0] && head >= 0; i++) {
        extra_def_t *d = &defs[nd++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", face[i].name);
        d->parent = head;
        memcpy(d->pos, face[i].p, sizeof d->pos);
        d->kind = 3;
        d->radius = face[i].r;
    }
    /* Numbered face joints on a golden-angle spiral over the front of the head. */
    for (int i = 0; nd < SKEL_MAX_JOINTS - s->joint_count && head >= 0; i++) {
        extra_def_t *d = &defs[nd++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "face%03d", i);
        d->parent = head;
        float t = ((float)i + 0.5f) / 120.0f;
        float ang = (float)i * 2.39996323f;
        float rr = 6.0f * sqrtf(fmodf(t, 1.0f));
        d->pos[0] = rr * cosf(ang);
        d->pos[1] = fm->head_c[1] - 3.0f + rr * sinf(ang);
        d->pos[2] = fm->head_c[2] + 7.5f;
        d->kind = 3;
        d->radius = 1.2f;
    }
    int added = 0;
    int map[SKEL_MAX_JOINTS];
    for (int i = 0; i < SKEL_MAX_JOINTS; i++)
        map[i] = -1;
    for (int i = 0; i < nd && added < extra; i++) {
        extra_def_t d = defs[i];
        if (d.parent < 0) {
            /* Finger chains refer to the previous definition. */
            int prev = -d.parent - 1;
            if (prev >= i || map[prev] < 0)
                continue;
            d.parent = map[prev];
        }
        float jp2[SKEL_MAX_JOINTS][3];
        skel_rest_positions(s, jp2);
        int j = append_joint(s, (const float(*)[3])jp2, &d);
        map[i] = j;
        if (j < 0)
            break;
        added++;
        /* Weight transfer. */
        for (int v = 0; v < m->nv; v++) {
            const float *p = m->p[v];
            float share = 0.0f;
            if (d.kind == 0) {
                float ab[3] = {d.seg_b[0] - d.seg_a[0], d.seg_b[1] - d.seg_a[1], d.seg_b[2] - d.seg_a[2]};
                float ap[3] = {p[0] - d.seg_a[0], p[1] - d.seg_a[1], p[2] - d.seg_a[2]};
                float t = (ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]) /
                          (ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2]);
                /* A twist joint takes a growing share along its segment. */
                float t0 = (dist3(d.pos, d.seg_a) / dist3(d.seg_b, d.seg_a));
                share = 0.5f * clampf((t - (t0 - 0.35f)) / 0.35f, 0.0f, 1.0f);
            } else if (d.radius > 0.0f) {
                float r = dist3(p, d.pos) / d.radius;
                share = r < 2.5f ? 0.6f * expf(-r * r) : 0.0f;
            }
            if (share > 0.01f)
                move_weight(skin, v, d.parent, j, share);
        }
    }
    return added;
}

/* ---------------------------------------------------------------- posing */

/* Inverse of a rigid 3x4 row-major matrix (rotation + translation). */
static void rigid_inverse(const float m[POSE_MAT_FLOATS], float o[POSE_MAT_FLOATS])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            o[4 * r + c] = m[4 * c + r];
    for (int r = 0; r < 3; r++)
        o[4 * r + 3] = -(o[4 * r] * m[3] + o[4 * r + 1] * m[7] + o[4 * r + 2] * m[11]);
}

static bool inv3(const float m[9], float o[9])
{
    float det = m[0] * (m[4] * m[8] - m[7] * m[5]) - m[3] * (m[1] * m[8] - m[7] * m[2]) +
                m[6] * (m[1] * m[5] - m[4] * m[2]);
    if (fabsf(det) < 1e-8f)
        return false;
    float id = 1.0f / det;
    o[0] = (m[4] * m[8] - m[5] * m[7]) * id;
    o[1] = (m[2] * m[7] - m[1] * m[8]) * id;
    o[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    o[3] = (m[5] * m[6] - m[3] * m[8]) * id;
    o[4] = (m[0] * m[8] - m[2] * m[6]) * id;
    o[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    o[6] = (m[3] * m[7] - m[4] * m[6]) * id;
    o[7] = (m[1] * m[6] - m[0] * m[7]) * id;
    o[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    return true;
}

/* Skins the bind-space points P of M by PALETTE into OUT: the runtime's
 * linear-blend job (anim/skin.h), scalar so the bytes written do not
 * depend on the CPU that runs the generator. */
static bool skin_points(const skel_t *s, const cg_mesh_t *m, const cg_skin_t *skin,
                        const float (*palette)[POSE_MAT_FLOATS], float (*out)[3])
{
    uint16_t(*joints)[CG_INFL] = xcalloc((size_t)m->nv, sizeof *joints);
    for (int v = 0; v < m->nv; v++)
        for (int k = 0; k < CG_INFL; k++)
            joints[v][k] = (uint16_t)skin->joint[v][k];
    skin_job_t job = {.vertex_count = m->nv,
                      .influences = CG_INFL,
                      .method = SKIN_LBS_MATRIX,
                      .isa = SKIN_ISA_SCALAR,
                      .positions = &m->p[0][0],
                      .joints_u16 = &joints[0][0],
                      .weights = &skin->weight[0][0],
                      .joint_count = s->joint_count,
                      .palette = &palette[0][0],
                      .out_positions = &out[0][0]};
    bool ok = skin_run(&job);
    free(joints);
    return ok;
}

bool cg_rig_corrective(const skel_t *s, const cg_figure_t *f, const cg_mesh_t *m, const cg_adj_t *adj,
                       const cg_skin_t *skin, int j, const float axis[3], float angle_deg, float (*out_delta)[3])
{
    memset(out_delta, 0, (size_t)m->nv * sizeof *out_delta);
    /* The rest pose with joint J bent, through the runtime's forward
     * kinematics and palette (anim/pose.h). */
    static pose_t pose;
    static pose_bind_t bind;
    static float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS], sk[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    static float inv[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_rest(s, &pose);
    pose_quat_axis_angle(axis, angle_deg * 3.14159265f / 180.0f, pose.rot[j]);
    pose_bind_from_rest(s, &bind);
    pose_model_job_t model_job = {.skel = s, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model};
    pose_palette_job_t palette_job = {.bind = &bind,
                                      .joint_count = s->joint_count,
                                      .model_mat = (const float(*)[POSE_MAT_FLOATS])model,
                                      .palette = sk};
    float(*skinned)[3] = xcalloc((size_t)m->nv, sizeof *skinned);
    if (!pose_model_run(&model_job) || !pose_palette_run(&palette_job) ||
        !skin_points(s, m, skin, (const float(*)[POSE_MAT_FLOATS])sk, skinned)) {
        free(skinned);
        return false;
    }
    for (int k = 0; k < s->joint_count; k++)
        rigid_inverse(sk[k], inv[k]);
    static bool use[SKEL_MAX_JOINTS];
    memset(use, 0, sizeof use);
    use[j] = true;
    if (s->joint_parent[j] >= 0)
        use[s->joint_parent[j]] = true;
    float rest[SKEL_MAX_JOINTS][3];
    skel_rest_positions(s, rest);
    bool *hit = xcalloc((size_t)m->nv, 1);
    for (int v = 0; v < m->nv; v++) {
        if (dist3(m->p[v], rest[j]) > CG_CORR_RADIUS_CM)
            continue;
        /* Only vertices skinned to the driving pair take part. */
        float wpair = 0.0f;
        for (int k = 0; k < CG_INFL; k++)
            if (use[skin->joint[v][k]])
                wpair += skin->weight[v][k];
        if (wpair < 0.9f)
            continue;
        const float *pl = skinned[v];
        float target[3] = {pl[0], pl[1], pl[2]};
        for (int it = 0; it < 4; it++) {
            float d = cg_figure_eval_posed(f, (const float(*)[POSE_MAT_FLOATS])inv, use, target);
            float g[3];
            const float e = 0.02f;
            for (int k = 0; k < 3; k++) {
                float a[3] = {target[0], target[1], target[2]}, b[3] = {target[0], target[1], target[2]};
                a[k] += e;
                b[k] -= e;
                g[k] = (cg_figure_eval_posed(f, (const float(*)[POSE_MAT_FLOATS])inv, use, a) -
                        cg_figure_eval_posed(f, (const float(*)[POSE_MAT_FLOATS])inv, use, b)) /
                       (2.0f * e);
            }
            float g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
            if (g2 < 1e-8f)
                break;
            for (int k = 0; k < 3; k++)
                target[k] -= d * g[k] / g2;
        }
        float dp[3] = {target[0] - pl[0], target[1] - pl[1], target[2] - pl[2]};
        float len = sqrtf(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
        if (len > CG_CORR_MAX_CM)
            for (int k = 0; k < 3; k++)
                dp[k] *= CG_CORR_MAX_CM / len;
        /* Back to bind space through the blended linear part. */
        float lin[9] = {0};
        for (int k = 0; k < CG_INFL; k++) {
            float w = skin->weight[v][k];
            const float *sm = sk[skin->joint[v][k]];
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++)
                    lin[c * 3 + r] += w * sm[r * 4 + c];
        }
        float il[9];
        if (!inv3(lin, il))
            continue;
        for (int r = 0; r < 3; r++)
            out_delta[v][r] = il[r] * dp[0] + il[3 + r] * dp[1] + il[6 + r] * dp[2];
        /* Fade out towards the edge of the region so nothing tears. */
        float fade = clampf((CG_CORR_RADIUS_CM - dist3(m->p[v], rest[j])) / 4.0f, 0.0f, 1.0f);
        for (int r = 0; r < 3; r++)
            out_delta[v][r] *= fade;
        hit[v] = true;
    }
    /* Smooth the deltas over the surface to remove ridges. */
    float(*tmp)[3] = xcalloc((size_t)m->nv, sizeof *tmp);
    for (int it = 0; it < 3; it++) {
        for (int v = 0; v < m->nv; v++) {
            memcpy(tmp[v], out_delta[v], sizeof tmp[v]);
            if (!hit[v])
                continue;
            int a = adj->off[v], b = adj->off[v + 1];
            float acc[3] = {0, 0, 0};
            for (int i = a; i < b; i++)
                for (int k = 0; k < 3; k++)
                    acc[k] += out_delta[adj->adj[i]][k];
            for (int k = 0; k < 3; k++)
                tmp[v][k] = 0.5f * out_delta[v][k] + 0.5f * acc[k] / (float)(b - a > 0 ? b - a : 1);
        }
        memcpy(out_delta, tmp, (size_t)m->nv * sizeof *tmp);
    }
    free(tmp);
    free(hit);
    free(skinned);
    return true;
}
