#include "cg_figure.h"

#include "core/log.h"
#include "core/mathx.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Finite-difference step for gradients (cm): well below the finest mesh
 * spacing, well above float noise at 100 cm magnitudes. */
#define CG_GRAD_EPS 0.02f

/* ---------------------------------------------------------------- vec helpers */

static float v3_dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static float v3_len(const float a[3]) { return sqrtf(v3_dot(a, a)); }
static void v3_set(float o[3], float x, float y, float z)
{
    o[0] = x;
    o[1] = y;
    o[2] = z;
}
static void v3_norm(float a[3])
{
    float l = v3_len(a);
    if (l > 0.0f) {
        a[0] /= l;
        a[1] /= l;
        a[2] /= l;
    }
}
static void v3_cross(const float a[3], const float b[3], float o[3])
{
    float t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(o, t, sizeof t);
}

static float smin(float a, float b, float k)
{
    if (k <= 0.0f)
        return a < b ? a : b;
    float h = clampf(0.5f + 0.5f * (b - a) / k, 0.0f, 1.0f);
    return b + (a - b) * h - k * h * (1.0f - h);
}
static float smax(float a, float b, float k) { return -smin(-a, -b, k); }

/* ---------------------------------------------------------------- primitives */

static void prim_local(const cg_prim_t *pr, const float p[3], float q[3])
{
    float d[3] = {p[0] - pr->c[0], p[1] - pr->c[1], p[2] - pr->c[2]};
    for (int i = 0; i < 3; i++)
        q[i] = v3_dot(pr->axes[i], d);
}

/* Ellipsoid distance estimate (exact on the surface, good near it). */
static float sd_ellipsoid(const float q[3], const float r[3])
{
    float a[3] = {q[0] / r[0], q[1] / r[1], q[2] / r[2]};
    float b[3] = {q[0] / (r[0] * r[0]), q[1] / (r[1] * r[1]), q[2] / (r[2] * r[2])};
    float k0 = v3_len(a), k1 = v3_len(b);
    if (k1 < 1e-12f)
        return -fminf(r[0], fminf(r[1], r[2]));
    return k0 * (k0 - 1.0f) / k1;
}

static float sd_prim(const cg_prim_t *pr, const float p[3])
{
    switch (pr->kind) {
    case CG_PRIM_ELLIPSOID: {
        float q[3];
        prim_local(pr, p, q);
        return sd_ellipsoid(q, pr->r);
    }
    case CG_PRIM_BOX: {
        float q[3];
        prim_local(pr, p, q);
        float o[3], out = 0.0f;
        for (int i = 0; i < 3; i++) {
            o[i] = fabsf(q[i]) - (pr->r[i] - pr->round);
            float m = fmaxf(o[i], 0.0f);
            out += m * m;
        }
        float in = fminf(fmaxf(o[0], fmaxf(o[1], o[2])), 0.0f);
        return sqrtf(out) + in - pr->round;
    }
    case CG_PRIM_HAIR: {
        float q[3];
        prim_local(pr, p, q);
        float e = sd_ellipsoid(q, pr->r);
        float plane = pr->plane_d - v3_dot(pr->n, p);
        return smax(e, plane, 1.0f);
    }
    case CG_PRIM_LIMB: {
        float ba[3] = {pr->b[0] - pr->a[0], pr->b[1] - pr->a[1], pr->b[2] - pr->a[2]};
        float pa[3] = {p[0] - pr->a[0], p[1] - pr->a[1], p[2] - pr->a[2]};
        float l2 = v3_dot(ba, ba);
        float t = clampf(v3_dot(pa, ba) / l2, 0.0f, 1.0f);
        float d[3] = {pa[0] - ba[0] * t, pa[1] - ba[1] * t, pa[2] - ba[2] * t};
        /* Elliptic cross-section: scale the offset's u and v components. */
        float w[3];
        float l = sqrtf(l2);
        v3_set(w, ba[0] / l, ba[1] / l, ba[2] / l);
        float v[3];
        v3_cross(w, pr->u, v);
        float du = v3_dot(d, pr->u) / pr->su, dv = v3_dot(d, v) / pr->sv, dw = v3_dot(d, w);
        float r = pr->ra + (pr->rb - pr->ra) * t;
        return sqrtf(du * du + dv * dv + dw * dw) - r;
    }
    }
    return FLT_MAX;
}

