/* strider-terraingen: makes heightmaps for Strider levels.
 *
 * Builds a square grid of heights (cm) by running a list of operations in
 * command-line order - noise, slope limiting, terraces, flattened regions,
 * boxes (obstacles or trenches) - then writes a 16-bit greyscale PNG whose
 * 0..65535 range maps to --range MIN MAX, the same mapping a level's
 * 'heightmap FILE cell C min MIN max MAX' line uses. Output is deterministic
 * for a given command line (seeded noise, no clocks).
 * Exit codes: 0 ok, 1 failure (I/O, verification), 2 bad command line.
 */
#include "noise.h"
#include "png16.h"

#include "core/log.h"
#include "world/terrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TG_DEFAULT_SIZE 256
#define TG_DEFAULT_CELL_CM 20.0f
#define TG_DEFAULT_MIN_CM (-500.0f)
#define TG_DEFAULT_MAX_CM 500.0f
#define TG_MAX_OPS 64
#define TG_MAX_ARGS 7
/* Slope relaxation stops when no pair exceeds the limit by more than this
 * (cm), or after this many sweeps. */
#define TG_RELAX_TOLERANCE_CM 0.05f
#define TG_RELAX_MAX_SWEEPS 4000
/* Slope statistics: the share of samples under this angle is reported. */
#define TG_WALKABLE_DEG 30.0f
#define TG_COORD_LIMIT_CM 1.0e6f
#define TG_PI 3.14159265358979f

enum { TG_EXIT_OK = 0, TG_EXIT_FAIL = 1, TG_EXIT_USAGE = 2 };

typedef enum tg_op_kind_t {
    TG_OP_FBM,
    TG_OP_RIDGED,
    TG_OP_TILT,
    TG_OP_CONE,
    TG_OP_OFFSET,
    TG_OP_SLOPE_LIMIT,
    TG_OP_SMOOTH,
    TG_OP_TERRACE,
    TG_OP_FLATTEN,
    TG_OP_BOX
} tg_op_kind_t;

typedef struct tg_op_spec_t {
    const char *flag;
    tg_op_kind_t kind;
    int argc;
    const char *usage;
} tg_op_spec_t;

static const tg_op_spec_t TG_OPS[] = {
    {"--fbm", TG_OP_FBM, 3, "--fbm AMP_CM WAVELENGTH_CM OCTAVES"},
    {"--ridged", TG_OP_RIDGED, 3, "--ridged AMP_CM WAVELENGTH_CM OCTAVES"},
    {"--tilt", TG_OP_TILT, 2, "--tilt GRADE_X GRADE_Z"},
    {"--cone", TG_OP_CONE, 4, "--cone X Z RADIUS_CM HEIGHT_CM"},
    {"--offset", TG_OP_OFFSET, 1, "--offset CM"},
    {"--slope-limit", TG_OP_SLOPE_LIMIT, 1, "--slope-limit DEG"},
    {"--smooth", TG_OP_SMOOTH, 1, "--smooth PASSES"},
    {"--terrace", TG_OP_TERRACE, 2, "--terrace STEP_CM RAMP_FRACTION"},
    {"--flatten", TG_OP_FLATTEN, 6, "--flatten X0 Z0 X1 Z1 HEIGHT_CM|auto BLEND_CM"},
    {"--box", TG_OP_BOX, 5, "--box X0 Z0 X1 Z1 DELTA_CM"},
};
enum { TG_OP_SPEC_COUNT = (int)(sizeof TG_OPS / sizeof TG_OPS[0]) };

typedef struct tg_op_t {
    const tg_op_spec_t *spec;
    float arg[TG_MAX_ARGS];
    bool auto_height; /* flatten: HEIGHT was 'auto' (mean inside the box) */
} tg_op_t;

/* The grid being built. Locked samples (flattened or boxed) keep their height
 * through later slope limiting, smoothing and terracing. */
typedef struct tg_grid_t {
    int size;
    float cell_cm;
    float origin;
    uint32_t seed;
    float *h;
    unsigned char *locked;
} tg_grid_t;

