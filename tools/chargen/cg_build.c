#include "cg_build.h"

#include "cg_ao.h"
#include "cg_face.h"
#include "cg_figure.h"
#include "cg_mesh.h"
#include "cg_rig.h"
#include "core/log.h"
#include "core/mathx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cell sizes (cm) of the default character: the body, the head away from
 * the face, and the eyes/nose/mouth region. Chosen for ~30k triangles. */
#define CG_H_BODY_CM 1.9f
#define CG_H_HEAD_CM 1.05f
#define CG_H_FACE_CM 0.32f
/* The head mesh starts this far above the body's top loop (cm); the band
 * between is a zipped strip owned by the head. */
#define CG_SEAM_GAP_CM 1.0f
/* Half-width (x) of the band in which the body is cut at the seam height:
 * the neck and head, not the shoulders. */
#define CG_NECK_CUT_HALF_WIDTH_CM 9.5f
#define CG_RELAX_ITERS 6
#define CG_WEIGHT_SMOOTH_ITERS 6
#define CG_AO_RAYS 48
#define CG_AO_DIST_CM 9.0f
#define CG_AO_CELL_CM 1.5f
/* Shape AO is recomputed this far (cm) around moved vertices. */
#define CG_AO_SHAPE_REACH_CM 3.5f
/* Deltas smaller than these are not stored. */
#define CG_EPS_POS_CM 5e-3f
#define CG_EPS_NRM 8e-3f
#define CG_EPS_AO 4e-3f

enum {
    MAT_SUIT,
    MAT_TRIM,
    MAT_BOOT,
    MAT_SKIN,
    MAT_LIPS,
    MAT_HAIR,
    MAT_BROW,
    MAT_SCLERA,
    MAT_IRIS,
    MAT_PUPIL,
    MAT_MOUTH,
    MAT_COUNT
};

static const struct {
    const char *name;
    float color[4];
    float roughness, subsurface;
} MATERIALS[MAT_COUNT] = {
    {"suit", {0.045f, 0.065f, 0.11f, 1.0f}, 0.55f, 0.0f},  {"suit_trim", {0.02f, 0.30f, 0.34f, 1.0f}, 0.4f, 0.0f},
    {"boots", {0.03f, 0.028f, 0.026f, 1.0f}, 0.35f, 0.0f}, {"skin", {0.60f, 0.36f, 0.25f, 1.0f}, 0.5f, 0.6f},
    {"lips", {0.45f, 0.17f, 0.15f, 1.0f}, 0.35f, 0.6f},    {"hair", {0.055f, 0.032f, 0.018f, 1.0f}, 0.7f, 0.0f},
    {"brows", {0.04f, 0.025f, 0.015f, 1.0f}, 0.8f, 0.0f},  {"sclera", {0.80f, 0.78f, 0.74f, 1.0f}, 0.15f, 0.2f},
    {"iris", {0.06f, 0.20f, 0.28f, 1.0f}, 0.1f, 0.0f},     {"pupil", {0.005f, 0.005f, 0.005f, 1.0f}, 0.05f, 0.0f},
    {"mouth", {0.20f, 0.04f, 0.05f, 1.0f}, 0.5f, 0.4f},
};

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p) {
        log_error("chargen: out of memory");
        exit(1);
    }
    return p;
}

static float smoothstep(float a, float b, float x)
{
    float t = clampf((x - a) / (b - a), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static void norm3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 1e-20f)
        for (int k = 0; k < 3; k++)
            v[k] /= l;
    else {
        v[0] = 0.0f;
        v[1] = 1.0f;
        v[2] = 0.0f;
    }
}

static float field(const void *ctx, const float p[3]) { return cg_figure_eval(ctx, p); }

typedef struct cut_t {
    float y;
    float axis_x, axis_z;
} cut_t;

static bool keep_body(const void *ctx, const float p[3])
{
    const cut_t *c = ctx;
    /* Everything above the cut between the shoulders belongs to the head. */
    (void)c->axis_z;
    return p[1] < c->y || fabsf(p[0] - c->axis_x) > CG_NECK_CUT_HALF_WIDTH_CM;
}

static bool keep_head(const void *ctx, const float p[3])
{
    const cut_t *c = ctx;
    return p[1] > c->y + CG_SEAM_GAP_CM;
}

/* Moves loop vertices onto the plane y = Y and onto the surface within it. */
static void snap_loop(cg_mesh_t *m, const int *loop, int n, float y, const cg_figure_t *f)
{
    for (int i = 0; i < n; i++) {
        float *p = m->p[loop[i]];
        p[1] = y;
        for (int it = 0; it < 8; it++) {
            float d = cg_figure_eval(f, p);
            float g[3];
            cg_figure_grad(f, p, g);
            g[1] = 0.0f;
            float g2 = g[0] * g[0] + g[2] * g[2];
            if (g2 < 1e-8f || fabsf(d) < 1e-5f)
                break;
            p[0] -= d * g[0] / g2;
            p[2] -= d * g[2] / g2;
        }
    }
}

/* ---------------------------------------------------------------- eyes */