static float aabb_dist(const cg_prim_t *pr, const float p[3])
{
    float s = 0.0f;
    for (int i = 0; i < 3; i++) {
        float d = fmaxf(pr->lo[i] - p[i], p[i] - pr->hi[i]);
        if (d > 0.0f)
            s += d * d;
    }
    return sqrtf(s);
}

/* Combines primitive I into the running distance D. */
static float combine(const cg_prim_t *pr, float d, float di)
{
    if (pr->op == CG_OP_UNION)
        return smin(d, di, pr->k);
    return smax(d, -di, pr->k);
}

/* True when primitive PR cannot change D at P (smooth ops are exact
 * min/max once the operands differ by more than k). */
static bool prim_irrelevant(const cg_prim_t *pr, float d, const float p[3])
{
    float lb = aabb_dist(pr, p);
    if (pr->op == CG_OP_UNION)
        return lb - pr->k > d;
    return -lb + pr->k < d && lb > 0.0f;
}

float cg_figure_eval(const cg_figure_t *f, const float p[3])
{
    float d = FLT_MAX;
    for (int i = 0; i < f->count; i++) {
        const cg_prim_t *pr = &f->prim[i];
        if (d < FLT_MAX && prim_irrelevant(pr, d, p))
            continue;
        float di = sd_prim(pr, p);
        d = (d == FLT_MAX) ? (pr->op == CG_OP_UNION ? di : d) : combine(pr, d, di);
    }
    return d;
}

void cg_figure_grad(const cg_figure_t *f, const float p[3], float out[3])
{
    for (int i = 0; i < 3; i++) {
        float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[i] += CG_GRAD_EPS;
        b[i] -= CG_GRAD_EPS;
        out[i] = (cg_figure_eval(f, a) - cg_figure_eval(f, b)) / (2.0f * CG_GRAD_EPS);
    }
}

void cg_figure_prim_distances(const cg_figure_t *f, const float p[3], float *out)
{
    for (int i = 0; i < f->count; i++) {
        const cg_prim_t *pr = &f->prim[i];
        out[i] = (pr->op == CG_OP_UNION && pr->bone >= 0) ? sd_prim(pr, p) : FLT_MAX;
    }
}