static void tg_usage(FILE *f)
{
    fprintf(f,
            "usage: strider-terraingen [grid options] [operations...] --out FILE.png\n"
            "grid options:\n"
            "  --size N            samples per side, %d..%d (default %d)\n"
            "  --cell CM           sample spacing (default %g)\n"
            "  --range MIN MAX     heights (cm) stored as 0..65535 (default %g %g)\n"
            "  --seed N            noise seed, 0..4294967295 (default 1)\n"
            "  --verify            reload the PNG with stb_image and compare every sample\n"
            "operations, run in the order given (coordinates in cm, origin at the centre):\n",
            TERRAIN_MIN_SAMPLES, TERRAIN_MAX_SAMPLES, TG_DEFAULT_SIZE, (double)TG_DEFAULT_CELL_CM,
            (double)TG_DEFAULT_MIN_CM, (double)TG_DEFAULT_MAX_CM);
    for (int i = 0; i < TG_OP_SPEC_COUNT; i++)
        fprintf(f, "  %s\n", TG_OPS[i].usage);
}

static bool tg_parse_float(const char *s, float *out)
{
    char *end = NULL;
    float v = strtof(s, &end);
    if (end == s || *end != 0 || !isfinite(v) || fabsf(v) > TG_COORD_LIMIT_CM)
        return false;
    *out = v;
    return true;
}

static bool tg_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end = NULL;
    if (s[0] == '-' || s[0] == '+')
        return false;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end != 0 || v > max)
        return false;
    *out = v;
    return true;
}

static float tg_x(const tg_grid_t *g, int i) { return g->origin + (float)i * g->cell_cm; }

/* Distance (cm) from (x, z) to the rectangle; 0 inside. */
static float tg_rect_distance(const float *r, float x, float z)
{
    float x0 = fminf(r[0], r[2]), x1 = fmaxf(r[0], r[2]);
    float z0 = fminf(r[1], r[3]), z1 = fmaxf(r[1], r[3]);
    float dx = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0.0f);
    float dz = z < z0 ? z0 - z : (z > z1 ? z - z1 : 0.0f);
    return hypotf(dx, dz);
}

static float tg_smoothstep(float t)
{
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    return t * t * (3.0f - 2.0f * t);
}

static void tg_add_noise(tg_grid_t *g, const tg_op_t *op, bool ridged)
{
    float amp = op->arg[0], wavelength = op->arg[1];
    int octaves = (int)op->arg[2];
    for (int j = 0; j < g->size; j++)
        for (int i = 0; i < g->size; i++) {
            size_t k = (size_t)j * (size_t)g->size + (size_t)i;
            if (g->locked[k])
                continue;
            float u = tg_x(g, i) / wavelength, v = tg_x(g, j) / wavelength;
            float n = ridged ? noise_ridged(u, v, octaves, g->seed) : noise_fbm(u, v, octaves, g->seed);
            g->h[k] += amp * n;
        }
}

/* Moves each too-steep pair of neighbours towards each other (thermal
 * erosion without material loss) until every slope is at most DEG. Locked
 * samples do not move; their neighbours take the whole correction. */
static int tg_slope_limit(tg_grid_t *g, float deg)
{
    static const int nb[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    float talus[4];
    for (int d = 0; d < 4; d++)
        talus[d] = tanf(deg * TG_PI / 180.0f) * g->cell_cm * sqrtf((float)(nb[d][0] * nb[d][0] + nb[d][1] * nb[d][1]));
    int n = g->size;
    for (int sweep = 0; sweep < TG_RELAX_MAX_SWEEPS; sweep++) {
        float worst = 0.0f;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t a = (size_t)j * (size_t)n + (size_t)i;
                for (int d = 0; d < 4; d++) {
                    int i2 = i + nb[d][0], j2 = j + nb[d][1];
                    if (i2 >= n || j2 < 0 || j2 >= n)
                        continue;
                    size_t b = (size_t)j2 * (size_t)n + (size_t)i2;
                    float diff = g->h[a] - g->h[b];
                    float excess = fabsf(diff) - talus[d];
                    if (excess <= 0.0f || (g->locked[a] && g->locked[b]))
                        continue;
                    worst = fmaxf(worst, excess);
                    float s = diff > 0.0f ? 1.0f : -1.0f;
                    if (g->locked[a])
                        g->h[b] += s * excess;
                    else if (g->locked[b])
                        g->h[a] -= s * excess;
                    else {
                        g->h[a] -= s * 0.5f * excess;
                        g->h[b] += s * 0.5f * excess;
                    }
                }
            }
        if (worst < TG_RELAX_TOLERANCE_CM)
            return sweep + 1;
    }
    return TG_RELAX_MAX_SWEEPS;
}

