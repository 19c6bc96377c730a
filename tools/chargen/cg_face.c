#include "cg_face.h"

#include "asset/character.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Jaw opening of jawOpen at weight 1 (degrees). */
#define CG_JAW_OPEN_DEG 14.0f
#define CG_DEG (3.14159265f / 180.0f)

typedef enum {
    M_BROW_UP_L, M_BROW_UP_R, M_BROW_DOWN_L, M_BROW_DOWN_R, M_BROW_INNER_UP,
    M_BLINK_L, M_BLINK_R, M_EYE_WIDE_L, M_EYE_WIDE_R, M_SQUINT_L, M_SQUINT_R,
    M_SMILE_L, M_SMILE_R, M_FROWN_L, M_FROWN_R, M_SMIRK_L, M_SMIRK_R,
    M_JAW_OPEN, M_PUCKER, M_MOUTH_STRETCH, M_CHEEK_PUFF_L, M_CHEEK_PUFF_R,
    M_NOSE_SNEER_L, M_NOSE_SNEER_R, M_LIP_UPPER_UP, M_LIP_LOWER_DOWN,
    M_MOUTH_LEFT, M_MOUTH_RIGHT, M_LIPS_PRESS, M_MOUTH_FUNNEL,
    M_COUNT
} modifier_id;

static const char *const MOD_NAME[M_COUNT] = {
    "browUp_L", "browUp_R", "browDown_L", "browDown_R", "browInnerUp",
    "blink_L", "blink_R", "eyeWide_L", "eyeWide_R", "squint_L", "squint_R",
    "smile_L", "smile_R", "frown_L", "frown_R", "smirk_L", "smirk_R",
    "jawOpen", "pucker", "mouthStretch", "cheekPuff_L", "cheekPuff_R",
    "noseSneer_L", "noseSneer_R", "lipUpperUp", "lipLowerDown",
    "mouthLeft", "mouthRight", "lipsPress", "mouthFunnel",
};

/* Emotions: weighted mixes of modifiers ("_B" entries mean both sides). */
typedef struct mix_t {
    modifier_id id;
    float w;
} mix_t;

typedef struct emotion_t {
    const char *name;
    mix_t mix[10];
} emotion_t;