static void build_eyes(const cg_face_marks_t *fm, bool tiny, cg_mesh_t *eyes, int **mat_out)
{
    /* Polar ring angles (deg) from the gaze axis; duplicated angles split
     * the pupil/iris and iris/sclera so materials change on a clean circle. */
    static const float rings_full[] = {0, 5, 10.5f, 10.5f, 17, 24, 30, 30, 40, 55, 75, 100, 130, 160, 180};
    static const float rings_tiny[] = {0, 10.5f, 10.5f, 30, 30, 90, 180};
    const float *rings = tiny ? rings_tiny : rings_full;
    int nr = tiny ? (int)(sizeof rings_tiny / sizeof rings_tiny[0]) : (int)(sizeof rings_full / sizeof rings_full[0]);
    int seg = tiny ? 8 : 24;
    memset(eyes, 0, sizeof *eyes);
    int cap = 2 * nr * seg;
    int *mat = xcalloc((size_t)cap, sizeof *mat);
    for (int e = 0; e < 2; e++) {
        const float *E = fm->eye_c[e];
        int base = eyes->nv;
        for (int r = 0; r < nr; r++) {
            float th = rings[r] * 3.14159265f / 180.0f;
            /* Cornea: a gentle bulge over the iris. */
            float rad = fm->eye_r * (1.0f + 0.06f * smoothstep(40.0f, 0.0f, rings[r]));
            int m = rings[r] < 10.5f || (r > 0 && rings[r] == 10.5f && rings[r - 1] < 10.5f)
                        ? MAT_PUPIL
                        : (rings[r] < 30.0f || (rings[r] == 30.0f && rings[r - 1] < 30.0f) ? MAT_IRIS : MAT_SCLERA);
            for (int k = 0; k < seg; k++) {
                float ph = 6.2831853f * (float)k / (float)seg;
                float p[3] = {E[0] + rad * sinf(th) * cosf(ph), E[1] + rad * sinf(th) * sinf(ph),
                              E[2] + rad * cosf(th)};
                int v = cg_mesh_add_vertex(eyes, p);
                mat[v] = m;
            }
        }
        for (int r = 0; r + 1 < nr; r++) {
            if (rings[r] == rings[r + 1])
                continue;
            for (int k = 0; k < seg; k++) {
                int a = base + r * seg + k, b = base + r * seg + (k + 1) % seg;
                int c = base + (r + 1) * seg + (k + 1) % seg, d = base + (r + 1) * seg + k;
                /* Counter-clockwise seen from outside the sphere. */
                if (r > 0)
                    cg_mesh_add_tri(eyes, a, d, b);
                if (r + 2 < nr || rings[r + 1] < 180.0f)
                    cg_mesh_add_tri(eyes, b, d, c);
            }
        }
    }
    *mat_out = mat;
}

/* ---------------------------------------------------------------- materials */

typedef struct mat_ctx_t {
    const cg_figure_t *f;
    const skel_t *s;
    float hand_dir[2][3];
    float hand_pos[2][3];
    float neck_x, neck_z;
} mat_ctx_t;

/* Material regions are bounded by level sets g(p) = 0 of these functions
 * (negative inside the named region). The mesh is first snapped so edges
 * run along each level set, then vertices are classified with the same
 * functions, which keeps colour boundaries straight instead of stair-stepped. */
typedef enum {
    B_BOOT,      /* boots: below the ankle line */
    B_BOOT_TRIM, /* trim band above the boots */
    B_CUFF_L,    /* skin of the hand beyond the wrist */
    B_CUFF_R,
    B_CUFF_TRIM_L,
    B_CUFF_TRIM_R,
    B_COLLAR, /* skin above the collar line */
    B_HAIR,
    B_BROW_L,
    B_BROW_R,
    B_LIPS,
    B_COUNT
} boundary_id_t;

/* Thickness (cm) of the trim bands. */
#define CG_TRIM_CM 2.3f
#define CG_BOOT_TOP_CM 9.0f

static float hand_t(const mat_ctx_t *c, int sd, const float p[3])
{
    const float *h = c->hand_pos[sd], *d = c->hand_dir[sd];
    return (p[0] - h[0]) * d[0] + (p[1] - h[1]) * d[1] + (p[2] - h[2]) * d[2];
}

/* The suit is a turtleneck ending exactly at the head/body seam ring, so
 * the suit/skin boundary is the seam itself (a clean horizontal loop). */
static float collar_y(const mat_ctx_t *c) { return c->f->face.neck_cut_y + 0.3f; }

static float brow_g(const cg_face_marks_t *fm, int e, const float p[3])
{
    float s = e ? -1.0f : 1.0f;
    float x = s * p[0];
    float u = (x - 1.2f) / 4.2f;
    float yb = fm->brow_c[e][1] + 0.1f + 0.35f * sinf(3.14159265f * clampf(u, 0.0f, 1.0f)) - 0.3f * u;
    float th = 0.36f - 0.14f * clampf(u, 0.0f, 1.0f);
    /* Rounded ends: distance past the ends counts like distance off the line. */
    float ex = fmaxf(0.0f, fmaxf(1.2f - x, x - 5.4f));
    return sqrtf((p[1] - yb) * (p[1] - yb) + ex * ex) - th;
}

static float boundary_g(const mat_ctx_t *c, boundary_id_t id, const float p[3])
{
    const cg_face_marks_t *fm = &c->f->face;
    switch (id) {
    case B_BOOT: return p[1] - (c->f->floor_y + CG_BOOT_TOP_CM);
    case B_BOOT_TRIM: return p[1] - (c->f->floor_y + CG_BOOT_TOP_CM + CG_TRIM_CM);
    case B_CUFF_L: return -1.2f - hand_t(c, 0, p);
    case B_CUFF_R: return -1.2f - hand_t(c, 1, p);
    case B_CUFF_TRIM_L: return -1.2f - CG_TRIM_CM - hand_t(c, 0, p);
    case B_CUFF_TRIM_R: return -1.2f - CG_TRIM_CM - hand_t(c, 1, p);
    case B_COLLAR: return collar_y(c) - p[1];
    case B_HAIR:
        return fm->hairline_d - 0.25f -
               (fm->hairline_n[0] * p[0] + fm->hairline_n[1] * p[1] + fm->hairline_n[2] * p[2]);
    case B_BROW_L: return brow_g(fm, 0, p);
    case B_BROW_R: return brow_g(fm, 1, p);
    case B_LIPS: {
        float lx = p[0] / (fm->mouth_half_w + 0.2f);
        float ly = (p[1] - fm->mouth_c[1]) / (p[1] > fm->mouth_c[1] ? 1.1f : 1.2f);
        return sqrtf(lx * lx + ly * ly) - 1.0f;
    }
    case B_COUNT: break;
    }
    return 1.0f;
}

