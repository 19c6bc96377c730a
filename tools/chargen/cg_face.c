#include "cg_face.h"

#include "asset/facemap.h"
#include "asset/character.h"
#include "core/mathx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Jaw opening of jawOpen at weight 1 (degrees). */
#define CG_JAW_OPEN_DEG 14.0f
#define CG_DEG (3.14159265f / 180.0f)

/* The modifiers and the emotions mixed from them are the runtime's face
 * vocabulary (anim/facemap.h): the same tables name the shapes here and
 * resolve them on imported ARKit faces. */
typedef facemap_modifier_t modifier_id_t;
#define EMOTION_COUNT facemap_emotion_count()

int cg_face_builtin_count(void) { return FACEMAP_MODIFIER_COUNT + EMOTION_COUNT; }

/* ---------------------------------------------------------------- helpers */

static float smoothstep(float a, float b, float x)
{
    float t = clampf((x - a) / (b - a), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

static float gauss(const float p[3], const float c[3], float r)
{
    float d0 = p[0] - c[0], d1 = p[1] - c[1], d2 = p[2] - c[2];
    return expf(-(d0 * d0 + d1 * d1 + d2 * d2) / (r * r));
}

/* Gain on the translational modifiers: sized so an expression reads at a
 * glance on a ~22 cm head. */
#define CG_FACE_GAIN 1.8f

static void addv(float o[3], float w, float x, float y, float z)
{
    o[0] += CG_FACE_GAIN * w * x;
    o[1] += CG_FACE_GAIN * w * y;
    o[2] += CG_FACE_GAIN * w * z;
}

/* Rotation of P about the X-parallel axis through C by ANG (rad); adds
 * W * (rotated - P) to O. Positive angles move points in front down. */
static void add_rot_x(float o[3], float w, const float p[3], const float c[3], float ang)
{
    float y = p[1] - c[1], z = p[2] - c[2];
    float cs = cosf(ang), sn = sinf(ang);
    float y2 = cs * y - sn * z, z2 = sn * y + cs * z;
    o[1] += w * (y2 - y);
    o[2] += w * (z2 - z);
}

/* 1 above the mouth line, 0 below; the transition is sharp at the lips and
 * widens towards the cheeks. */
static float upper_of_mouth(const cg_face_marks_t *fm, const float p[3])
{
    float ax = fabsf(p[0]), hw = fm->mouth_half_w;
    /* Sharp in the middle of the lips, soft at and beyond the corners so the
     * skin there stretches instead of tearing. */
    float sw = 0.12f + 0.9f * smoothstep(0.5f * hw, 1.4f * hw, ax) + 0.4f * fmaxf(0.0f, ax - 1.4f * hw);
    return smoothstep(-sw, sw, p[1] - fm->mouth_c[1]);
}

/* Region of the lips and mouth (1 at the lips, falling off). */
static float lip_region(const cg_face_marks_t *fm, const float p[3])
{
    float x = p[0] / (fm->mouth_half_w + 0.9f), y = (p[1] - fm->mouth_c[1]) / 1.5f;
    return expf(-(x * x + y * y) * 1.2f) * smoothstep(3.5f, 6.0f, p[2]);
}

/* Weight of the jaw's rigid motion. */
static float jaw_weight(const cg_face_marks_t *fm, const float p[3])
{
    float lower = 1.0f - upper_of_mouth(fm, p);
    /* Above the jaw line behind the mouth corners, nothing moves. */
    float below_pivot = smoothstep(fm->jaw_pivot[1] - 0.5f, fm->jaw_pivot[1] - 3.5f, p[1]);
    float front = smoothstep(-3.0f, 1.5f, p[2]);
    /* The neck under the chin stretches: fade towards the mesh seam. */
    float neck = smoothstep(fm->neck_cut_y + 1.5f, fm->neck_cut_y + 4.5f, p[1]);
    return lower * below_pivot * front * neck;
}

/* Eyelid motion for eye E (0 left, 1 right): rotation of the upper lid
 * (upper_ang, + closes) and lower lid (lower_ang, - raises) over the eyeball. */
static void add_lids(const cg_face_marks_t *fm, int e, const float p[3], float upper_frac, float upper_ang,
                     float lower_ang, float o[3])
{
    const float *E = fm->eye_c[e];
    float dx = p[0] - E[0], dy = p[1] - E[1] - fm->eye_open_dy, dz = p[2] - E[2];
    float r = sqrtf(dx * dx + (p[1] - E[1]) * (p[1] - E[1]) + dz * dz);
    if (dz < -0.4f || r > fm->eye_r + 2.6f)
        return;
    float a = fm->eye_open_a, b = fm->eye_open_b;
    float ye = b * sqrtf(fmaxf(0.0f, 1.0f - (dx / a) * (dx / a)));
    float yc = -0.3f * ye;
    float lateral = 1.0f - smoothstep(0.9f * a, 1.6f * a, fabsf(dx));
    float radial = 1.0f - smoothstep(fm->eye_r + 1.0f, fm->eye_r + 2.5f, r);
    float rl = fm->eye_r + 0.2f;
    if (dy > yc) {
        float g = 1.0f - smoothstep(0.15f, 1.6f, dy - ye);
        float phe = asinf(clampf((ye + fm->eye_open_dy) / rl, -1.0f, 1.0f));
        float phc = asinf(clampf((yc + fm->eye_open_dy) / rl, -1.0f, 1.0f));
        /* Lids of the corners barely move; the middle travels furthest. */
        float ang = upper_frac * (phe - phc) + upper_ang;
        add_rot_x(o, g * lateral * radial, p, E, ang);
    } else {
        float g = 1.0f - smoothstep(0.15f, 1.3f, -ye - dy);
        add_rot_x(o, g * lateral * radial, p, E, lower_ang);
    }
}

static void modifier(const cg_face_marks_t *fm, modifier_id_t id, const float p[3], const float n[3], float o[3])
{
    int e = (id == FACEMAP_BROW_UP_R || id == FACEMAP_BROW_DOWN_R || id == FACEMAP_BLINK_R ||
             id == FACEMAP_EYE_WIDE_R || id == FACEMAP_SQUINT_R || id == FACEMAP_SMILE_R || id == FACEMAP_FROWN_R ||
             id == FACEMAP_SMIRK_R || id == FACEMAP_CHEEK_PUFF_R || id == FACEMAP_NOSE_SNEER_R)
                ? 1
                : 0;
    float s = e ? -1.0f : 1.0f;
    const float *E = fm->eye_c[e];
    const float *B = fm->brow_c[e];
    float side = smoothstep(-0.6f, 0.6f, s * p[0]);
    float corner[3] = {s * fm->mouth_half_w, fm->mouth_c[1], fm->mouth_c[2] - 0.7f};
    float cheek_hi[3] = {fm->cheek_c[e][0], fm->cheek_c[e][1] + 1.8f, fm->cheek_c[e][2] + 0.4f};
    /* Brows move above the upper lid only. */
    float above_eye = smoothstep(E[1] + 0.5f, E[1] + 1.4f, p[1]);
    float lips = lip_region(fm, p);
    float up = upper_of_mouth(fm, p);
    switch (id) {
    case FACEMAP_BROW_UP_L:
    case FACEMAP_BROW_UP_R: addv(o, gauss(p, B, 2.6f) * above_eye * side, 0.0f, 0.6f, 0.05f); break;
    case FACEMAP_BROW_DOWN_L:
    case FACEMAP_BROW_DOWN_R: addv(o, gauss(p, B, 2.4f) * above_eye * side, -s * 0.3f, -0.5f, 0.15f); break;
    case FACEMAP_BROW_INNER_UP: {
        float c0[3] = {1.5f, B[1] - 0.1f, B[2] + 0.4f}, c1[3] = {-1.5f, B[1] - 0.1f, B[2] + 0.4f};
        float w = fmaxf(gauss(p, c0, 1.7f), gauss(p, c1, 1.7f)) * above_eye;
        addv(o, w, 0.0f, 0.55f, 0.0f);
        break;
    }
    case FACEMAP_BLINK_L:
    case FACEMAP_BLINK_R: add_lids(fm, e, p, 1.0f, 0.0f, -0.12f, o); break;
    case FACEMAP_EYE_WIDE_L:
    case FACEMAP_EYE_WIDE_R:
        add_lids(fm, e, p, 0.0f, -0.22f, 0.06f, o);
        addv(o, gauss(p, B, 2.4f) * above_eye * side, 0.0f, 0.2f, 0.0f);
        break;
    case FACEMAP_SQUINT_L:
    case FACEMAP_SQUINT_R:
        add_lids(fm, e, p, 0.15f, 0.0f, -0.3f, o);
        addv(o, gauss(p, cheek_hi, 1.8f) * side, 0.0f, 0.25f, 0.1f);
        break;
    case FACEMAP_SMILE_L:
    case FACEMAP_SMILE_R:
        addv(o, gauss(p, corner, 1.7f), s * 0.35f, 0.55f, -0.3f);
        addv(o, gauss(p, cheek_hi, 2.3f) * side, 0.0f, 0.35f, 0.2f);
        break;
    case FACEMAP_FROWN_L:
    case FACEMAP_FROWN_R: addv(o, gauss(p, corner, 1.6f), s * 0.1f, -0.45f, -0.05f); break;
    case FACEMAP_SMIRK_L:
    case FACEMAP_SMIRK_R:
        addv(o, gauss(p, corner, 1.4f), s * 0.45f, 0.35f, -0.45f);
        addv(o, gauss(p, corner, 2.4f) * up * side, 0.0f, 0.1f, 0.0f);
        break;
    case FACEMAP_JAW_OPEN: add_rot_x(o, jaw_weight(fm, p), p, fm->jaw_pivot, CG_JAW_OPEN_DEG * CG_DEG); break;
    case FACEMAP_PUCKER: addv(o, lips, -0.4f * p[0] / fm->mouth_half_w, 0.0f, 0.65f); break;
    case FACEMAP_MOUTH_STRETCH: addv(o, lips, 0.35f * p[0] / fm->mouth_half_w, -0.05f, -0.15f); break;
    case FACEMAP_CHEEK_PUFF_L:
    case FACEMAP_CHEEK_PUFF_R: {
        float c[3] = {fm->cheek_c[e][0] + s * 0.3f, fm->cheek_c[e][1] - 0.3f, fm->cheek_c[e][2] - 0.6f};
        float w = gauss(p, c, 2.0f) * side * smoothstep(1.0f, 3.0f, p[2]);
        addv(o, w * 0.75f, n[0], n[1], n[2]);
        break;
    }
    case FACEMAP_NOSE_SNEER_L:
    case FACEMAP_NOSE_SNEER_R: {
        float c[3] = {s * 1.2f, fm->nose_tip[1] - 0.3f, fm->nose_tip[2] - 1.9f};
        addv(o, gauss(p, c, 1.2f) * side, s * 0.05f, 0.32f, 0.05f);
        break;
    }
    case FACEMAP_LIP_UPPER_UP: addv(o, lips * up, 0.0f, 0.32f, 0.12f); break;
    case FACEMAP_LIP_LOWER_DOWN: addv(o, lips * (1.0f - up), 0.0f, -0.35f, 0.12f); break;
    case FACEMAP_MOUTH_LEFT:
    case FACEMAP_MOUTH_RIGHT: {
        float w = lip_region(fm, p);
        addv(o, w, id == FACEMAP_MOUTH_LEFT ? 0.5f : -0.5f, 0.0f, 0.0f);
        break;
    }
    case FACEMAP_LIPS_PRESS:
        addv(o, lips * up, 0.0f, -0.1f, -0.12f);
        addv(o, lips * (1.0f - up), 0.0f, 0.14f, -0.08f);
        break;
    case FACEMAP_MOUTH_FUNNEL:
        addv(o, lips * up, 0.0f, 0.16f, 0.4f);
        addv(o, lips * (1.0f - up), 0.0f, -0.22f, 0.4f);
        break;
    case FACEMAP_MODIFIER_COUNT: break;
    }
}

/* Deterministic 32-bit hash for the extra shapes. */
static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static float unit(uint32_t h) { return (float)(h & 0xffffff) / 16777215.0f; }

void cg_face_shape(const cg_face_marks_t *fm, int index, int n, const float (*p)[3], const float (*nrm)[3],
                   const bool *movable, float (*out)[3], char name[32], int *category)
{
    memset(out, 0, (size_t)n * sizeof *out);
    if (index < FACEMAP_MODIFIER_COUNT) {
        snprintf(name, 32, "%s", facemap_modifier_name((facemap_modifier_t)index));
        *category = CHR_SHAPE_MODIFIER;
        for (int v = 0; v < n; v++)
            if (movable[v])
                modifier(fm, (modifier_id_t)index, p[v], nrm[v], out[v]);
        return;
    }
    if (index < FACEMAP_MODIFIER_COUNT + EMOTION_COUNT) {
        const facemap_emotion_t *em = facemap_emotion_get(index - FACEMAP_MODIFIER_COUNT);
        snprintf(name, 32, "%s", em->name);
        *category = CHR_SHAPE_EMOTION;
        for (int v = 0; v < n; v++) {
            if (!movable[v])
                continue;
            for (int k = 0; k < FACEMAP_MIX_MAX && em->mix[k].weight > 0.0f; k++) {
                float d[3] = {0, 0, 0};
                modifier(fm, em->mix[k].id, p[v], nrm[v], d);
                for (int c = 0; c < 3; c++)
                    out[v][c] += em->mix[k].weight * d[c];
            }
        }
        return;
    }
    /* Extra shapes: a localised push along the normal (or sideways) at a
     * hashed point of the face, each with its own radius and amplitude. */
    int x = index - FACEMAP_MODIFIER_COUNT - EMOTION_COUNT;
    snprintf(name, 32, "extra%04d", x);
    *category = CHR_SHAPE_EXTRA;
    uint32_t h = hash32((uint32_t)x * 2654435761u + 12345u);
    float c[3] = {fm->head_c[0] + (unit(h) - 0.5f) * 10.0f, fm->head_c[1] - 9.0f + unit(hash32(h + 1)) * 12.0f,
                  fm->head_c[2] + 9.0f};
    float r = 0.8f + 1.8f * unit(hash32(h + 2));
    float amp = (unit(hash32(h + 3)) - 0.5f) * 0.8f;
    float sideways = (unit(hash32(h + 4)) - 0.5f) * 0.5f;
    for (int v = 0; v < n; v++) {
        if (!movable[v])
            continue;
        /* Radius measured in the face plane (x, y) only. */
        float d0 = p[v][0] - c[0], d1 = p[v][1] - c[1];
        float w = expf(-(d0 * d0 + d1 * d1) / (r * r)) * smoothstep(3.0f, 6.0f, p[v][2]);
        if (w < 1e-3f)
            continue;
        for (int k = 0; k < 3; k++)
            out[v][k] = w * amp * nrm[v][k];
        out[v][0] += w * sideways;
    }
}