#define BOTH(a, w) {a##_L, w}, {a##_R, w}
static const emotion_t EMOTIONS[] = {
    {"happy", {BOTH(M_SMILE, 1.0f), BOTH(M_SQUINT, 0.3f), {M_BROW_INNER_UP, 0.15f}}},
    {"joyful", {BOTH(M_SMILE, 1.0f), {M_JAW_OPEN, 0.5f}, BOTH(M_SQUINT, 0.6f), {M_LIP_UPPER_UP, 0.3f}}},
    {"content", {BOTH(M_SMILE, 0.5f), BOTH(M_BLINK, 0.25f)}},
    {"sad", {BOTH(M_FROWN, 1.0f), {M_BROW_INNER_UP, 1.0f}, BOTH(M_BLINK, 0.2f), {M_LIPS_PRESS, 0.3f}}},
    {"grief", {BOTH(M_FROWN, 1.0f), {M_BROW_INNER_UP, 1.0f}, {M_JAW_OPEN, 0.25f}, BOTH(M_SQUINT, 0.5f), {M_MOUTH_STRETCH, 0.4f}}},
    {"angry", {BOTH(M_BROW_DOWN, 1.0f), BOTH(M_SQUINT, 0.5f), BOTH(M_NOSE_SNEER, 0.4f), {M_LIPS_PRESS, 0.6f}, BOTH(M_FROWN, 0.3f)}},
    {"furious", {BOTH(M_BROW_DOWN, 1.0f), BOTH(M_NOSE_SNEER, 0.8f), {M_LIP_UPPER_UP, 0.7f}, {M_JAW_OPEN, 0.35f}, {M_MOUTH_STRETCH, 0.6f}, BOTH(M_EYE_WIDE, 0.3f)}},
    {"surprised", {BOTH(M_BROW_UP, 1.0f), {M_BROW_INNER_UP, 0.5f}, BOTH(M_EYE_WIDE, 1.0f), {M_JAW_OPEN, 0.6f}, {M_MOUTH_FUNNEL, 0.3f}}},
    {"shocked", {BOTH(M_BROW_UP, 1.0f), BOTH(M_EYE_WIDE, 1.0f), {M_JAW_OPEN, 1.0f}, {M_MOUTH_STRETCH, 0.4f}}},
    {"thoughtful", {{M_BROW_DOWN_L, 0.5f}, {M_BROW_UP_R, 0.6f}, {M_MOUTH_LEFT, 0.6f}, {M_LIPS_PRESS, 0.5f}, BOTH(M_SQUINT, 0.25f), {M_SMIRK_L, 0.2f}}},
    {"disgusted", {BOTH(M_NOSE_SNEER, 1.0f), {M_LIP_UPPER_UP, 0.8f}, BOTH(M_BROW_DOWN, 0.6f), BOTH(M_SQUINT, 0.5f), BOTH(M_FROWN, 0.4f)}},
    {"afraid", {{M_BROW_INNER_UP, 1.0f}, BOTH(M_BROW_UP, 0.5f), BOTH(M_EYE_WIDE, 0.8f), {M_MOUTH_STRETCH, 0.7f}, {M_JAW_OPEN, 0.2f}}},
    {"terrified", {{M_BROW_INNER_UP, 1.0f}, BOTH(M_BROW_UP, 0.7f), BOTH(M_EYE_WIDE, 1.0f), {M_MOUTH_STRETCH, 1.0f}, {M_JAW_OPEN, 0.55f}}},
    {"contempt", {{M_SMIRK_R, 1.0f}, {M_SQUINT_R, 0.3f}, {M_BROW_UP_L, 0.2f}, {M_LIPS_PRESS, 0.3f}}},
    {"confused", {{M_BROW_DOWN_L, 0.7f}, {M_BROW_UP_R, 0.8f}, {M_MOUTH_RIGHT, 0.3f}, {M_FROWN_L, 0.3f}}},
    {"skeptical", {{M_BROW_UP_L, 1.0f}, {M_BROW_DOWN_R, 0.6f}, {M_SQUINT_R, 0.4f}, {M_SMIRK_L, 0.3f}}},
    {"sleepy", {BOTH(M_BLINK, 0.7f), {M_JAW_OPEN, 0.1f}, BOTH(M_BROW_UP, 0.2f)}},
    {"bored", {BOTH(M_BLINK, 0.45f), BOTH(M_FROWN, 0.3f), {M_MOUTH_LEFT, 0.25f}}},
    {"excited", {BOTH(M_SMILE, 1.0f), BOTH(M_EYE_WIDE, 0.6f), BOTH(M_BROW_UP, 0.7f), {M_JAW_OPEN, 0.4f}}},
    {"worried", {{M_BROW_INNER_UP, 1.0f}, BOTH(M_FROWN, 0.4f), {M_LIPS_PRESS, 0.5f}, {M_MOUTH_STRETCH, 0.25f}}},
    {"embarrassed", {BOTH(M_SMILE, 0.4f), BOTH(M_SQUINT, 0.5f), {M_BROW_INNER_UP, 0.5f}, {M_MOUTH_LEFT, 0.3f}, BOTH(M_BLINK, 0.3f)}},
    {"proud", {BOTH(M_SMIRK, 0.4f), BOTH(M_SMILE, 0.25f), BOTH(M_BLINK, 0.2f), {M_LIPS_PRESS, 0.3f}}},
    {"determined", {BOTH(M_BROW_DOWN, 0.6f), {M_LIPS_PRESS, 0.9f}, BOTH(M_SQUINT, 0.4f)}},
    {"pain", {BOTH(M_BROW_DOWN, 0.8f), {M_BROW_INNER_UP, 0.5f}, BOTH(M_SQUINT, 1.0f), {M_MOUTH_STRETCH, 0.7f}, {M_LIP_UPPER_UP, 0.4f}}},
    {"relieved", {BOTH(M_SMILE, 0.4f), {M_BROW_INNER_UP, 0.4f}, BOTH(M_BLINK, 0.4f), {M_MOUTH_FUNNEL, 0.2f}}},
    {"amused", {{M_SMIRK_L, 0.7f}, {M_SMILE_R, 0.4f}, BOTH(M_SQUINT, 0.3f), {M_BROW_UP_L, 0.3f}}},
    {"suspicious", {BOTH(M_SQUINT, 0.9f), BOTH(M_BROW_DOWN, 0.5f), {M_MOUTH_LEFT, 0.3f}, {M_LIPS_PRESS, 0.3f}}},
    {"sulky", {{M_PUCKER, 0.5f}, BOTH(M_FROWN, 0.6f), BOTH(M_BROW_DOWN, 0.3f), {M_LIP_LOWER_DOWN, 0.2f}}},
    {"awe", {BOTH(M_BROW_UP, 0.8f), BOTH(M_EYE_WIDE, 0.5f), {M_JAW_OPEN, 0.35f}, {M_MOUTH_FUNNEL, 0.2f}}},
    {"yawn", {{M_JAW_OPEN, 1.0f}, BOTH(M_BLINK, 0.8f), BOTH(M_BROW_UP, 0.5f), {M_MOUTH_FUNNEL, 0.3f}}},
    {"kiss", {{M_PUCKER, 1.0f}, BOTH(M_BLINK, 0.5f)}},
};
#undef BOTH
enum { EMOTION_COUNT = (int)(sizeof EMOTIONS / sizeof EMOTIONS[0]) };

