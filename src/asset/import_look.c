#include "asset/import_look.h"

#include "asset/weld.h"

#include "core/log.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outfit (linear RGB, roughness, subsurface), in the generated
 * character's palette so both read alike under the same lights. */
typedef enum look_material_t {
    LOOK_SKIN,
    LOOK_SHIRT,
    LOOK_TROUSERS,
    LOOK_SHOES,
    LOOK_HAIR,
    LOOK_BROWS,
    LOOK_LIPS,
    LOOK_SCLERA,
    LOOK_IRIS,
    LOOK_PUPIL,
    LOOK_TEETH,
    LOOK_MOUTH,
    LOOK_COUNT
} look_material_t;

static const chr_material_t LOOK[LOOK_COUNT] = {
    [LOOK_SKIN] = {"skin", {0.60f, 0.36f, 0.25f, 1.0f}, 0.50f, 0.60f},
    [LOOK_SHIRT] = {"shirt", {0.05f, 0.16f, 0.20f, 1.0f}, 0.80f, 0.00f},
    [LOOK_TROUSERS] = {"trousers", {0.045f, 0.060f, 0.110f, 1.0f}, 0.85f, 0.00f},
    [LOOK_SHOES] = {"shoes", {0.030f, 0.026f, 0.024f, 1.0f}, 0.35f, 0.00f},
    [LOOK_HAIR] = {"hair", {0.055f, 0.032f, 0.018f, 1.0f}, 0.70f, 0.00f},
    [LOOK_BROWS] = {"brows", {0.040f, 0.025f, 0.015f, 1.0f}, 0.80f, 0.00f},
    [LOOK_LIPS] = {"lips", {0.45f, 0.17f, 0.15f, 1.0f}, 0.35f, 0.60f},
    [LOOK_SCLERA] = {"sclera", {0.80f, 0.78f, 0.74f, 1.0f}, 0.15f, 0.20f},
    [LOOK_IRIS] = {"iris", {0.06f, 0.20f, 0.28f, 1.0f}, 0.10f, 0.00f},
    [LOOK_PUPIL] = {"pupil", {0.005f, 0.005f, 0.005f, 1.0f}, 0.05f, 0.00f},
    [LOOK_TEETH] = {"teeth", {0.70f, 0.66f, 0.56f, 1.0f}, 0.30f, 0.20f},
    [LOOK_MOUTH] = {"mouth", {0.35f, 0.07f, 0.08f, 1.0f}, 0.45f, 0.50f},
};

/* Body parts, from the controller's joint each character joint follows. */
typedef enum look_part_t {
    PART_NONE,
    PART_PELVIS,
    PART_TORSO,
    PART_COLLAR,
    PART_NECK,
    PART_HEAD,
    PART_UPPER_ARM,
    PART_FOREARM,
    PART_HAND,
    PART_THIGH,
    PART_SHIN,
    PART_FOOT,
    PART_COUNT
} look_part_t;

static const struct {
    const char *joint;
    look_part_t part;
} PART_OF[] = {
    {"hip", PART_PELVIS},       {"abdomen", PART_TORSO},    {"chest", PART_TORSO},      {"neck", PART_NECK},
    {"head", PART_HEAD},        {"lCollar", PART_COLLAR},   {"rCollar", PART_COLLAR},   {"lShldr", PART_UPPER_ARM},
    {"rShldr", PART_UPPER_ARM}, {"lForeArm", PART_FOREARM}, {"rForeArm", PART_FOREARM}, {"lHand", PART_HAND},
    {"rHand", PART_HAND},       {"lButtock", PART_PELVIS},  {"rButtock", PART_PELVIS},  {"lThigh", PART_THIGH},
    {"rThigh", PART_THIGH},     {"lShin", PART_SHIN},       {"rShin", PART_SHIN},       {"lFoot", PART_FOOT},
    {"rFoot", PART_FOOT},
};

/* Cuts, in cm unless said: the belt lies this far up from the hip joint
 * towards the chest joint (fraction); sleeves end this far down the upper arm (fraction); shoes
 * rise this far above the ankle joint. */