/* Where a boundary applies at all (so the hair plane does not cut the
 * body, a cuff plane the other arm, ...). */
static bool boundary_applies(const mat_ctx_t *c, boundary_id_t id, const float p[3], bool head)
{
    const cg_face_marks_t *fm = &c->f->face;
    switch (id) {
    case B_BOOT:
    case B_BOOT_TRIM: return !head;
    case B_CUFF_L:
    case B_CUFF_TRIM_L: return !head && p[0] > 35.0f;
    case B_CUFF_R:
    case B_CUFF_TRIM_R: return !head && p[0] < -35.0f;
    case B_COLLAR: return !head && fabsf(p[0]) < 8.5f && p[1] > 45.0f;
    case B_HAIR: {
        /* Not on the ears. */
        for (int e = 0; e < 2; e++) {
            float d0 = p[0] - fm->ear_c[e][0], d1 = p[1] - fm->ear_c[e][1], d2 = p[2] - fm->ear_c[e][2];
            if (d0 * d0 + d1 * d1 / 9.0f + d2 * d2 / 4.0f < 2.2f * 2.2f && fabsf(p[0]) > 7.0f)
                return false;
        }
        return head;
    }
    case B_BROW_L: return head && p[0] > 0.5f && p[2] > 3.5f;
    case B_BROW_R: return head && p[0] < -0.5f && p[2] > 3.5f;
    case B_LIPS: return head && p[2] > fm->lip_z - 1.6f;
    case B_COUNT: break;
    }
    return false;
}

/* Small tolerance so vertices snapped onto a boundary count as inside it. */
#define CG_SNAP_IN 0.02f

static bool inside(const mat_ctx_t *c, boundary_id_t id, const float p[3], bool head)
{
    return boundary_applies(c, id, p, head) && boundary_g(c, id, p) < CG_SNAP_IN;
}

static int body_material(const mat_ctx_t *c, const float p[3])
{
    if (inside(c, B_CUFF_L, p, false) || inside(c, B_CUFF_R, p, false))
        return MAT_SKIN;
    if (inside(c, B_CUFF_TRIM_L, p, false) || inside(c, B_CUFF_TRIM_R, p, false))
        return MAT_TRIM;
    if (inside(c, B_BOOT, p, false))
        return MAT_BOOT;
    if (inside(c, B_BOOT_TRIM, p, false))
        return MAT_TRIM;
    if (inside(c, B_COLLAR, p, false))
        return MAT_SKIN;
    return MAT_SUIT;
}

static int head_material(const mat_ctx_t *c, const float p[3])
{
    const cg_face_marks_t *fm = &c->f->face;
    float my = fm->mouth_c[1];
    /* Mouth interior (behind the lips). */
    /* Mouth interior: inside the slit behind the lip fronts, or the cavity
     * (the carves of cg_figure.c, slightly enlarged). */
    float sx = p[0] / (fm->mouth_half_w - 0.2f), sy = (p[1] - my) / 0.45f;
    float cx = p[0] / 2.1f, cy = (p[1] - (my - 0.13f)) / 1.1f, cz = (p[2] - 6.2f) / 1.95f;
    if ((sx * sx + sy * sy < 1.0f && p[2] < fm->lip_z - 0.7f) || cx * cx + cy * cy + cz * cz < 1.0f)
        return MAT_MOUTH;
    if (inside(c, B_LIPS, p, true))
        return MAT_LIPS;
    if (inside(c, B_BROW_L, p, true) || inside(c, B_BROW_R, p, true))
        return MAT_BROW;
    if (inside(c, B_HAIR, p, true))
        return MAT_HAIR;
    return MAT_SKIN;
}

/* Moves vertices next to each boundary onto it (along the surface), so the
 * mesh has an edge loop on every material boundary. */
static void snap_boundaries(cg_mesh_t *m, const cg_adj_t *adj, const bool *fixed, int head_v0, const mat_ctx_t *c)
{
    const cg_figure_t *f = c->f;
    int snapped[B_COUNT] = {0}, skipped[B_COUNT] = {0};
    for (int id = 0; id < B_COUNT; id++) {
        for (int v = 0; v < m->nv; v++) {
            bool head = v >= head_v0;
            if (fixed[v] || !boundary_applies(c, (boundary_id_t)id, m->p[v], head))
                continue;
            float gv = boundary_g(c, (boundary_id_t)id, m->p[v]);
            float emin = 1e9f;
            bool crossing = false;
            for (int i = adj->off[v]; i < adj->off[v + 1]; i++) {
                int u = adj->adj[i];
                float gu = boundary_g(c, (boundary_id_t)id, m->p[u]);
                if ((gu < 0.0f) != (gv < 0.0f) && fabsf(gv) <= fabsf(gu))
                    crossing = true;
                float d0 = m->p[u][0] - m->p[v][0], d1 = m->p[u][1] - m->p[v][1], d2 = m->p[u][2] - m->p[v][2];
                emin = fminf(emin, sqrtf(d0 * d0 + d1 * d1 + d2 * d2));
            }
            if (!crossing)
                continue;
            /* Newton step on g within the tangent plane. */
            float g[3], n[3];
            const float e = 0.01f;
            for (int k = 0; k < 3; k++) {
                float a[3] = {m->p[v][0], m->p[v][1], m->p[v][2]}, b[3] = {a[0], a[1], a[2]};
                a[k] += e;
                b[k] -= e;
                g[k] = (boundary_g(c, (boundary_id_t)id, a) - boundary_g(c, (boundary_id_t)id, b)) / (2 * e);
            }
            cg_figure_grad(f, m->p[v], n);
            norm3(n);
            float gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
            for (int k = 0; k < 3; k++)
                g[k] -= gn * n[k];
            float g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
            if (g2 < 1e-6f)
                continue;
            float step[3], len = 0.0f;
            for (int k = 0; k < 3; k++) {
                step[k] = -gv * g[k] / g2;
                len += step[k] * step[k];
            }
            len = sqrtf(len);
            /* Never move a vertex more than half its shortest edge. */
            if (len > 0.5f * emin) {
                skipped[id]++;
                continue;
            }
            for (int k = 0; k < 3; k++)
                m->p[v][k] += step[k];
            snapped[id]++;
            for (int it = 0; it < 4; it++) {
                float d = cg_figure_eval(f, m->p[v]);
                float gg[3];
                cg_figure_grad(f, m->p[v], gg);
                float q = gg[0] * gg[0] + gg[1] * gg[1] + gg[2] * gg[2];
                if (q < 1e-8f)
                    break;
                for (int k = 0; k < 3; k++)
                    m->p[v][k] -= d * gg[k] / q;
            }
        }
    }
    for (int id = 0; id < B_COUNT; id++)
        log_debug("chargen: boundary %d: %d vertices snapped, %d too far", id, snapped[id], skipped[id]);
}