/* 3x3 box blur of unlocked samples, PASSES times. */
static bool tg_smooth(tg_grid_t *g, int passes)
{
    int n = g->size;
    float *tmp = malloc((size_t)n * (size_t)n * sizeof *tmp);
    if (!tmp)
        return false;
    for (int p = 0; p < passes; p++) {
        memcpy(tmp, g->h, (size_t)n * (size_t)n * sizeof *tmp);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t k = (size_t)j * (size_t)n + (size_t)i;
                if (g->locked[k])
                    continue;
                float sum = 0.0f;
                int cnt = 0;
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int ii = i + di, jj = j + dj;
                        if (ii < 0 || jj < 0 || ii >= n || jj >= n)
                            continue;
                        sum += tmp[(size_t)jj * (size_t)n + (size_t)ii];
                        cnt++;
                    }
                g->h[k] = sum / (float)cnt;
            }
    }
    free(tmp);
    return true;
}

/* Flat steps STEP cm high; the last RAMP fraction of each step is a smooth
 * ramp up to the next, so terraces stay connected by walkable slopes. */
static void tg_terrace(tg_grid_t *g, float step, float ramp)
{
    size_t count = (size_t)g->size * (size_t)g->size;
    for (size_t k = 0; k < count; k++) {
        if (g->locked[k])
            continue;
        float level = floorf(g->h[k] / step);
        float f = g->h[k] / step - level;
        float up = tg_smoothstep((f - (1.0f - ramp)) / ramp);
        g->h[k] = (level + up) * step;
    }
}

static void tg_flatten(tg_grid_t *g, const tg_op_t *op)
{
    const float *r = op->arg;
    float target = op->arg[4], blend = op->arg[5];
    int n = g->size;
    if (op->auto_height) {
        double sum = 0.0;
        int cnt = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (tg_rect_distance(r, tg_x(g, i), tg_x(g, j)) == 0.0f) {
                    sum += g->h[(size_t)j * (size_t)n + (size_t)i];
                    cnt++;
                }
        /* A box between samples: use the nearest sample to its centre. */
        target = cnt ? (float)(sum / cnt) : g->h[0];
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            size_t k = (size_t)j * (size_t)n + (size_t)i;
            float d = tg_rect_distance(r, tg_x(g, i), tg_x(g, j));
            if (d == 0.0f) {
                g->h[k] = target;
                g->locked[k] = 1;
            } else if (d < blend && !g->locked[k]) {
                float w = tg_smoothstep(1.0f - d / blend);
                g->h[k] += (target - g->h[k]) * w;
            }
        }
}

static void tg_box(tg_grid_t *g, const tg_op_t *op)
{
    int n = g->size;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (tg_rect_distance(op->arg, tg_x(g, i), tg_x(g, j)) == 0.0f) {
                size_t k = (size_t)j * (size_t)n + (size_t)i;
                g->h[k] += op->arg[4];
                g->locked[k] = 1;
            }
}

static bool tg_run_op(tg_grid_t *g, const tg_op_t *op)
{
    int n = g->size;
    switch (op->spec->kind) {
    case TG_OP_FBM:
    case TG_OP_RIDGED: tg_add_noise(g, op, op->spec->kind == TG_OP_RIDGED); return true;
    case TG_OP_TILT:
    case TG_OP_CONE:
    case TG_OP_OFFSET:
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t k = (size_t)j * (size_t)n + (size_t)i;
                if (g->locked[k])
                    continue;
                float x = tg_x(g, i), z = tg_x(g, j);
                if (op->spec->kind == TG_OP_TILT)
                    g->h[k] += op->arg[0] * x + op->arg[1] * z;
                else if (op->spec->kind == TG_OP_OFFSET)
                    g->h[k] += op->arg[0];
                else {
                    float d = hypotf(x - op->arg[0], z - op->arg[1]);
                    g->h[k] += op->arg[3] * fmaxf(0.0f, 1.0f - d / op->arg[2]);
                }
            }
        return true;
    case TG_OP_SLOPE_LIMIT: {
        int sweeps = tg_slope_limit(g, op->arg[0]);
        if (sweeps >= TG_RELAX_MAX_SWEEPS)
            log_warn("slope limit %g deg not fully reached after %d sweeps", (double)op->arg[0], sweeps);
        return true;
    }
    case TG_OP_SMOOTH:
        if (!tg_smooth(g, (int)op->arg[0])) {
            log_error("out of memory while smoothing");
            return false;
        }
        return true;
    case TG_OP_TERRACE: tg_terrace(g, op->arg[0], op->arg[1]); return true;
    case TG_OP_FLATTEN: tg_flatten(g, op); return true;
    case TG_OP_BOX: tg_box(g, op); return true;
    }
    return false;
}