#define BELT_FRACTION 0.30f
#define SLEEVE_FRACTION 0.55f
#define SHOE_ABOVE_ANKLE_CM 4.0f
/* The collar: a ring this much wider than the neck around the neck's axis
 * (a radius, well defined where the shoulders are nearly flat and a
 * height is not), reaching down this far below the neck joint. */
#define COLLAR_MARGIN_CM 2.5f
#define COLLAR_DEPTH_CM 9.0f
/* Rounds of the majority filter that smooths the cloth and hair edges. */
#define SMOOTH_ROUNDS 2
/* Above this many vertices the filter's vote table is not worth it. */
#define SMOOTH_MAX_VERTICES 1000000u
/* Eyes: pupil and iris as angles from the eye's forward axis (+Z), deg. */
#define PUPIL_DEG 11.0f
#define IRIS_DEG 27.0f
/* Small parts: components under this share of the vertices. */
#define SMALL_PART_SHARE 0.05f
/* Inside the mouth the light is dim: teeth and tongue AO. */
#define MOUTH_AO 0.55f

/* Every vertex of every mesh, numbered one after the other. */
typedef struct look_t {
    chr_character_t *c;
    uint32_t n;
    uint32_t first[CHR_MAX_MESHES + 1];
    uint32_t *comp; /* vertex -> component root */
    uint32_t *weld; /* vertex -> its position's number (asset/weld.h) */
    uint32_t weld_count;
    uint8_t *mat; /* vertex -> look_material_t */
} look_t;

static chr_vertex_t *vert(const look_t *L, uint32_t g)
{
    uint32_t m = 0;
    while (g >= L->first[m + 1])
        m++;
    return &L->c->meshes[m].vertices[g - L->first[m]];
}