/* ---------------------------------------------------------------- tangents */

/* Tangent of the planar UV map u = x, v = y: dP/du projected on the tangent
 * plane; where the normal runs along X, fall back to Z (smoothly blended). */
static void tangent_from_normal(const float n[3], float t[4])
{
    float x[3] = {1.0f - n[0] * n[0], -n[0] * n[1], -n[0] * n[2]};
    float lx = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    float sgn = n[0] >= 0.0f ? -1.0f : 1.0f;
    float z[3] = {sgn * (0.0f - n[2] * n[0]), sgn * (0.0f - n[2] * n[1]), sgn * (1.0f - n[2] * n[2])};
    float w = smoothstep(0.15f, 0.35f, lx);
    for (int k = 0; k < 3; k++)
        t[k] = w * x[k] + (1.0f - w) * z[k];
    norm3(t);
    /* Handedness: does B = cross(N, T) follow +v (= +Y on the surface)? */
    float b[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    t[3] = b[1] >= 0.0f ? 1.0f : -1.0f;
}

/* ---------------------------------------------------------------- pipeline */

typedef struct work_t {
    cg_figure_t fig;
    skel_t skel;
    cg_mesh_t all; /* body + head + zip strip */
    int body_nt;   /* triangles [0, body_nt) are the body's */
    int head_v0;   /* vertices >= head_v0 came from the head surface */
    int *seam;     /* body top loop (shared by both meshes) */
    int nseam;
    bool *fixed;
    cg_adj_t adj;
    float (*n)[3];
    int *mat;
    float *ao;
    cg_skin_t skin;
    bool *in_head; /* vertex belongs to the head mesh */
    cg_mesh_t eyes;
    float (*eye_n)[3];
    int *eye_mat;
    float *eye_ao;
} work_t;

static bool build_surface(work_t *w, const cg_params_t *prm)
{
    cg_figure_t *f = &w->fig;
    float sc = 1.0f / sqrtf(prm->density > 0.0f ? prm->density : 1.0f);
    float hb = CG_H_BODY_CM * sc, hh = CG_H_HEAD_CM * sc, hf = CG_H_FACE_CM * sc;
    if (prm->tiny) {
        hb = 7.0f;
        hh = 3.2f;
        hf = 3.2f;
    }
    float reach = 0.0f;
    for (int e = 0; e < w->skel.end_count; e++)
        reach = fmaxf(reach, fabsf(f->end_pos[e][0]));
    cut_t cut = {.y = f->face.neck_cut_y, .axis_x = 0.0f, .axis_z = -3.0f};
    cg_axis_t ba[3] = {{-reach - 8.0f, reach + 8.0f, 0, 0, 0, hb},
                       {f->floor_y - 2.0f, cut.y + 3.0f * hb, 0, 0, 0, hb},
                       {-18.0f, 18.0f, 0, 0, 0, hb}};
    cg_axis_t ha[3] = {{-11.5f, 11.5f, -4.6f, 4.6f, hf, hh},
                       {cut.y - 2.0f * hh, 82.0f, 60.0f, 75.0f, hf, hh},
                       {-14.0f, 15.0f, 5.5f, 11.0f, hf, hh}};
    cg_mesh_t body, head;
    if (!cg_mesh_polygonize(field, f, ba, &body) || !cg_mesh_polygonize(field, f, ha, &head)) {
        log_error("chargen: polygonising the figure produced no surface");
        return false;
    }
    cg_mesh_keep(&body, keep_body, &cut);
    cg_mesh_keep(&head, keep_head, &cut);
    int *lb = NULL, *lh = NULL;
    int nb = cg_mesh_boundary_loop(&body, &lb), nh = cg_mesh_boundary_loop(&head, &lh);
    if (nb < 3 || nh < 3) {
        log_error("chargen: no neck loop to join head and body (body %d, head %d vertices)", nb, nh);
        free(lb);
        free(lh);
        cg_mesh_free(&body);
        cg_mesh_free(&head);
        return false;
    }
    memset(&w->all, 0, sizeof w->all);
    cg_mesh_append(&w->all, &body);
    w->body_nt = w->all.nt;
    w->head_v0 = cg_mesh_append(&w->all, &head);
    for (int i = 0; i < nh; i++)
        lh[i] += w->head_v0;
    snap_loop(&w->all, lb, nb, cut.y, f);
    snap_loop(&w->all, lh, nh, cut.y + CG_SEAM_GAP_CM, f);
    float c[3] = {0, cut.y, 0};
    for (int i = 0; i < nb; i++) {
        c[0] += w->all.p[lb[i]][0] / (float)nb;
        c[2] += w->all.p[lb[i]][2] / (float)nb;
    }
    cg_mesh_zip(&w->all, lb, nb, lh, nh, c);
    w->fixed = xcalloc((size_t)w->all.nv, sizeof *w->fixed);
    for (int i = 0; i < nb; i++)
        w->fixed[lb[i]] = true;
    for (int i = 0; i < nh; i++)
        w->fixed[lh[i]] = true;
    cg_mesh_project(&w->all, field, f, w->fixed, 8);
    cg_mesh_adjacency(&w->all, &w->adj);
    cg_mesh_relax(&w->all, &w->adj, field, f, w->fixed, CG_RELAX_ITERS, 0.5f);
    w->seam = lb;
    w->nseam = nb;
    free(lh);
    cg_mesh_free(&body);
    cg_mesh_free(&head);
    w->in_head = xcalloc((size_t)w->all.nv, sizeof *w->in_head);
    for (int t = w->body_nt; t < w->all.nt; t++)
        for (int k = 0; k < 3; k++)
            w->in_head[w->all.t[t][k]] = true;
    if (prm->verbose)
        log_info("chargen: surface %d vertices, %d triangles (body %d), seam %d vertices", w->all.nv, w->all.nt,
                 w->body_nt, nb);
    return true;
}

static void build_attributes(work_t *w, bool tiny)
{
    cg_figure_t *f = &w->fig;
    int nv = w->all.nv;
    w->n = xcalloc((size_t)nv, sizeof *w->n);
    w->mat = xcalloc((size_t)nv, sizeof *w->mat);
    mat_ctx_t mc = {.f = f, .s = &w->skel, .neck_x = 0.0f, .neck_z = -3.0f};
    const char *hands[2] = {"lHand", "rHand"}, *arms[2] = {"lForeArm", "rForeArm"};
    for (int sd = 0; sd < 2; sd++) {
        int h = skel_find(&w->skel, hands[sd]), a = skel_find(&w->skel, arms[sd]);
        for (int k = 0; k < 3; k++) {
            mc.hand_pos[sd][k] = f->joint_pos[h][k];
            mc.hand_dir[sd][k] = f->joint_pos[h][k] - f->joint_pos[a][k];
        }
        norm3(mc.hand_dir[sd]);
    }
    snap_boundaries(&w->all, &w->adj, w->fixed, w->head_v0, &mc);
    for (int v = 0; v < nv; v++) {
        cg_figure_grad(f, w->all.p[v], w->n[v]);
        norm3(w->n[v]);
    }
    for (int v = 0; v < nv; v++) {
        /* The seam ring takes the body's material, so both meshes agree. */
        bool head_only = v >= w->head_v0;
        w->mat[v] = head_only ? head_material(&mc, w->all.p[v]) : body_material(&mc, w->all.p[v]);
    }
    build_eyes(&f->face, tiny, &w->eyes, &w->eye_mat);
    w->eye_n = xcalloc((size_t)w->eyes.nv, sizeof *w->eye_n);
    for (int v = 0; v < w->eyes.nv; v++) {
        const float *E = f->face.eye_c[w->eyes.p[v][0] > 0.0f ? 0 : 1];
        for (int k = 0; k < 3; k++)
            w->eye_n[v][k] = w->eyes.p[v][k] - E[k];
        norm3(w->eye_n[v]);
    }
}

/* AO cost grows with density: keep the triangles per grid cell constant
 * and spend fewer rays per vertex on dense benchmark meshes. */
static float ao_cell(const cg_params_t *prm)
{
    return CG_AO_CELL_CM / sqrtf(prm->density > 1.0f ? prm->density : 1.0f);
}

static int ao_rays(const cg_params_t *prm)
{
    if (prm->tiny)
        return 8;
    int r = (int)((float)CG_AO_RAYS / (prm->density > 1.0f ? prm->density : 1.0f));
    return r < 12 ? 12 : r;
}

/* Scene of body+head (positions POS) and eyes, for AO. */
static void ao_scene(const work_t *w, const float (*pos)[3], float cell_cm, cg_ao_scene_t *sc)
{
    int nv = w->all.nv + w->eyes.nv, nt = w->all.nt + w->eyes.nt;
    float(*p)[3] = xcalloc((size_t)nv, sizeof *p);
    int(*t)[3] = xcalloc((size_t)nt, sizeof *t);
    memcpy(p, pos, (size_t)w->all.nv * sizeof *p);
    memcpy(p + w->all.nv, w->eyes.p, (size_t)w->eyes.nv * sizeof *p);
    memcpy(t, w->all.t, (size_t)w->all.nt * sizeof *t);
    for (int i = 0; i < w->eyes.nt; i++)
        for (int k = 0; k < 3; k++)
            t[w->all.nt + i][k] = w->eyes.t[i][k] + w->all.nv;
    cg_ao_scene_build(sc, nv, (const float(*)[3])p, nt, (const int(*)[3])t, cell_cm);
    free(p);
    free(t);
}

static void build_ao(work_t *w, const cg_params_t *prm, int rays)
{
    cg_ao_scene_t sc;
    ao_scene(w, (const float(*)[3])w->all.p, ao_cell(prm), &sc);
    w->ao = xcalloc((size_t)w->all.nv, sizeof *w->ao);
    w->eye_ao = xcalloc((size_t)w->eyes.nv, sizeof *w->eye_ao);
    for (int v = 0; v < w->all.nv; v++)
        w->ao[v] = cg_ao_vertex(&sc, w->all.p[v], w->n[v], rays, CG_AO_DIST_CM, (unsigned)v);
    for (int v = 0; v < w->eyes.nv; v++)
        w->eye_ao[v] = cg_ao_vertex(&sc, w->eyes.p[v], w->eye_n[v], rays, CG_AO_DIST_CM, (unsigned)(v + w->all.nv));
    cg_ao_scene_free(&sc);
}

/* ---------------------------------------------------------------- output */

typedef struct split_t {
    int *body_of; /* combined vertex -> body mesh vertex or -1 */
    int *head_of; /* combined vertex -> head mesh vertex or -1 */
    int body_nv, head_nv;
} split_t;

static void fill_vertex(const work_t *w, int v, chr_vertex_t *o)
{
    memcpy(o->pos, w->all.p[v], sizeof o->pos);
    memcpy(o->normal, w->n[v], sizeof o->normal);
    tangent_from_normal(w->n[v], o->tangent);
    o->uv[0] = 0.5f + w->all.p[v][0] / 190.0f;
    o->uv[1] = (w->all.p[v][1] - w->fig.floor_y) / 190.0f;
    for (int k = 0; k < CHR_MAX_INFLUENCES; k++) {
        o->joints[k] = (uint16_t)w->skin.joint[v][k];
        o->weights[k] = w->skin.weight[v][k];
    }
    o->ao = clampf(w->ao[v], 0.0f, 1.0f);
    o->material = (uint32_t)w->mat[v];
}

static void make_mesh(chr_mesh_t *m, const char *name, uint32_t flags, int nv, int nt)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->flags = flags;
    m->vertex_count = (uint32_t)nv;
    m->index_count = (uint32_t)nt * 3;
    m->vertices = xcalloc((size_t)nv, sizeof *m->vertices);
    m->indices = xcalloc((size_t)nt * 3, sizeof *m->indices);
}