static void xform_point(const float m[POSE_MAT_FLOATS], const float p[3], float o[3])
{
    for (int r = 0; r < 3; r++)
        o[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

float cg_figure_eval_posed(const cg_figure_t *f, const float (*inv_xf)[POSE_MAT_FLOATS], const bool *use,
                           const float p[3])
{
    float d = FLT_MAX;
    for (int i = 0; i < f->count; i++) {
        const cg_prim_t *pr = &f->prim[i];
        if (pr->op != CG_OP_UNION || pr->bone < 0 || !use[pr->bone])
            continue;
        float q[3];
        xform_point(inv_xf[pr->bone], p, q);
        float di = sd_prim(pr, q);
        d = (d == FLT_MAX) ? di : smin(d, di, pr->k);
    }
    return d;
}

/* ---------------------------------------------------------------- building */

typedef struct builder_t {
    cg_figure_t *f;
    const skel_t *s;
    bool ok;
} builder_t;

static int joint(builder_t *b, const char *name)
{
    int j = skel_find(b->s, name);
    if (j < 0 && b->ok) {
        log_error("chargen: skeleton has no joint '%s' (the figure needs the CMU 21 joints)", name);
        b->ok = false;
    }
    return j < 0 ? 0 : j;
}

static cg_prim_t *new_prim(builder_t *b, cg_prim_kind_t kind, cg_prim_op_t op, float k, int bone)
{
    cg_figure_t *f = b->f;
    if (f->count >= CG_MAX_PRIMS) {
        if (b->ok)
            log_error("chargen: more than %d figure primitives", CG_MAX_PRIMS);
        b->ok = false;
        return &f->prim[CG_MAX_PRIMS - 1];
    }
    cg_prim_t *pr = &f->prim[f->count++];
    memset(pr, 0, sizeof *pr);
    pr->kind = kind;
    pr->op = op;
    pr->k = k;
    pr->bone = bone;
    v3_set(pr->axes[0], 1, 0, 0);
    v3_set(pr->axes[1], 0, 1, 0);
    v3_set(pr->axes[2], 0, 0, 1);
    return pr;
}

static void finish_bounds(cg_prim_t *pr)
{
    float ext;
    if (pr->kind == CG_PRIM_LIMB) {
        ext = fmaxf(pr->ra, pr->rb) * fmaxf(1.0f, fmaxf(pr->su, pr->sv));
        for (int i = 0; i < 3; i++) {
            pr->lo[i] = fminf(pr->a[i], pr->b[i]) - ext;
            pr->hi[i] = fmaxf(pr->a[i], pr->b[i]) + ext;
        }
    } else {
        ext = (pr->kind == CG_PRIM_BOX) ? sqrtf(v3_dot(pr->r, pr->r)) : fmaxf(pr->r[0], fmaxf(pr->r[1], pr->r[2]));
        for (int i = 0; i < 3; i++) {
            pr->lo[i] = pr->c[i] - ext;
            pr->hi[i] = pr->c[i] + ext;
        }
    }
    for (int i = 0; i < 3; i++) {
        pr->lo[i] -= pr->k;
        pr->hi[i] += pr->k;
    }
}

static cg_prim_t *ellipsoid(builder_t *b, int bone, cg_prim_op_t op, float k, float cx, float cy, float cz, float rx,
                            float ry, float rz)
{
    cg_prim_t *pr = new_prim(b, CG_PRIM_ELLIPSOID, op, k, bone);
    v3_set(pr->c, cx, cy, cz);
    v3_set(pr->r, rx, ry, rz);
    finish_bounds(pr);
    return pr;
}

/* Rotates the local frame of PR about model X by ax and then Z by az (rad). */
static void tilt(cg_prim_t *pr, float ax, float az)
{
    float cx = cosf(ax), sx = sinf(ax), cz = cosf(az), sz = sinf(az);
    /* rows are the local axes expressed in model space */
    float X[3] = {cz, sz, 0}, Y[3] = {-sz * cx, cz * cx, sx}, Z[3] = {sz * sx, -cz * sx, cx};
    memcpy(pr->axes[0], X, sizeof X);
    memcpy(pr->axes[1], Y, sizeof Y);
    memcpy(pr->axes[2], Z, sizeof Z);
    finish_bounds(pr);
}

static cg_prim_t *limb(builder_t *b, int bone, float k, const float a[3], const float bb[3], float ra, float rb,
                       float su, float sv, const float up_hint[3])
{
    cg_prim_t *pr = new_prim(b, CG_PRIM_LIMB, CG_OP_UNION, k, bone);
    memcpy(pr->a, a, sizeof pr->a);
    memcpy(pr->b, bb, sizeof pr->b);
    pr->ra = ra;
    pr->rb = rb;
    pr->su = su;
    pr->sv = sv;
    /* u: the hint made perpendicular to the axis. */
    float w[3] = {bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]};
    v3_norm(w);
    float h[3] = {up_hint[0], up_hint[1], up_hint[2]};
    float dd = v3_dot(h, w);
    for (int i = 0; i < 3; i++)
        pr->u[i] = h[i] - w[i] * dd;
    v3_norm(pr->u);
    finish_bounds(pr);
    return pr;
}

/* Copies the last N primitives mirrored in X, swapping l/r bones. */
static void mirror_last(builder_t *b, int n, const int *bone_map)
{
    cg_figure_t *f = b->f;
    int start = f->count - n;
    for (int i = 0; i < n; i++) {
        cg_prim_t src = f->prim[start + i];
        cg_prim_t *pr = new_prim(b, src.kind, src.op, src.k, src.bone);
        *pr = src;
        if (src.bone >= 0)
            pr->bone = bone_map[src.bone];
        pr->c[0] = -src.c[0];
        pr->a[0] = -src.a[0];
        pr->b[0] = -src.b[0];
        pr->u[0] = -src.u[0];
        pr->n[0] = -src.n[0];
        /* Mirror the frame: negate x components of each axis, then flip
         * axis 0 so the frame stays right-handed (ellipsoids are symmetric). */
        for (int a = 0; a < 3; a++)
            pr->axes[a][0] = -src.axes[a][0];
        for (int a = 0; a < 3; a++)
            pr->axes[0][a] = -pr->axes[0][a];
        finish_bounds(pr);
    }
}

static void add(float o[3], const float a[3], float s, const float d[3])
{
    for (int i = 0; i < 3; i++)
        o[i] = a[i] + s * d[i];
}

bool cg_figure_build(cg_figure_t *f, const skel_t *s)
{
    memset(f, 0, sizeof *f);
    builder_t b = {.f = f, .s = s, .ok = true};
    skel_rest_positions(s, f->joint_pos);
    skel_rest_end_positions(s, (const float(*)[3])f->joint_pos, f->end_pos);
    int hip = joint(&b, "hip"), abdomen = joint(&b, "abdomen"), chest = joint(&b, "chest");
    int neck = joint(&b, "neck"), head = joint(&b, "head");
    int lcol = joint(&b, "lCollar"), lsh = joint(&b, "lShldr"), lfa = joint(&b, "lForeArm");
    int lha = joint(&b, "lHand"), lth = joint(&b, "lThigh"), lsn = joint(&b, "lShin");
    int lft = joint(&b, "lFoot");
    int rcol = joint(&b, "rCollar"), rsh = joint(&b, "rShldr"), rfa = joint(&b, "rForeArm");
    int rha = joint(&b, "rHand"), rth = joint(&b, "rThigh"), rsn = joint(&b, "rShin");
    int rft = joint(&b, "rFoot"), lbu = joint(&b, "lButtock"), rbu = joint(&b, "rButtock");
    int lhe = skel_find_end(s, "lHand_end"), lfe = skel_find_end(s, "lFoot_end");
    if (!b.ok)
        return false;
    if (lhe < 0 || lfe < 0) {
        log_error("chargen: skeleton lacks end sites lHand_end / lFoot_end");
        return false;
    }
    int mirror_map[SKEL_MAX_JOINTS];
    for (int j = 0; j < SKEL_MAX_JOINTS; j++)
        mirror_map[j] = j;
    const int lr[][2] = {{lcol, rcol}, {lsh, rsh}, {lfa, rfa}, {lha, rha},
                         {lth, rth},   {lsn, rsn}, {lft, rft}, {lbu, rbu}};
    for (size_t i = 0; i < sizeof lr / sizeof lr[0]; i++) {
        mirror_map[lr[i][0]] = lr[i][1];
        mirror_map[lr[i][1]] = lr[i][0];
    }
    const float(*J)[3] = (const float(*)[3])f->joint_pos;
    const float up[3] = {0, 1, 0}, fwd[3] = {0, 0, 1}, side[3] = {1, 0, 0};
    const float toe[3] = {f->end_pos[lfe][0], f->end_pos[lfe][1], f->end_pos[lfe][2]};
    f->floor_y = toe[1] - 2.9f;
    int n0;

    /* Torso: pelvis, waist, ribcage, chest, back. */
    ellipsoid(&b, hip, CG_OP_UNION, 0.0f, 0, 1.0f, -0.6f, 14.6f, 10.5f, 10.0f);
    n0 = f->count;
    ellipsoid(&b, hip, CG_OP_UNION, 3.0f, 6.2f, -2.0f, -6.0f, 7.0f, 8.0f, 5.6f);
    mirror_last(&b, f->count - n0, mirror_map);
    ellipsoid(&b, abdomen, CG_OP_UNION, 6.0f, 0, 17.0f, -0.4f, 12.0f, 12.5f, 8.2f);
    ellipsoid(&b, chest, CG_OP_UNION, 5.0f, 0, 36.5f, -1.1f, 14.0f, 14.0f, 9.6f);
    ellipsoid(&b, chest, CG_OP_UNION, 4.0f, 0, 42.0f, -2.2f, 15.4f, 8.8f, 8.6f);
    n0 = f->count;
    ellipsoid(&b, chest, CG_OP_UNION, 4.0f, 5.6f, 43.5f, 4.2f, 6.4f, 4.0f, 2.6f);
    mirror_last(&b, f->count - n0, mirror_map);

    /* Shoulders and arms (left, then mirrored). */
    n0 = f->count;
    {
        float ta[3] = {2.5f, 49.6f, -5.2f}, tb[3] = {J[lsh][0] + 0.5f, 50.2f, -4.9f};
        limb(&b, lcol, 3.5f, ta, tb, 3.9f, 3.4f, 1.0f, 1.0f, fwd);
        ellipsoid(&b, lsh, CG_OP_UNION, 3.0f, J[lsh][0] + 0.6f, J[lsh][1] + 0.1f, J[lsh][2], 5.4f, 4.7f, 5.0f);
        limb(&b, lsh, 2.5f, J[lsh], J[lfa], 4.4f, 3.3f, 1.0f, 1.08f, up);
        /* Biceps/triceps bulge along the upper arm. */
        float mid[3];
        for (int i = 0; i < 3; i++)
            mid[i] = 0.55f * J[lsh][i] + 0.45f * J[lfa][i];
        ellipsoid(&b, lsh, CG_OP_UNION, 2.0f, mid[0], mid[1], mid[2], 7.5f, 3.9f, 4.1f);
        limb(&b, lfa, 2.0f, J[lfa], J[lha], 3.6f, 2.4f, 1.0f, 1.3f, fwd);
        float fmid[3];
        for (int i = 0; i < 3; i++)
            fmid[i] = 0.7f * J[lfa][i] + 0.3f * J[lha][i];
        cg_prim_t *fo = ellipsoid(&b, lfa, CG_OP_UNION, 2.0f, fmid[0], fmid[1], fmid[2], 6.5f, 3.4f, 3.8f);
        (void)fo;
        /* Hand: a mitten-like palm block and a thumb, oriented along the
         * wrist -> hand end direction with the palm facing down. */
        float d[3] = {f->end_pos[lhe][0] - J[lha][0], f->end_pos[lhe][1] - J[lha][1], f->end_pos[lhe][2] - J[lha][2]};
        v3_norm(d);
        float front[3];
        v3_cross(d, up, front);
        v3_norm(front);
        float pup[3];
        v3_cross(front, d, pup);
        cg_prim_t *palm = new_prim(&b, CG_PRIM_BOX, CG_OP_UNION, 1.6f, lha);
        add(palm->c, J[lha], 5.2f, d);
        memcpy(palm->axes[0], d, sizeof d);
        memcpy(palm->axes[1], pup, sizeof pup);
        memcpy(palm->axes[2], front, sizeof front);
        v3_set(palm->r, 5.4f, 1.35f, 4.1f);
        palm->round = 1.2f;
        finish_bounds(palm);
        float t0[3], t1[3];
        add(t0, J[lha], 1.6f, d);
        add(t0, t0, 3.0f, front);
        add(t0, t0, -0.5f, pup);
        add(t1, J[lha], 6.0f, d);
        add(t1, t1, 5.6f, front);
        add(t1, t1, -0.9f, pup);
        limb(&b, lha, 1.0f, t0, t1, 1.35f, 1.05f, 1.0f, 1.0f, pup);
    }
    mirror_last(&b, f->count - n0, mirror_map);

    /* Legs (left, then mirrored). */
    n0 = f->count;
    {
        float top[3] = {J[lth][0], J[lth][1] + 1.5f, J[lth][2]};
        limb(&b, lth, 3.0f, top, J[lsn], 7.3f, 5.0f, 0.95f, 1.0f, side);
        ellipsoid(&b, lth, CG_OP_UNION, 3.0f, J[lth][0] + 1.6f, J[lth][1] - 12.0f, J[lth][2] + 1.0f, 5.6f, 11.0f, 6.6f);
        ellipsoid(&b, lsn, CG_OP_UNION, 2.5f, J[lsn][0], J[lsn][1], J[lsn][2] + 0.3f, 4.5f, 5.0f, 4.6f);
        limb(&b, lsn, 2.0f, J[lsn], J[lft], 4.7f, 3.1f, 1.0f, 1.0f, side);
        ellipsoid(&b, lsn, CG_OP_UNION, 3.0f, J[lsn][0] + 0.2f, J[lsn][1] - 11.0f, J[lsn][2] - 2.4f, 4.3f, 9.5f, 4.4f);
        /* Boot: sole block plus instep. */
        float heel_z = J[lft][2] - 5.0f, toe_z = toe[2] + 2.2f;
        cg_prim_t *boot = new_prim(&b, CG_PRIM_BOX, CG_OP_UNION, 2.0f, lft);
        v3_set(boot->c, 0.5f * (J[lft][0] + toe[0]) + 0.2f, f->floor_y + 2.6f, 0.5f * (heel_z + toe_z));
        v3_set(boot->r, 4.3f, 2.6f, 0.5f * (toe_z - heel_z));
        boot->round = 2.2f;
        finish_bounds(boot);
        cg_prim_t *instep = ellipsoid(&b, lft, CG_OP_UNION, 2.0f, J[lft][0] + 0.3f, J[lft][1] - 2.0f, J[lft][2] + 3.5f,
                                      3.9f, 3.4f, 6.0f);
        tilt(instep, 0.35f, 0.0f);
    }
    mirror_last(&b, f->count - n0, mirror_map);

    /* Neck and head. The face is built from the cranium centre C. */
    {
        float na[3] = {0, 49.5f, -4.2f}, nb[3] = {0, 63.5f, -1.8f};
        limb(&b, neck, 3.0f, na, nb, 5.3f, 4.7f, 1.0f, 0.97f, side);
    }
    cg_face_marks_t *fm = &f->face;
    const float C[3] = {0.0f, 69.8f, -1.2f};
    memcpy(fm->head_c, C, sizeof C);
    v3_set(fm->head_r, 7.7f, 9.4f, 9.6f);
    ellipsoid(&b, head, CG_OP_UNION, 2.5f, C[0], C[1], C[2], fm->head_r[0], fm->head_r[1], fm->head_r[2]);
    /* Lower face / jaw mass, jaw lines and chin. */
    ellipsoid(&b, head, CG_OP_UNION, 3.0f, 0, 63.8f, 1.8f, 5.7f, 6.1f, 7.2f);
    n0 = f->count;
    {
        float ja[3] = {5.5f, 63.2f, -1.6f}, jb[3] = {1.3f, 58.3f, 5.6f};
        limb(&b, head, 2.2f, ja, jb, 1.6f, 1.7f, 1.0f, 1.0f, side);
        ellipsoid(&b, head, CG_OP_UNION, 1.5f, 4.1f, 66.3f, 5.2f, 2.1f, 1.5f, 2.2f);
    }
    mirror_last(&b, f->count - n0, mirror_map);
    ellipsoid(&b, head, CG_OP_UNION, 1.5f, 0, 58.6f, 6.3f, 2.4f, 1.9f, 2.0f);
    v3_set(fm->chin, 0, 58.0f, 8.2f);
    /* Brow ridge. */
    n0 = f->count;
    {
        float ba[3] = {1.1f, 70.4f, 7.9f}, bb[3] = {5.0f, 70.6f, 5.5f};
        limb(&b, head, 1.2f, ba, bb, 0.8f, 0.45f, 1.0f, 1.0f, up);
    }
    mirror_last(&b, f->count - n0, mirror_map);
    v3_set(fm->brow_c[0], 3.4f, 71.0f, 8.0f);
    v3_set(fm->brow_c[1], -3.4f, 71.0f, 8.0f);
    /* Nose: bridge, tip, wings. */
    {
        float na[3] = {0, 68.4f, 8.2f}, nb[3] = {0, 64.9f, 10.2f};
        limb(&b, head, 0.8f, na, nb, 0.65f, 0.9f, 1.15f, 1.0f, side);
        ellipsoid(&b, head, CG_OP_UNION, 0.6f, 0, 64.5f, 10.0f, 0.9f, 0.85f, 0.95f);
        n0 = f->count;
        ellipsoid(&b, head, CG_OP_UNION, 0.5f, 1.05f, 63.95f, 9.25f, 0.72f, 0.66f, 0.8f);
        mirror_last(&b, f->count - n0, mirror_map);
        v3_set(fm->nose_tip, 0, 64.3f, 11.4f);
    }
    /* Lips. */
    ellipsoid(&b, head, CG_OP_UNION, 0.6f, 0, 61.9f, 8.25f, 2.3f, 0.62f, 1.0f);
    ellipsoid(&b, head, CG_OP_UNION, 0.6f, 0, 60.75f, 8.05f, 2.0f, 0.68f, 1.0f);
    /* Ears, with a carved bowl. */
    n0 = f->count;
    {
        cg_prim_t *ear = ellipsoid(&b, head, CG_OP_UNION, 0.6f, 8.0f, 66.9f, -1.5f, 0.8f, 3.1f, 2.0f);
        tilt(ear, -0.15f, 0.25f);
        ellipsoid(&b, -1, CG_OP_SUBTRACT, 0.3f, 8.75f, 66.5f, -1.2f, 0.55f, 1.7f, 1.1f);
        v3_set(fm->ear_c[0], 8.0f, 66.9f, -1.4f);
        v3_set(fm->ear_c[1], -8.0f, 66.9f, -1.4f);
    }
    mirror_last(&b, f->count - n0, mirror_map);
    /* Hair cap: an offset of the cranium above a slanted hairline plane. */
    {
        cg_prim_t *hair = new_prim(&b, CG_PRIM_HAIR, CG_OP_UNION, 0.4f, head);
        v3_set(hair->c, C[0], C[1] + 0.5f, C[2] - 0.3f);
        v3_set(hair->r, fm->head_r[0] + 0.75f, fm->head_r[1] + 0.9f, fm->head_r[2] + 0.9f);
        float n[3] = {0, 18.5f, -12.0f};
        v3_norm(n);
        memcpy(hair->n, n, sizeof n);
        float on[3] = {0, 73.8f, 8.0f};
        hair->plane_d = v3_dot(n, on);
        memcpy(fm->hairline_n, n, sizeof n);
        fm->hairline_d = hair->plane_d;
        finish_bounds(hair);
    }
    /* A little volume on top, swept forward, so the hair reads as hair and
     * not as a cap. */
    {
        cg_prim_t *quiff = ellipsoid(&b, head, CG_OP_UNION, 2.0f, 0.4f, 76.9f, 1.6f, 6.0f, 3.0f, 6.4f);
        tilt(quiff, 0.18f, 0.04f);
    }
    /* Mouth: a thin slit opening into a cavity. */
    v3_set(fm->mouth_c, 0, 61.33f, 8.9f);
    fm->mouth_half_w = 2.25f;
    fm->lip_z = 9.25f;
    ellipsoid(&b, -1, CG_OP_SUBTRACT, 0.15f, 0, 61.33f, 8.8f, 2.2f, 0.34f, 1.7f);
    ellipsoid(&b, -1, CG_OP_SUBTRACT, 0.3f, 0, 61.2f, 6.2f, 1.9f, 0.95f, 1.75f);
    v3_set(fm->jaw_pivot, 0, 64.0f, -1.2f);
    /* Eyes: socket sphere plus an almond opening in front of it. */
    fm->eye_r = 1.32f;
    fm->eye_open_a = 1.28f;
    fm->eye_open_b = 0.6f;
    fm->eye_open_dy = 0.08f;
    v3_set(fm->eye_c[0], 3.15f, 68.25f, 5.5f);
    v3_set(fm->eye_c[1], -3.15f, 68.25f, 5.5f);
    for (int e = 0; e < 2; e++) {
        const float *E = fm->eye_c[e];
        ellipsoid(&b, -1, CG_OP_SUBTRACT, 0.15f, E[0], E[1], E[2], fm->eye_r + 0.1f, fm->eye_r + 0.1f,
                  fm->eye_r + 0.1f);
        /* The almond: a flattened ellipsoid reaching out through the face. */
        ellipsoid(&b, -1, CG_OP_SUBTRACT, 0.12f, E[0], E[1] + fm->eye_open_dy, E[2] + 1.9f, fm->eye_open_a,
                  fm->eye_open_b, 1.9f);
    }
    v3_set(fm->cheek_c[0], 3.9f, 62.6f, 6.0f);
    v3_set(fm->cheek_c[1], -3.9f, 62.6f, 6.0f);
    fm->neck_cut_y = 55.2f;
    return b.ok;
}