static uint32_t find_root(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static void join(uint32_t *p, uint32_t a, uint32_t b)
{
    a = find_root(p, a);
    b = find_root(p, b);
    if (a != b)
        p[a < b ? b : a] = a < b ? a : b;
}

/* Connected components over triangles, welded across identical positions
 * (UV seams and the head/body split copy vertices). */
static bool components(look_t *L)
{
    /* The first vertex seen at each position. */
    uint32_t *first = malloc(((size_t)L->weld_count + 1) * sizeof *first);
    if (!first)
        return false;
    for (uint32_t g = 0; g < L->weld_count; g++)
        first[g] = UINT32_MAX;
    for (uint32_t v = 0; v < L->n; v++) {
        L->comp[v] = v;
        uint32_t *f = &first[L->weld[v]];
        if (*f == UINT32_MAX)
            *f = v;
        else
            join(L->comp, v, *f);
    }
    free(first);
    for (uint32_t m = 0; m < L->c->mesh_count; m++) {
        const chr_mesh_t *mesh = &L->c->meshes[m];
        for (uint32_t i = 0; i + 2 < mesh->index_count; i += 3) {
            join(L->comp, L->first[m] + mesh->indices[i], L->first[m] + mesh->indices[i + 1]);
            join(L->comp, L->first[m] + mesh->indices[i], L->first[m] + mesh->indices[i + 2]);
        }
    }
    for (uint32_t v = 0; v < L->n; v++)
        L->comp[v] = find_root(L->comp, v);
    return true;
}

typedef struct part_t {
    uint32_t root, count;
    float lo[3], hi[3], c[3];
} part_t;

static float extent(const part_t *p, int k) { return p->hi[k] - p->lo[k]; }

static bool round_part(const part_t *p)
{
    float a = extent(p, 0), b = extent(p, 1), d = extent(p, 2);
    float mx = fmaxf(a, fmaxf(b, d)), mn = fminf(a, fminf(b, d));
    return mx > 0.3f && mn > 0.6f * mx;
}

/* Eyes (a mirrored pair of round parts) and the mouth's parts (the other
 * small parts near the mid-line below them). Returns the eye count. */
static int small_parts(look_t *L, part_t *parts, int count, float eye_c[2][3], float *eye_r, int *mouth_parts,
                       float mouth[3])
{
    int eyes[2] = {-1, -1};
    for (int a = 0; a < count && eyes[0] < 0; a++)
        for (int b = a + 1; b < count && eyes[0] < 0; b++) {
            const part_t *p = &parts[a], *q = &parts[b];
            if (!round_part(p) || !round_part(q) || p->c[0] * q->c[0] >= 0.0f || fabsf(p->c[0]) < 1.0f ||
                fabsf(p->c[0] + q->c[0]) > 1.0f || fabsf(p->c[1] - q->c[1]) > 1.0f ||
                fabsf(extent(p, 1) - extent(q, 1)) > 0.2f * extent(p, 1))
                continue;
            eyes[0] = a;
            eyes[1] = b;
        }
    *mouth_parts = 0;
    if (eyes[0] < 0)
        return 0;
    *eye_r = 0.25f * (extent(&parts[eyes[0]], 1) + extent(&parts[eyes[0]], 0));
    float eye_y = 0.5f * (parts[eyes[0]].c[1] + parts[eyes[1]].c[1]);
    for (int e = 0; e < 2; e++) {
        const part_t *p = &parts[eyes[e]];
        memcpy(eye_c[e], p->c, sizeof p->c);
        for (uint32_t v = 0; v < L->n; v++) {
            if (L->comp[v] != p->root)
                continue;
            const chr_vertex_t *x = vert(L, v);
            float d[3] = {x->pos[0] - p->c[0], x->pos[1] - p->c[1], x->pos[2] - p->c[2]};
            float len = glm_vec3_norm(d);
            float deg = len > 0.0f ? acosf(fminf(fmaxf(d[2] / len, -1.0f), 1.0f)) * 57.29578f : 180.0f;
            L->mat[v] = deg < PUPIL_DEG ? LOOK_PUPIL : (deg < IRIS_DEG ? LOOK_IRIS : LOOK_SCLERA);
        }
    }
    /* Mouth: on the mid-line, 2..12 cm below the eyes. Largest: tongue. */
    int tongue = -1;
    float top_teeth = -INFINITY, front = -INFINITY, low_teeth = INFINITY;
    for (int i = 0; i < count; i++) {
        const part_t *p = &parts[i];
        float drop = eye_y - p->c[1];
        if (i == eyes[0] || i == eyes[1] || fabsf(p->c[0]) > 1.0f || drop < 2.0f || drop > 12.0f)
            continue;
        (*mouth_parts)++;
        if (tongue < 0 || p->count > parts[tongue].count)
            tongue = i;
    }
    for (int i = 0; i < count; i++) {
        const part_t *p = &parts[i];
        float drop = eye_y - p->c[1];
        if (i == eyes[0] || i == eyes[1] || fabsf(p->c[0]) > 1.0f || drop < 2.0f || drop > 12.0f)
            continue;
        for (uint32_t v = 0; v < L->n; v++) {
            if (L->comp[v] != p->root)
                continue;
            L->mat[v] = i == tongue ? LOOK_MOUTH : LOOK_TEETH;
            vert(L, v)->ao = MOUTH_AO;
        }
        if (i != tongue) {
            top_teeth = fmaxf(top_teeth, p->lo[1]);
            low_teeth = fminf(low_teeth, p->hi[1]);
            front = fmaxf(front, p->hi[2]);
        }
    }
    /* The lips meet between the rows of teeth, in front of them. */
    if (isfinite(top_teeth) && isfinite(front)) {
        mouth[0] = 0.0f;
        mouth[1] = 0.5f * (top_teeth + low_teeth);
        mouth[2] = front;
    } else {
        mouth[1] = NAN;
    }
    return 2;
}

/* Whether the majority filter may change material M (the body's big
 * regions; eyes, mouth, brows and lips are too small to survive it). */
static bool smoothable(int m)
{
    return m == LOOK_SKIN || m == LOOK_SHIRT || m == LOOK_TROUSERS || m == LOOK_SHOES || m == LOOK_HAIR;
}

/* A majority filter over each vertex's neighbours (welded over identical
 * positions): cut lines through a mesh whose edge loops do not follow them
 * leave single vertices sticking out, and colours interpolate across every
 * triangle, so one vertex makes a spike. */
static void smooth_edges(look_t *L)
{
    if (L->n > SMOOTH_MAX_VERTICES)
        return;
    const uint32_t *weld = L->weld;
    uint16_t(*votes)[LOOK_COUNT] = malloc((size_t)L->n * sizeof *votes);
    uint8_t *next = malloc(L->n);
    if (votes && next) {
        for (int round = 0; round < SMOOTH_ROUNDS; round++) {
            memset(votes, 0, (size_t)L->n * sizeof *votes);
            for (uint32_t m = 0; m < L->c->mesh_count; m++) {
                const chr_mesh_t *mesh = &L->c->meshes[m];
                for (uint32_t i = 0; i + 2 < mesh->index_count; i += 3)
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++) {
                            uint32_t va = L->first[m] + mesh->indices[i + a], vb = L->first[m] + mesh->indices[i + b];
                            uint8_t mb = L->mat[vb];
                            if (mb < LOOK_COUNT && votes[weld[va]][mb] < UINT16_MAX)
                                votes[weld[va]][mb]++;
                        }
            }
            for (uint32_t v = 0; v < L->n; v++) {
                next[v] = L->mat[v];
                if (L->mat[v] >= LOOK_COUNT || !smoothable(L->mat[v]))
                    continue;
                const uint16_t *vt = votes[weld[v]];
                int best = L->mat[v];
                for (int k = 0; k < LOOK_COUNT; k++)
                    if (smoothable(k) && vt[k] > vt[best])
                        best = k;
                next[v] = (uint8_t)best;
            }
            memcpy(L->mat, next, L->n);
        }
    }
    free(votes);
    free(next);
}