static void output_meshes(const work_t *w, split_t *sp, chr_character_t *out)
{
    int nv = w->all.nv;
    sp->body_of = xcalloc((size_t)nv, sizeof *sp->body_of);
    sp->head_of = xcalloc((size_t)nv, sizeof *sp->head_of);
    for (int v = 0; v < nv; v++)
        sp->body_of[v] = sp->head_of[v] = -1;
    sp->body_nv = sp->head_nv = 0;
    for (int t = 0; t < w->all.nt; t++)
        for (int k = 0; k < 3; k++) {
            int v = w->all.t[t][k];
            int *map = t < w->body_nt ? sp->body_of : sp->head_of;
            int *cnt = t < w->body_nt ? &sp->body_nv : &sp->head_nv;
            if (map[v] < 0)
                map[v] = (*cnt)++;
        }
    /* All three are solids, drawn one-sided (their back faces culled). */
    make_mesh(&out->meshes[0], "body", CHR_MESH_SINGLE_SIDED, sp->body_nv, w->body_nt);
    make_mesh(&out->meshes[1], "head", CHR_MESH_MORPHED | CHR_MESH_SINGLE_SIDED, sp->head_nv, w->all.nt - w->body_nt);
    make_mesh(&out->meshes[2], "eyes", CHR_MESH_RIGID | CHR_MESH_SINGLE_SIDED, w->eyes.nv, w->eyes.nt);
    out->mesh_count = 3;
    for (int v = 0; v < nv; v++) {
        if (sp->body_of[v] >= 0)
            fill_vertex(w, v, &out->meshes[0].vertices[sp->body_of[v]]);
        if (sp->head_of[v] >= 0)
            fill_vertex(w, v, &out->meshes[1].vertices[sp->head_of[v]]);
    }
    for (int t = 0; t < w->all.nt; t++) {
        bool body = t < w->body_nt;
        chr_mesh_t *m = &out->meshes[body ? 0 : 1];
        int *map = body ? sp->body_of : sp->head_of;
        int ti = body ? t : t - w->body_nt;
        for (int k = 0; k < 3; k++)
            m->indices[ti * 3 + k] = (uint32_t)map[w->all.t[t][k]];
    }
    int head = skel_find(&w->skel, "head");
    chr_mesh_t *em = &out->meshes[2];
    for (int v = 0; v < w->eyes.nv; v++) {
        chr_vertex_t *o = &em->vertices[v];
        memcpy(o->pos, w->eyes.p[v], sizeof o->pos);
        memcpy(o->normal, w->eye_n[v], sizeof o->normal);
        tangent_from_normal(w->eye_n[v], o->tangent);
        o->uv[0] = 0.5f + w->eyes.p[v][0] / 190.0f;
        o->uv[1] = (w->eyes.p[v][1] - w->fig.floor_y) / 190.0f;
        for (int k = 0; k < CHR_MAX_INFLUENCES; k++)
            o->joints[k] = (uint16_t)head;
        o->weights[0] = 1.0f;
        o->ao = clampf(w->eye_ao[v], 0.0f, 1.0f);
        o->material = (uint32_t)w->eye_mat[v];
    }
    for (int t = 0; t < w->eyes.nt; t++)
        for (int k = 0; k < 3; k++)
            em->indices[t * 3 + k] = (uint32_t)w->eyes.t[t][k];
}