int cg_face_builtin_count(void) { return M_COUNT + EMOTION_COUNT; }

/* ---------------------------------------------------------------- helpers */

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

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
static void add_lids(const cg_face_marks_t *fm, int e, const float p[3], float upper_frac,
                     float upper_ang, float lower_ang, float o[3])
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

static void modifier(const cg_face_marks_t *fm, modifier_id id, const float p[3],
                     const float n[3], float o[3])
{
    int e = (id == M_BROW_UP_R || id == M_BROW_DOWN_R || id == M_BLINK_R || id == M_EYE_WIDE_R ||
             id == M_SQUINT_R || id == M_SMILE_R || id == M_FROWN_R || id == M_SMIRK_R ||
             id == M_CHEEK_PUFF_R || id == M_NOSE_SNEER_R)
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
    case M_BROW_UP_L:
    case M_BROW_UP_R:
        addv(o, gauss(p, B, 2.6f) * above_eye * side, 0.0f, 0.6f, 0.05f);
        break;
    case M_BROW_DOWN_L:
    case M_BROW_DOWN_R:
        addv(o, gauss(p, B, 2.4f) * above_eye * side, -s * 0.3f, -0.5f, 0.15f);
        break;
    case M_BROW_INNER_UP: {
        float c0[3] = {1.5f, B[1] - 0.1f, B[2] + 0.4f}, c1[3] = {-1.5f, B[1] - 0.1f, B[2] + 0.4f};
        float w = fmaxf(gauss(p, c0, 1.7f), gauss(p, c1, 1.7f)) * above_eye;
        addv(o, w, 0.0f, 0.55f, 0.0f);
        break;
    }
    case M_BLINK_L:
    case M_BLINK_R:
        add_lids(fm, e, p, 1.0f, 0.0f, -0.12f, o);
        break;
    case M_EYE_WIDE_L:
    case M_EYE_WIDE_R:
        add_lids(fm, e, p, 0.0f, -0.22f, 0.06f, o);
        addv(o, gauss(p, B, 2.4f) * above_eye * side, 0.0f, 0.2f, 0.0f);
        break;
    case M_SQUINT_L:
    case M_SQUINT_R:
        add_lids(fm, e, p, 0.15f, 0.0f, -0.3f, o);
        addv(o, gauss(p, cheek_hi, 1.8f) * side, 0.0f, 0.25f, 0.1f);
        break;
    case M_SMILE_L:
    case M_SMILE_R:
        addv(o, gauss(p, corner, 1.7f), s * 0.35f, 0.55f, -0.3f);
        addv(o, gauss(p, cheek_hi, 2.3f) * side, 0.0f, 0.35f, 0.2f);
        break;
    case M_FROWN_L:
    case M_FROWN_R:
        addv(o, gauss(p, corner, 1.6f), s * 0.1f, -0.45f, -0.05f);
        break;
    case M_SMIRK_L:
    case M_SMIRK_R:
        addv(o, gauss(p, corner, 1.4f), s * 0.45f, 0.35f, -0.45f);
        addv(o, gauss(p, corner, 2.4f) * up * side, 0.0f, 0.1f, 0.0f);
        break;
    case M_JAW_OPEN:
        add_rot_x(o, jaw_weight(fm, p), p, fm->jaw_pivot, CG_JAW_OPEN_DEG * CG_DEG);
        break;
    case M_PUCKER:
        addv(o, lips, -0.4f * p[0] / fm->mouth_half_w, 0.0f, 0.65f);
        break;
    case M_MOUTH_STRETCH:
        addv(o, lips, 0.35f * p[0] / fm->mouth_half_w, -0.05f, -0.15f);
        break;
    case M_CHEEK_PUFF_L:
    case M_CHEEK_PUFF_R: {
        float c[3] = {fm->cheek_c[e][0] + s * 0.3f, fm->cheek_c[e][1] - 0.3f, fm->cheek_c[e][2] - 0.6f};
        float w = gauss(p, c, 2.0f) * side * smoothstep(1.0f, 3.0f, p[2]);
        addv(o, w * 0.75f, n[0], n[1], n[2]);
        break;
    }
    case M_NOSE_SNEER_L:
    case M_NOSE_SNEER_R: {
        float c[3] = {s * 1.2f, fm->nose_tip[1] - 0.3f, fm->nose_tip[2] - 1.9f};
        addv(o, gauss(p, c, 1.2f) * side, s * 0.05f, 0.32f, 0.05f);
        break;
    }
    case M_LIP_UPPER_UP:
        addv(o, lips * up, 0.0f, 0.32f, 0.12f);
        break;
    case M_LIP_LOWER_DOWN:
        addv(o, lips * (1.0f - up), 0.0f, -0.35f, 0.12f);
        break;
    case M_MOUTH_LEFT:
    case M_MOUTH_RIGHT: {
        float w = lip_region(fm, p);
        addv(o, w, id == M_MOUTH_LEFT ? 0.5f : -0.5f, 0.0f, 0.0f);
        break;
    }
    case M_LIPS_PRESS:
        addv(o, lips * up, 0.0f, -0.1f, -0.12f);
        addv(o, lips * (1.0f - up), 0.0f, 0.14f, -0.08f);
        break;
    case M_MOUTH_FUNNEL:
        addv(o, lips * up, 0.0f, 0.16f, 0.4f);
        addv(o, lips * (1.0f - up), 0.0f, -0.22f, 0.4f);
        break;
    case M_COUNT:
        break;
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

void cg_face_shape(const cg_face_marks_t *fm, int index, int n, const float (*p)[3],
                   const float (*nrm)[3], const bool *movable, float (*out)[3], char name[32],
                   int *category)
{
    memset(out, 0, (size_t)n * sizeof *out);
    if (index < M_COUNT) {
        snprintf(name, 32, "%s", MOD_NAME[index]);
        *category = CHR_SHAPE_MODIFIER;
        for (int v = 0; v < n; v++)
            if (movable[v])
                modifier(fm, (modifier_id)index, p[v], nrm[v], out[v]);
        return;
    }
    if (index < M_COUNT + EMOTION_COUNT) {
        const emotion_t *em = &EMOTIONS[index - M_COUNT];
        snprintf(name, 32, "%s", em->name);
        *category = CHR_SHAPE_EMOTION;
        for (int v = 0; v < n; v++) {
            if (!movable[v])
                continue;
            for (int k = 0; k < 10 && em->mix[k].w > 0.0f; k++) {
                float d[3] = {0, 0, 0};
                modifier(fm, em->mix[k].id, p[v], nrm[v], d);
                for (int c = 0; c < 3; c++)
                    out[v][c] += em->mix[k].w * d[c];
            }
        }
        return;
    }
    /* Extra shapes: a localised push along the normal (or sideways) at a
     * hashed point of the face, each with its own radius and amplitude. */
    int x = index - M_COUNT - EMOTION_COUNT;
    snprintf(name, 32, "extra%04d", x);
    *category = CHR_SHAPE_EXTRA;
    uint32_t h = hash32((uint32_t)x * 2654435761u + 12345u);
    float c[3] = {fm->head_c[0] + (unit(h) - 0.5f) * 10.0f,
                  fm->head_c[1] - 9.0f + unit(hash32(h + 1)) * 12.0f, fm->head_c[2] + 9.0f};
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