typedef struct collar_t {
    bool valid;
    float x, z, r, low_y;
} collar_t;

static bool in_collar(const collar_t *c, const float p[3])
{
    return c->valid && p[1] > c->low_y && hypotf(p[0] - c->x, p[2] - c->z) < c->r;
}

static float smoothstep(float a, float b, float x)
{
    float t = fminf(fmaxf((x - a) / (b - a), 0.0f), 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

/* What the dressing measures on the character before it picks any
 * vertex's material: the small parts (eyes, teeth), the joints' body parts
 * and heights, the head's extent and the neck's collar. */
typedef struct dress_t {
    float eye_c[2][3], eye_r, mouth[3];
    int eyes, mouth_parts;
    look_part_t part[SKEL_MAX_JOINTS]; /* each joint's body part */
    float jp[SKEL_MAX_JOINTS][3];      /* rest positions */
    int at[PART_COUNT];                /* the first joint of each part, or -1 */
    int chest, neck, head, hip;
    float belt_y;
    float top, back, half_w; /* the head's extent, for the hairline */
    float eye_y, eye_z;
    collar_t collar;
} dress_t;

/* The look's per-vertex arrays, the welded positions and the connected
 * components; false (nothing left allocated) when memory runs out. */
static bool look_begin(look_t *L, chr_character_t *c)
{
    *L = (look_t){.c = c};
    for (uint32_t m = 0; m < c->mesh_count; m++)
        L->first[m + 1] = L->first[m] + c->meshes[m].vertex_count;
    for (uint32_t m = c->mesh_count + 1; m <= CHR_MAX_MESHES; m++)
        L->first[m] = L->first[c->mesh_count];
    L->n = L->first[c->mesh_count];
    L->comp = malloc((size_t)L->n * sizeof *L->comp);
    L->weld = malloc((size_t)L->n * sizeof *L->weld);
    L->mat = malloc(L->n);
    float(*pos)[3] = malloc(((size_t)L->n + 1) * sizeof *pos);
    for (uint32_t v = 0; pos && v < L->n; v++)
        memcpy(pos[v], vert(L, v)->pos, sizeof pos[v]);
    bool ok = L->comp && L->weld && L->mat && pos &&
              weld_positions((const float(*)[3])pos, L->n, L->weld, &L->weld_count);
    free(pos);
    if (!ok || !components(L)) {
        free(L->comp);
        free(L->weld);
        free(L->mat);
        return false;
    }
    memset(L->mat, LOOK_COUNT, L->n);
    return true;
}

/* Small parts: their bounds and centres, gathered in one pass per root;
 * then the eyes and the mouth among them (small_parts). */
static void find_small_parts(look_t *L, dress_t *d)
{
    int count = 0, cap = 64;
    part_t *parts = calloc((size_t)cap, sizeof *parts);
    uint32_t *size = calloc(L->n, sizeof *size);
    float(*lo)[3] = malloc((size_t)L->n * sizeof *lo), (*hi)[3] = malloc((size_t)L->n * sizeof *hi);
    if (parts && size && lo && hi) {
        for (uint32_t v = 0; v < L->n; v++)
            for (int k = 0; k < 3; k++) {
                lo[v][k] = INFINITY;
                hi[v][k] = -INFINITY;
            }
        for (uint32_t v = 0; v < L->n; v++) {
            uint32_t r = L->comp[v];
            const float *x = vert(L, v)->pos;
            size[r]++;
            for (int k = 0; k < 3; k++) {
                lo[r][k] = fminf(lo[r][k], x[k]);
                hi[r][k] = fmaxf(hi[r][k], x[k]);
            }
        }
        for (uint32_t v = 0; v < L->n && count < cap; v++) {
            if (L->comp[v] != v || (float)size[v] >= SMALL_PART_SHARE * (float)L->n)
                continue;
            part_t *p = &parts[count++];
            p->root = v;
            p->count = size[v];
            for (int k = 0; k < 3; k++) {
                p->lo[k] = lo[v][k];
                p->hi[k] = hi[v][k];
                p->c[k] = 0.5f * (lo[v][k] + hi[v][k]);
            }
        }
    }
    free(size);
    free(lo);
    free(hi);
    d->mouth[0] = 0.0f;
    d->mouth[1] = NAN;
    d->mouth[2] = 0.0f;
    d->eyes = parts ? small_parts(L, parts, count, d->eye_c, &d->eye_r, &d->mouth_parts, d->mouth) : 0;
    free(parts);
}

/* Joint parts: mapped joints by their source joint, others as parents; the
 * chest, neck, head and hip joints, and the belt's height. */
static void joint_parts(dress_t *d, const skel_t *s, const skel_t *source, const retarget_map_t *map)
{
    skel_rest_positions(s, d->jp);
    for (int k = 0; k < PART_COUNT; k++)
        d->at[k] = -1;
    for (int j = 0; j < s->joint_count; j++) {
        d->part[j] = j > 0 ? d->part[s->joint_parent[j]] : PART_PELVIS;
        int src = map->source[j];
        for (size_t k = 0; src >= 0 && k < sizeof PART_OF / sizeof PART_OF[0]; k++)
            if (strcmp(source->joint_name[src], PART_OF[k].joint) == 0) {
                d->part[j] = PART_OF[k].part;
                if (d->at[d->part[j]] < 0)
                    d->at[d->part[j]] = j;
            }
    }
    d->chest = d->neck = d->head = -1;
    d->hip = d->at[PART_PELVIS];
    for (int j = 0; j < s->joint_count; j++) {
        int src = map->source[j];
        const char *sn = src >= 0 ? source->joint_name[src] : "";
        if (d->chest < 0 && strcmp(sn, "chest") == 0)
            d->chest = j;
        if (d->neck < 0 && strcmp(sn, "neck") == 0)
            d->neck = j;
        if (d->head < 0 && strcmp(sn, "head") == 0)
            d->head = j;
    }
    d->belt_y = d->hip >= 0 && d->chest >= 0
                    ? d->jp[d->hip][1] + BELT_FRACTION * (d->jp[d->chest][1] - d->jp[d->hip][1])
                    : -INFINITY;
}

/* The head's extent, for the hairline, and the eyes' mid-point. */
static void head_extent(const look_t *L, dress_t *d)
{
    d->top = -INFINITY;
    d->back = INFINITY;
    d->half_w = 0.0f;
    for (uint32_t v = 0; v < L->n; v++) {
        const chr_vertex_t *x = vert(L, v);
        if (L->mat[v] != LOOK_COUNT || d->head < 0 || x->joints[0] != d->head)
            continue;
        d->top = fmaxf(d->top, x->pos[1]);
        d->back = fminf(d->back, x->pos[2]);
        d->half_w = fmaxf(d->half_w, fabsf(x->pos[0]));
    }
    d->eye_y = 0.5f * (d->eye_c[0][1] + d->eye_c[1][1]);
    d->eye_z = 0.5f * (d->eye_c[0][2] + d->eye_c[1][2]);
}

/* The neck's axis and radius: vertices mostly on the neck joint. */
static void fit_collar(const look_t *L, dress_t *d)
{
    collar_t *collar = &d->collar;
    *collar = (collar_t){0};
    int neck = d->neck;
    if (neck < 0)
        return;
    double sx = 0.0, sz = 0.0, sr = 0.0;
    int k = 0;
    for (uint32_t v = 0; v < L->n; v++) {
        const chr_vertex_t *x = vert(L, v);
        if (L->mat[v] == LOOK_COUNT && x->joints[0] == neck && x->weights[0] > 0.6f) {
            sx += x->pos[0];
            sz += x->pos[2];
            k++;
        }
    }
    if (k == 0)
        return;
    collar->x = (float)(sx / k);
    collar->z = (float)(sz / k);
    for (uint32_t v = 0; v < L->n; v++) {
        const chr_vertex_t *x = vert(L, v);
        if (L->mat[v] == LOOK_COUNT && x->joints[0] == neck && x->weights[0] > 0.6f)
            sr += hypotf(x->pos[0] - collar->x, x->pos[2] - collar->z);
    }
    collar->r = (float)(sr / k) + COLLAR_MARGIN_CM;
    collar->low_y = d->jp[neck][1] - COLLAR_DEPTH_CM;
    collar->valid = true;
}

/* Short sleeves: the shoulder end of the upper arm (the skin inside the
 * collar). */
static look_material_t upper_arm_material(const dress_t *d, const skel_t *s, const chr_vertex_t *x)
{
    const float *p = x->pos;
    if (in_collar(&d->collar, p))
        return LOOK_SKIN;
    int arm = x->joints[0], elbow = -1;
    for (int j = arm + 1; j < s->joint_count && elbow < 0; j++)
        if (s->joint_parent[j] == arm)
            elbow = j;
    float t = 0.0f;
    if (elbow >= 0) {
        float a[3], b[3], l2 = 0.0f, dot = 0.0f;
        for (int k = 0; k < 3; k++) {
            a[k] = d->jp[elbow][k] - d->jp[arm][k];
            b[k] = p[k] - d->jp[arm][k];
            l2 += a[k] * a[k];
            dot += a[k] * b[k];
        }
        t = l2 > 0.0f ? dot / l2 : 0.0f;
    }
    return t < SLEEVE_FRACTION ? LOOK_SHIRT : LOOK_SKIN;
}

/* The head: hair above the hairline, brows, lips; skin elsewhere (and
 * everywhere without two eyes to place them by). */
static look_material_t head_material(const dress_t *d, const float p[3])
{
    look_material_t m = LOOK_SKIN;
    if (d->eyes != 2 || !isfinite(d->top))
        return m;
    float top = d->top, eye_y = d->eye_y, eye_z = d->eye_z, eye_r = d->eye_r;
    float depth = fmaxf(eye_z - d->back, 1.0f);
    float t_back = fminf(fmaxf((eye_z - p[2]) / depth, 0.0f), 1.0f);
    /* The hairline runs from above the brow at the front down
     * to the nape behind, above the ears at the sides. */
    float line = eye_y + 0.50f * (top - eye_y) - (0.95f * (top - eye_y)) * smoothstep(0.35f, 0.9f, t_back);
    bool ear = fabsf(p[0]) > 0.8f * d->half_w && p[1] < eye_y + 0.25f * (top - eye_y) && t_back < 0.8f;
    if (p[1] > line && !ear)
        m = LOOK_HAIR;
    /* Brows: a band above each eye, on the front. */
    for (int e = 0; e < 2; e++) {
        float dx = (p[0] - d->eye_c[e][0]) / (1.4f * eye_r);
        float dy = (p[1] - d->eye_c[e][1] - 1.35f * eye_r) / (0.34f * eye_r);
        if (dx * dx + dy * dy < 1.0f && p[2] > d->eye_c[e][2] - 0.5f * eye_r)
            m = LOOK_BROWS;
    }
    /* Lips: an ellipse around where the teeth rows meet, in front. */
    if (isfinite(d->mouth[1])) {
        float dx = p[0] / (1.6f * eye_r), dy = (p[1] - d->mouth[1]) / (0.75f * eye_r);
        if (dx * dx + dy * dy < 1.0f && p[2] > d->mouth[2] - 0.2f * eye_r)
            m = LOOK_LIPS;
    }
    return m;
}

/* The material of body vertex X, by the body part its weights favour. */
static look_material_t body_material(const dress_t *d, const skel_t *s, const chr_vertex_t *x)
{
    const float *p = x->pos;
    float share[PART_COUNT] = {0};
    for (int k = 0; k < CHR_MAX_INFLUENCES; k++)
        share[d->part[x->joints[k]]] += x->weights[k];
    look_part_t pt = PART_NONE;
    for (int k = 1; k < PART_COUNT; k++)
        if (share[k] > share[pt])
            pt = (look_part_t)k;
    switch (pt) {
    case PART_PELVIS:
    case PART_THIGH: return LOOK_TROUSERS;
    case PART_SHIN: {
        int ankle = d->at[PART_FOOT];
        return ankle >= 0 && p[1] < d->jp[ankle][1] + SHOE_ABOVE_ANKLE_CM ? LOOK_SHOES : LOOK_TROUSERS;
    }
    case PART_FOOT: return LOOK_SHOES;
    case PART_TORSO:
    case PART_COLLAR:
        /* The belt and the neckline follow the skin weights where the
         * pelvis, and the neck, take over (their iso-lines run along
         * the mesh's edge loops better than any plane), bounded by
         * heights from the joints. */
        if (share[PART_PELVIS] + share[PART_THIGH] > 0.35f && p[1] < d->belt_y + 6.0f)
            return LOOK_TROUSERS;
        if (p[1] < d->belt_y - 4.0f)
            return LOOK_TROUSERS;
        return in_collar(&d->collar, p) ? LOOK_SKIN : LOOK_SHIRT;
    case PART_UPPER_ARM: return upper_arm_material(d, s, x);
    case PART_HEAD: return head_material(d, p);
    default: return LOOK_SKIN;
    }
}

/* The materials into the character, the counts into INFO; frees the look. */
static void look_finish(look_t *L, chr_character_t *c, const dress_t *d, imp_look_info_t *info)
{
    /* The unfound small parts (no eyes here) keep the skin. */
    c->material_count = LOOK_COUNT;
    memcpy(c->materials, LOOK, sizeof LOOK);
    if (info) {
        memset(info, 0, sizeof *info);
        info->eyes = d->eyes;
        info->mouth_parts = d->mouth_parts;
    }
    for (uint32_t v = 0; v < L->n; v++) {
        uint8_t m = L->mat[v] < LOOK_COUNT ? L->mat[v] : LOOK_SKIN;
        vert(L, v)->material = m;
        if (info)
            info->vertices_by_material[m]++;
    }
    free(L->comp);
    free(L->weld);
    free(L->mat);
}

bool imp_dress(chr_character_t *c, const skel_t *source, const retarget_map_t *map, const char *name,
               imp_look_info_t *info)
{
    look_t L;
    if (!look_begin(&L, c)) {
        log_error("%s: out of memory dressing the character", name);
        return false;
    }
    dress_t d;
    memset(&d, 0, sizeof d);
    find_small_parts(&L, &d);
    joint_parts(&d, &c->skel, source, map);
    head_extent(&L, &d);
    fit_collar(&L, &d);
    for (uint32_t v = 0; v < L.n; v++)
        if (L.mat[v] == LOOK_COUNT)
            L.mat[v] = (uint8_t)body_material(&d, &c->skel, vert(&L, v));
    smooth_edges(&L);
    look_finish(&L, c, &d, info);
    return true;
}