/* Sparse deltas for the vertices of MESH (map: combined -> mesh index). */
static uint32_t collect_deltas(const work_t *w, const int *map, const float (*dp)[3], const float (*dn)[3],
                               const float *dao, chr_delta_t **out)
{
    int nv = w->all.nv;
    /* Mesh-local order must be increasing: build the inverse map. */
    int mesh_nv = 0;
    for (int v = 0; v < nv; v++)
        if (map[v] >= 0 && map[v] + 1 > mesh_nv)
            mesh_nv = map[v] + 1;
    int *inv = xcalloc((size_t)mesh_nv, sizeof *inv);
    for (int v = 0; v < nv; v++)
        if (map[v] >= 0)
            inv[map[v]] = v;
    chr_delta_t *d = xcalloc((size_t)mesh_nv, sizeof *d);
    uint32_t n = 0;
    for (int i = 0; i < mesh_nv; i++) {
        int v = inv[i];
        float lp = fabsf(dp[v][0]) + fabsf(dp[v][1]) + fabsf(dp[v][2]);
        float ln = dn ? fabsf(dn[v][0]) + fabsf(dn[v][1]) + fabsf(dn[v][2]) : 0.0f;
        float la = dao ? fabsf(dao[v]) : 0.0f;
        if (lp < CG_EPS_POS_CM && ln < CG_EPS_NRM && la < CG_EPS_AO)
            continue;
        chr_delta_t *o = &d[n++];
        o->vertex = (uint32_t)i;
        memcpy(o->dpos, dp[v], sizeof o->dpos);
        if (dn) {
            float n1[3] = {w->n[v][0] + dn[v][0], w->n[v][1] + dn[v][1], w->n[v][2] + dn[v][2]};
            norm3(n1);
            float t0[4], t1[4];
            tangent_from_normal(w->n[v], t0);
            tangent_from_normal(n1, t1);
            for (int k = 0; k < 3; k++) {
                o->dnormal[k] = n1[k] - w->n[v][k];
                o->dtangent[k] = t1[k] - t0[k];
            }
        }
        o->dao = dao ? dao[v] : 0.0f;
    }
    free(inv);
    *out = d;
    return n;
}