/* Checks the value ranges an operation needs to make sense. */
static bool tg_check_op(const tg_op_t *op)
{
    const float *a = op->arg;
    switch (op->spec->kind) {
    case TG_OP_FBM:
    case TG_OP_RIDGED: return a[1] > 0.0f && a[2] >= 1.0f && a[2] <= (float)NOISE_MAX_OCTAVES && a[2] == floorf(a[2]);
    case TG_OP_TILT: return fabsf(a[0]) <= 10.0f && fabsf(a[1]) <= 10.0f;
    case TG_OP_CONE: return a[2] > 0.0f;
    case TG_OP_OFFSET: return true;
    case TG_OP_SLOPE_LIMIT: return a[0] >= 1.0f && a[0] <= 80.0f;
    case TG_OP_SMOOTH: return a[0] >= 1.0f && a[0] <= 100.0f && a[0] == floorf(a[0]);
    case TG_OP_TERRACE: return a[0] > 0.0f && a[1] > 0.0f && a[1] <= 1.0f;
    case TG_OP_FLATTEN: return a[5] >= 0.0f;
    case TG_OP_BOX: return true;
    }
    return false;
}

/* Slope (deg) at each interior sample from central differences. */
static void tg_report(const tg_grid_t *g, float lo, float hi, size_t clamped)
{
    int n = g->size;
    float hmin = g->h[0], hmax = g->h[0], smax = 0.0f;
    size_t walkable = 0, total = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            float v = g->h[(size_t)j * (size_t)n + (size_t)i];
            hmin = fminf(hmin, v);
            hmax = fmaxf(hmax, v);
            if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                continue;
            float dx = (g->h[(size_t)j * (size_t)n + (size_t)i + 1] - g->h[(size_t)j * (size_t)n + (size_t)i - 1]) /
                       (2.0f * g->cell_cm);
            float dz = (g->h[(size_t)(j + 1) * (size_t)n + (size_t)i] - g->h[(size_t)(j - 1) * (size_t)n + (size_t)i]) /
                       (2.0f * g->cell_cm);
            float deg = atanf(hypotf(dx, dz)) * 180.0f / TG_PI;
            smax = fmaxf(smax, deg);
            walkable += deg < TG_WALKABLE_DEG;
            total++;
        }
    printf("heights %.1f..%.1f cm (range %g..%g, %zu samples clamped); slopes under %g deg: "
           "%.1f%%, steepest %.1f deg\n",
           (double)hmin, (double)hmax, (double)lo, (double)hi, clamped, (double)TG_WALKABLE_DEG,
           total ? 100.0 * (double)walkable / (double)total : 100.0, (double)smax);
}

/* Reloads PATH through the terrain loader (stb_image) and checks every
 * sample against the quantised heights that were written. */
static bool tg_verify(const char *path, const tg_grid_t *g, const uint16_t *q, float lo, float hi)
{
    terrain_t t;
    if (!terrain_load_png(&t, path, g->cell_cm, lo, hi))
        return false;
    bool ok = t.width == g->size && t.depth == g->size;
    float worst = 0.0f;
    size_t count = (size_t)g->size * (size_t)g->size;
    for (size_t k = 0; ok && k < count; k++) {
        float want = lo + (float)q[k] * (hi - lo) / 65535.0f;
        worst = fmaxf(worst, fabsf(t.heights[k] - want));
    }
    /* Float rounding of the decode formula only; a wrong sample is off by
     * at least one quantum, (hi - lo) / 65535 cm. */
    float tolerance = 1e-5f * fmaxf(fabsf(lo), fabsf(hi)) + 1e-4f;
    if (!ok || worst > tolerance) {
        log_error("%s: verification failed (%dx%d read back, max error %g cm)", path, t.width, t.depth, (double)worst);
        terrain_free(&t);
        return false;
    }
    printf("verified %s: %zu samples read back through stb_image\n", path, count);
    terrain_free(&t);
    return true;
}