static void build_shapes(work_t *w, const cg_params_t *prm, const split_t *sp, chr_character_t *out)
{
    int nv = w->all.nv;
    int total = cg_face_builtin_count();
    if (prm->tiny)
        total = 3;
    if (prm->shapes > total)
        total = prm->shapes;
    if (total > CHR_MAX_SHAPES)
        total = CHR_MAX_SHAPES;
    bool *movable = xcalloc((size_t)nv, sizeof *movable);
    for (int v = 0; v < nv; v++)
        movable[v] = w->in_head[v] && !w->fixed[v] && w->all.p[v][1] > w->fig.face.neck_cut_y + 2.0f * CG_SEAM_GAP_CM;
    float(*dp)[3] = xcalloc((size_t)nv, sizeof *dp);
    float(*n0)[3] = xcalloc((size_t)nv, sizeof *n0);
    float(*n1)[3] = xcalloc((size_t)nv, sizeof *n1);
    float(*dn)[3] = xcalloc((size_t)nv, sizeof *dn);
    float *dao = xcalloc((size_t)nv, sizeof *dao);
    bool *near = xcalloc((size_t)nv, sizeof *near);
    cg_mesh_t moved = {0};
    moved.nv = moved.cap_v = nv;
    moved.p = xcalloc((size_t)nv, sizeof *moved.p);
    moved.nt = moved.cap_t = w->all.nt;
    moved.t = w->all.t;
    cg_mesh_vertex_normals(&w->all, n0);
    out->shapes = xcalloc((size_t)total, sizeof *out->shapes);
    out->shape_count = (uint32_t)total;
    int rays = ao_rays(prm);
    for (int si = 0; si < total; si++) {
        chr_shape_t *sh = &out->shapes[si];
        int cat = 0;
        cg_face_shape(&w->fig.face, si, nv, (const float(*)[3])w->all.p, (const float(*)[3])w->n, movable, dp, sh->name,
                      &cat);
        sh->category = (uint32_t)cat;
        sh->mesh = 1;
        for (int v = 0; v < nv; v++)
            for (int k = 0; k < 3; k++)
                moved.p[v][k] = w->all.p[v][k] + dp[v][k];
        /* Normal deltas from the moved mesh, against the rest mesh's own
         * normals, so only real changes show up. */
        cg_mesh_vertex_normals(&moved, n1);
        memset(dn, 0, (size_t)nv * sizeof *dn);
        memset(dao, 0, (size_t)nv * sizeof *dao);
        float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        bool any = false;
        for (int v = 0; v < nv; v++) {
            if (fabsf(dp[v][0]) + fabsf(dp[v][1]) + fabsf(dp[v][2]) < CG_EPS_POS_CM)
                continue;
            any = true;
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], w->all.p[v][k]);
                hi[k] = fmaxf(hi[k], w->all.p[v][k]);
            }
        }
        if (!any)
            continue;
        for (int v = 0; v < nv; v++) {
            near[v] = false;
            if (!movable[v])
                continue;
            bool inside = true;
            for (int k = 0; k < 3; k++)
                inside = inside && w->all.p[v][k] > lo[k] - CG_AO_SHAPE_REACH_CM &&
                         w->all.p[v][k] < hi[k] + CG_AO_SHAPE_REACH_CM;
            near[v] = inside;
            if (inside)
                for (int k = 0; k < 3; k++)
                    dn[v][k] = n1[v][k] - n0[v][k];
        }
        /* Self-occlusion of the moved face, with the same rays as at rest.
         * Benchmark-only extra shapes keep dao = 0: recomputing AO for
         * hundreds of shapes on a dense mesh would take many minutes. */
        cg_ao_scene_t sc;
        bool with_ao = cat != CHR_SHAPE_EXTRA;
        if (with_ao)
            ao_scene(w, (const float(*)[3])moved.p, ao_cell(prm), &sc);
        for (int v = 0; v < nv && with_ao; v++) {
            if (!near[v])
                continue;
            float nn[3] = {w->n[v][0] + dn[v][0], w->n[v][1] + dn[v][1], w->n[v][2] + dn[v][2]};
            norm3(nn);
            float a = cg_ao_vertex(&sc, moved.p[v], nn, rays, CG_AO_DIST_CM, (unsigned)v);
            float d = clampf(a, 0.0f, 1.0f) - clampf(w->ao[v], 0.0f, 1.0f);
            dao[v] = fabsf(d) < CG_EPS_AO ? 0.0f : d;
        }
        if (with_ao)
            cg_ao_scene_free(&sc);
        sh->delta_count = collect_deltas(w, sp->head_of, (const float(*)[3])dp, (const float(*)[3])dn, dao,
                                         &sh->deltas);
        if (prm->verbose)
            log_info("chargen: shape %3d %-14s %5u deltas", si, sh->name, sh->delta_count);
    }
    free(moved.p);
    free(movable);
    free(dp);
    free(n0);
    free(n1);
    free(dn);
    free(dao);
    free(near);
}

/* False (logged) when the skeleton cannot be posed. */
static bool build_correctives(work_t *w, const cg_params_t *prm, const split_t *sp, chr_character_t *out)
{
    static const struct {
        const char *name, *joint;
        float axis[3];
        float zero_deg, full_deg;
    } defs[] = {
        {"elbow_L", "lForeArm", {-0.110f, -0.861f, 0.496f}, 15.0f, 110.0f},
        {"elbow_R", "rForeArm", {-0.110f, 0.861f, -0.496f}, 15.0f, 110.0f},
        {"knee_L", "lShin", {1.0f, 0.0f, 0.0f}, 15.0f, 110.0f},
        {"knee_R", "rShin", {1.0f, 0.0f, 0.0f}, 15.0f, 110.0f},
    };
    int nd = (int)(sizeof defs / sizeof defs[0]);
    out->correctives = xcalloc((size_t)nd, sizeof *out->correctives);
    float(*d)[3] = xcalloc((size_t)w->all.nv, sizeof *d);
    int n = 0;
    for (int i = 0; i < nd; i++) {
        int j = skel_find(&w->skel, defs[i].joint);
        if (j < 0)
            continue;
        float ax[3] = {defs[i].axis[0], defs[i].axis[1], defs[i].axis[2]};
        norm3(ax);
        if (!cg_rig_corrective(&w->skel, &w->fig, &w->all, &w->adj, &w->skin, j, ax, defs[i].full_deg, d)) {
            /* The ones made so far, for chr_free(). */
            out->corrective_count = (uint32_t)n;
            free(d);
            return false;
        }
        chr_corrective_t *c = &out->correctives[n++];
        snprintf(c->name, sizeof c->name, "%s", defs[i].name);
        c->mesh = 0;
        c->joint = (uint32_t)j;
        memcpy(c->axis, ax, sizeof ax);
        c->angle_zero_deg = defs[i].zero_deg;
        c->angle_full_deg = defs[i].full_deg;
        c->delta_count = collect_deltas(w, sp->body_of, (const float(*)[3])d, NULL, NULL, &c->deltas);
        if (prm->verbose)
            log_info("chargen: corrective %s: %u deltas", c->name, c->delta_count);
    }
    out->corrective_count = (uint32_t)n;
    free(d);
    return true;
}

static void output_skeleton(const work_t *w, chr_character_t *out)
{
    out->skel = w->skel;
    float rest[SKEL_MAX_JOINTS][3];
    skel_rest_positions(&w->skel, rest);
    for (int j = 0; j < w->skel.joint_count; j++) {
        float *m = out->bind_inverse[j];
        memset(m, 0, 16 * sizeof *m);
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[12] = -rest[j][0];
        m[13] = -rest[j][1];
        m[14] = -rest[j][2];
    }
    out->material_count = MAT_COUNT;
    for (int i = 0; i < MAT_COUNT; i++) {
        chr_material_t *m = &out->materials[i];
        snprintf(m->name, sizeof m->name, "%s", MATERIALS[i].name);
        memcpy(m->color, MATERIALS[i].color, sizeof m->color);
        m->roughness = MATERIALS[i].roughness;
        m->subsurface = MATERIALS[i].subsurface;
    }
}

static void work_free(work_t *w)
{
    cg_mesh_free(&w->all);
    cg_mesh_free(&w->eyes);
    cg_adj_free(&w->adj);
    free(w->seam);
    free(w->fixed);
    free(w->n);
    free(w->mat);
    free(w->ao);
    free(w->skin.joint);
    free(w->skin.weight);
    free(w->in_head);
    free(w->eye_n);
    free(w->eye_mat);
    free(w->eye_ao);
}

bool cg_build_character(const skel_t *s, const cg_params_t *prm, chr_character_t *out)
{
    memset(out, 0, sizeof *out);
    work_t *w = xcalloc(1, sizeof *w);
    w->skel = *s;
    bool ok = cg_figure_build(&w->fig, &w->skel) && build_surface(w, prm);
    if (ok) {
        build_attributes(w, prm->tiny);
        w->skin.joint = xcalloc((size_t)w->all.nv, sizeof *w->skin.joint);
        w->skin.weight = xcalloc((size_t)w->all.nv, sizeof *w->skin.weight);
        cg_rig_weights(&w->fig, &w->all, &w->adj, CG_WEIGHT_SMOOTH_ITERS, &w->skin);
        if (prm->extra_bones > 0) {
            int added = cg_rig_extend(&w->skel, &w->fig, prm->extra_bones, &w->all, &w->skin);
            if (added < prm->extra_bones)
                log_warn("chargen: only %d of %d extra joints fit (max %d joints)", added, prm->extra_bones,
                         SKEL_MAX_JOINTS);
        }
        build_ao(w, prm, ao_rays(prm));
        split_t sp;
        output_skeleton(w, out);
        output_meshes(w, &sp, out);
        build_shapes(w, prm, &sp, out);
        ok = build_correctives(w, prm, &sp, out);
        free(sp.body_of);
        free(sp.head_of);
        ok = ok && chr_validate(out, "(generated character)");
    }
    work_free(w);
    free(w);
    if (!ok)
        chr_free(out);
    return ok;
}