int main(int argc, char **argv)
{
    static tg_op_t ops[TG_MAX_OPS];
    int op_count = 0;
    unsigned long size = TG_DEFAULT_SIZE, seed = 1;
    float cell = TG_DEFAULT_CELL_CM, lo = TG_DEFAULT_MIN_CM, hi = TG_DEFAULT_MAX_CM;
    const char *out = NULL;
    bool verify = false;

    for (int a = 1; a < argc; a++) {
        const char *f = argv[a];
        if (strcmp(f, "--help") == 0 || strcmp(f, "-h") == 0) {
            tg_usage(stdout);
            return TG_EXIT_OK;
        }
        if (strcmp(f, "--verify") == 0) {
            verify = true;
            continue;
        }
        bool need1 = strcmp(f, "--size") == 0 || strcmp(f, "--cell") == 0 || strcmp(f, "--seed") == 0 ||
                     strcmp(f, "--out") == 0;
        if (need1 || strcmp(f, "--range") == 0) {
            int want = need1 ? 1 : 2;
            if (a + want >= argc) {
                log_error("%s needs %d value%s", f, want, want == 1 ? "" : "s");
                return TG_EXIT_USAGE;
            }
            const char *v = argv[a + 1];
            bool ok = true;
            if (strcmp(f, "--size") == 0)
                ok = tg_parse_uint(v, TERRAIN_MAX_SAMPLES, &size) && size >= TERRAIN_MIN_SAMPLES;
            else if (strcmp(f, "--seed") == 0)
                ok = tg_parse_uint(v, 0xffffffffUL, &seed);
            else if (strcmp(f, "--cell") == 0)
                ok = tg_parse_float(v, &cell) && cell >= 1.0f && cell <= 500.0f;
            else if (strcmp(f, "--out") == 0)
                out = v;
            else
                ok = tg_parse_float(v, &lo) && tg_parse_float(argv[a + 2], &hi) && lo < hi;
            if (!ok) {
                log_error("bad value for %s: '%s'", f, v);
                return TG_EXIT_USAGE;
            }
            a += want;
            continue;
        }
        const tg_op_spec_t *spec = NULL;
        for (int s = 0; s < TG_OP_SPEC_COUNT; s++)
            if (strcmp(f, TG_OPS[s].flag) == 0)
                spec = &TG_OPS[s];
        if (!spec) {
            log_error("unknown option '%s' (see --help)", f);
            return TG_EXIT_USAGE;
        }
        if (op_count >= TG_MAX_OPS) {
            log_error("more than %d operations", TG_MAX_OPS);
            return TG_EXIT_USAGE;
        }
        if (a + spec->argc >= argc) {
            log_error("%s needs %d values (usage: %s)", f, spec->argc, spec->usage);
            return TG_EXIT_USAGE;
        }
        tg_op_t *op = &ops[op_count++];
        op->spec = spec;
        for (int k = 0; k < spec->argc; k++) {
            const char *v = argv[a + 1 + k];
            if (spec->kind == TG_OP_FLATTEN && k == 4 && strcmp(v, "auto") == 0) {
                op->auto_height = true;
                continue;
            }
            if (!tg_parse_float(v, &op->arg[k])) {
                log_error("%s: value %d '%s' is not a number (usage: %s)", f, k + 1, v, spec->usage);
                return TG_EXIT_USAGE;
            }
        }
        if (!tg_check_op(op)) {
            log_error("%s: values out of range (usage: %s)", f, spec->usage);
            return TG_EXIT_USAGE;
        }
        a += spec->argc;
    }
    if (!out) {
        log_error("no --out FILE.png given");
        tg_usage(stderr);
        return TG_EXIT_USAGE;
    }

    tg_grid_t g = {.size = (int)size, .cell_cm = cell, .seed = (uint32_t)seed};
    g.origin = -0.5f * (float)(g.size - 1) * cell;
    size_t count = (size_t)size * (size_t)size;
    g.h = calloc(count, sizeof *g.h);
    g.locked = calloc(count, 1);
    uint16_t *q = malloc(count * sizeof *q);
    int rc = TG_EXIT_FAIL;
    if (!g.h || !g.locked || !q) {
        log_error("out of memory for a %lux%lu grid", size, size);
        goto done;
    }
    for (int i = 0; i < op_count; i++)
        if (!tg_run_op(&g, &ops[i]))
            goto done;
    size_t clamped = 0;
    for (size_t k = 0; k < count; k++) {
        float v = (g.h[k] - lo) / (hi - lo) * 65535.0f;
        if (v < 0.0f || v > 65535.0f)
            clamped++;
        v = v < 0.0f ? 0.0f : (v > 65535.0f ? 65535.0f : v);
        q[k] = (uint16_t)lrintf(v);
    }
    if (clamped)
        log_warn("%s: %zu samples outside --range %g %g were clamped", out, clamped, (double)lo, (double)hi);
    if (!png16_write(out, g.size, g.size, q))
        goto done;
    tg_report(&g, lo, hi, clamped);
    printf("level line: heightmap FILE.png cell %g min %g max %g\n", (double)cell, (double)lo, (double)hi);
    if (verify && !tg_verify(out, &g, q, lo, hi))
        goto done;
    rc = TG_EXIT_OK;
done:
    free(g.h);
    free(g.locked);
    free(q);
    return rc;
}
