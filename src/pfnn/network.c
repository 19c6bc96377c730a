/* madvise() for transparent huge pages (see alloc_weights). */
#define _DEFAULT_SOURCE
#include "pfnn/network.h"

#include "core/file.h"
#include "core/log.h"
#include "pfnn/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define PFNN_MAGIC "SPFN"
#define PFNN_REF_MAGIC "SPFV"
#define PFNN_TWO_PI 6.283185307179586476925286766559

enum {
    PFNN_VERSION = 1,
    PFNN_HEADER_BYTES = 64,
    PFNN_REF_HEADER_BYTES = 32,
    PFNN_DTYPE_F32 = 0,
    /* Byte offsets of header fields, for messages. */
    PFNN_OFF_VERSION = 4,
    PFNN_OFF_HEADER_BYTES = 8,
    PFNN_OFF_DIMS = 12,
    PFNN_OFF_CONTROL = 28,
    PFNN_OFF_JOINTS = 32,
    PFNN_OFF_TRAJ = 36,
    PFNN_OFF_GAITS = 40,
    PFNN_OFF_DTYPE = 44,
    PFNN_OFF_PAYLOAD = 48,
    PFNN_OFF_CHECKSUM = 52,
    PFNN_REF_MAX_COUNT = 1000000,
    /* Blocks are aligned to a cache line. */
    PFNN_ALIGN = 64,
    /* Largest binary16 value; larger weights cannot be stored as fp16. */
    PFNN_F16_MAX = 65504
};

/* Cap on everything one load allocates (the 512-wide network with all
 * modes in fp32 and fp16 needs ~215 MB). */
#define PFNN_MAX_LOAD_BYTES ((size_t)2 << 30)

/* ------------------------------------------------------------ plausible values */

/* docs/FORMATS_PFNN.md section 8: every value of pfnn.bin has a range. A
 * normalisation group's limit L bounds its means (|mean| <= L) and its
 * standard deviations (PFNN_STD_MIN <= std <= 10 L: the joint groups' are
 * made 10x larger); L is about 4x the largest |value| of that group in the
 * training data. Weights and biases work on values normalised to unit
 * deviation: |w| <= PFNN_WEIGHT_LIMIT. A layout other than the shipped one
 * (tests) takes the largest group limit for every value. */
#define PFNN_STD_MIN 1e-6
#define PFNN_WEIGHT_LIMIT 100.0

typedef struct pfnn_group {
    int first, count; /* indices of x or y */
    double limit;     /* L */
    const char *name;
} pfnn_group;

static const pfnn_group k_in_groups[] = {
    {0, 24, 2500.0, "trajectory positions (cm)"}, {24, 24, 4.0, "trajectory directions"},
    {48, 72, 4.0, "gait weights"},                {120, 36, 400.0, "terrain heights (cm)"},
    {156, 63, 1000.0, "joint positions (cm)"},    {219, 63, 200.0, "joint velocities (cm/frame)"},
};
static const pfnn_group k_out_groups[] = {
    {0, 2, 50.0, "root velocity (cm/frame)"},     {2, 1, 2.0, "angular velocity (rad/frame)"},
    {3, 1, 4.0, "phase change (rad/frame)"},      {4, 4, 4.0, "contacts"},
    {8, 12, 2500.0, "trajectory positions (cm)"}, {20, 12, 4.0, "trajectory directions"},
    {32, 63, 1000.0, "joint positions (cm)"},     {95, 63, 200.0, "joint velocities (cm/frame)"},
    {158, 126, 4.0, "joint rotations (6-D)"},
};
#define PFNN_LARGEST_GROUP_LIMIT 2500.0

/* The group of index I of x (or y), for the shipped layout; else the
 * largest limit. */
static const pfnn_group *group_of(bool output, bool shipped, int i)
{
    static const pfnn_group any = {0, 0, PFNN_LARGEST_GROUP_LIMIT, "any (not the shipped layout)"};
    const pfnn_group *g = output ? k_out_groups : k_in_groups;
    int n = output ? (int)(sizeof k_out_groups / sizeof *g) : (int)(sizeof k_in_groups / sizeof *g);
    for (int k = 0; shipped && k < n; k++)
        if (i >= g[k].first && i < g[k].first + g[k].count)
            return &g[k];
    return &any;
}

/* Checks every decoded value against its range; one line naming the file,
 * the byte, the field and the value on the first one outside. */
static bool check_ranges(const char *name, const float *p, int n_in, int h0, int h1, int n_out, bool shipped)
{
    /* Normalisation: Xmean, Xstd, Ymean, Ystd. */
    const int count[4] = {n_in, n_in, n_out, n_out};
    static const char *const what[4] = {"Xmean", "Xstd", "Ymean", "Ystd"};
    size_t at = 0;
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < count[b]; i++, at++) {
            const pfnn_group *g = group_of(b >= 2, shipped, i);
            double v = p[at];
            bool is_std = b & 1;
            double lo = is_std ? PFNN_STD_MIN : -g->limit, hi = is_std ? 10.0 * g->limit : g->limit;
            if (!(v >= lo && v <= hi)) {
                log_error("%s: byte %zu: %s[%d] = %g is outside [%g, %g] (%s)", name,
                          (size_t)PFNN_HEADER_BYTES + 4 * at, what[b], i, v, lo, hi, g->name);
                return false;
            }
        }
    /* Weights and biases of the control points, in file order. */
    const size_t sizes[6] = {(size_t)h0 * n_in, (size_t)h0, (size_t)h1 * h0, (size_t)h1, (size_t)n_out * h1,
                             (size_t)n_out};
    static const char *const blocks[6] = {"W0", "b0", "W1", "b1", "W2", "b2"};
    for (int k = 0; k < PFNN_CONTROL_POINTS; k++)
        for (int b = 0; b < 6; b++)
            for (size_t i = 0; i < sizes[b]; i++, at++)
                if (!(fabsf(p[at]) <= (float)PFNN_WEIGHT_LIMIT)) {
                    log_error("%s: byte %zu: %s of control point %d, value %zu, = %g is outside [-%g, %g]", name,
                              (size_t)PFNN_HEADER_BYTES + 4 * at, blocks[b], k, i, (double)p[at], PFNN_WEIGHT_LIMIT,
                              PFNN_WEIGHT_LIMIT);
                    return false;
                }
    return true;
}

/* ------------------------------------------------------------ half floats */

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t pfnn_f32_to_f16(float f)
{
    /* Round to nearest even by integer arithmetic on the binary32 bits;
     * results below 2^-14 go through a float add that lets the FPU do the
     * subnormal rounding. */
    const uint32_t f32_inf = 255u << 23;
    const uint32_t f16_overflow = (127u + 16u) << 23;
    const uint32_t denorm_magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    uint32_t u = bits_of(f);
    const uint32_t sign = u & 0x80000000u;
    u ^= sign;
    uint32_t o;
    if (u >= f16_overflow) {
        o = u > f32_inf ? 0x7E00u : 0x7C00u;
    } else if (u < (113u << 23)) {
        o = bits_of(float_of(u) + float_of(denorm_magic)) - denorm_magic;
    } else {
        const uint32_t mant_odd = (u >> 13) & 1u;
        u += ((uint32_t)(15 - 127) << 23) + 0xFFFu;
        u += mant_odd;
        o = u >> 13;
    }
    return (uint16_t)(o | (sign >> 16));
}

float pfnn_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t ex = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
    if (ex == 0) {
        /* Zero or subnormal: mant * 2^-24 is exact in binary32. */
        float v = (float)mant * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    if (ex == 31)
        return float_of(sign | 0x7F800000u | (mant << 13));
    return float_of(sign | ((ex + 112u) << 23) | (mant << 13));
}

/* ---------------------------------------------------------------- names */

const char *pfnn_mode_name(pfnn_mode mode)
{
    switch (mode) {
    case PFNN_PHASE_CONSTANT: return "constant";
    case PFNN_PHASE_LINEAR: return "linear";
    case PFNN_PHASE_CUBIC: return "cubic";
    default: return "?";
    }
}

const char *pfnn_dtype_name(pfnn_dtype dtype)
{
    switch (dtype) {
    case PFNN_F32: return "fp32";
    case PFNN_F16: return "fp16";
    default: return "?";
    }
}

const char *pfnn_isa_name(pfnn_isa isa)
{
    switch (isa) {
    case PFNN_ISA_AUTO: return "auto";
    case PFNN_ISA_SCALAR: return "scalar";
    case PFNN_ISA_SSE2: return "sse2";
    case PFNN_ISA_AVX2: return "avx2";
    default: return "?";
    }
}

bool pfnn_isa_supported(pfnn_isa isa, pfnn_dtype dtype)
{
    switch (isa) {
    case PFNN_ISA_AUTO:
    case PFNN_ISA_SCALAR:
        return true;
    case PFNN_ISA_SSE2:
#if defined(__x86_64__) || defined(__i386__)
        /* Part of the x86-64 baseline (fp16 weights there use plain C). */
        return true;
#else
        return false;
#endif
    case PFNN_ISA_AVX2:
        return pfnn_kern_has_avx2_fma() && (dtype != PFNN_F16 || pfnn_kern_has_f16c());
    }
    return false;
}

pfnn_isa pfnn_isa_best(void)
{
    if (pfnn_isa_supported(PFNN_ISA_AVX2, PFNN_F32))
        return PFNN_ISA_AVX2;
    if (pfnn_isa_supported(PFNN_ISA_SSE2, PFNN_F32))
        return PFNN_ISA_SSE2;
    return PFNN_ISA_SCALAR;
}

static pfnn_isa isa_resolve(pfnn_isa isa, pfnn_dtype dtype)
{
    if (isa != PFNN_ISA_AUTO)
        return isa;
    if (pfnn_isa_supported(PFNN_ISA_AVX2, dtype))
        return PFNN_ISA_AVX2;
    return pfnn_isa_supported(PFNN_ISA_SSE2, dtype) ? PFNN_ISA_SSE2 : PFNN_ISA_SCALAR;
}

/* ---------------------------------------------------------------- phase */

/* Phase as a fraction of the cycle, in [0, 1). */
static double phase_unit(float phase)
{
    double r = fmod((double)phase, PFNN_TWO_PI);
    if (r < 0.0)
        r += PFNN_TWO_PI;
    double u = r / PFNN_TWO_PI;
    return u >= 1.0 ? 0.0 : u;
}

/* Catmull-Rom weights per control point for p in [0, 4) (doc section 1). */
static void coeffs_at(double p, double c[PFNN_CONTROL_POINTS])
{
    const double fl = floor(p);
    const double w = p - fl;
    const int k1 = ((int)fl % PFNN_CONTROL_POINTS + PFNN_CONTROL_POINTS) % PFNN_CONTROL_POINTS;
    const double w2 = w * w, w3 = w2 * w;
    const double cs[PFNN_CONTROL_POINTS] = {
        -0.5 * w + w2 - 0.5 * w3,
        1.0 - 2.5 * w2 + 1.5 * w3,
        0.5 * w + 2.0 * w2 - 1.5 * w3,
        -0.5 * w2 + 0.5 * w3,
    };
    for (int j = 0; j < PFNN_CONTROL_POINTS; j++)
        c[(k1 + j + PFNN_CONTROL_POINTS - 1) % PFNN_CONTROL_POINTS] = cs[j];
}

void pfnn_phase_coeffs(float phase, float coeffs[PFNN_CONTROL_POINTS])
{
    double c[PFNN_CONTROL_POINTS];
    coeffs_at(phase_unit(phase) * PFNN_CONTROL_POINTS, c);
    for (int k = 0; k < PFNN_CONTROL_POINTS; k++)
        coeffs[k] = (float)c[k];
}

/* ---------------------------------------------------------------- loading */

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static void *alloc_aligned(size_t bytes)
{
    return aligned_alloc(PFNN_ALIGN, round_up(bytes ? bytes : 1, PFNN_ALIGN));
}

/* Weight blocks: 2 MiB aligned and, on Linux, marked for transparent huge
 * pages. The constant mode's 106 MiB of fp32 slices do not fit the L3, so a
 * walk streams a new 2.2 MB slice from DRAM nearly every inference; with 4
 * KiB pages that crosses ~540 pages (TLB misses, and the hardware
 * prefetchers stop at each page boundary). Huge pages measured 0.083 ->
 * 0.071 ms per constant fp32 inference in a standalone loop on this
 * machine. Only the whole huge pages are marked: a huge page under the
 * block's tail would be resident in full (the cubic mode's 8.45 MiB took
 * 10 MiB), so the tail stays in ordinary pages. Without THP (or where
 * madvise fails) it is an ordinary block. */
#define PFNN_HUGE_PAGE ((size_t)2 << 20)
static void *alloc_weights(size_t bytes)
{
    if (bytes < PFNN_HUGE_PAGE)
        return alloc_aligned(bytes);
    void *p = aligned_alloc(PFNN_HUGE_PAGE, round_up(bytes, PFNN_HUGE_PAGE));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p)
        (void)madvise(p, bytes / PFNN_HUGE_PAGE * PFNN_HUGE_PAGE, MADV_HUGEPAGE);
#endif
    return p;
}

/* Float counts of one weight set in panel layout. */
static size_t set_weight_floats(const pfnn_network *net)
{
    size_t n = 0;
    for (int l = 0; l < PFNN_LAYERS; l++)
        n += (size_t)net->out_pad[l] * (size_t)net->in[l];
    return n;
}

static size_t set_bias_floats(const pfnn_network *net)
{
    return (size_t)net->out_pad[0] + (size_t)net->out_pad[1] + (size_t)net->out_pad[2];
}

/* Row-major out x in (doc layout) -> 32-row panels, zero padding rows. */
static void panelize(const float *src, int out, int in, int out_pad, float *dst)
{
    for (int o = 0; o < out_pad; o++) {
        float *col = dst + (size_t)(o / PFNN_PANEL_ROWS) * (size_t)in * PFNN_PANEL_ROWS
                     + (size_t)(o % PFNN_PANEL_ROWS);
        for (int i = 0; i < in; i++)
            col[(size_t)i * PFNN_PANEL_ROWS] = o < out ? src[(size_t)o * (size_t)in + (size_t)i] : 0.0f;
    }
}

/* Sets of each mode: count and first index in net->sets. */
static const int k_mode_sets[PFNN_PHASE_MODE_COUNT] = {PFNN_CONSTANT_SLICES, PFNN_LINEAR_SLICES,
                                                       PFNN_CONTROL_POINTS};

static int mode_base(const pfnn_network *net, pfnn_mode mode)
{
    return mode == PFNN_PHASE_CONSTANT ? net->const_base : mode == PFNN_PHASE_LINEAR ? net->lin_base : 0;
}

/* Points set S of MODE (the I-th of the mode) into the mode's blocks. */
static void set_pointers(pfnn_network *net, pfnn_mode mode, int i)
{
    const size_t wf = set_weight_floats(net), bf = set_bias_floats(net);
    pfnn_weights *ws = &net->sets[mode_base(net, mode) + i];
    size_t wo = 0, bo = 0;
    for (int l = 0; l < PFNN_LAYERS; l++) {
        ws->w32[l] = (float *)net->block32[mode] + (size_t)i * wf + wo;
        ws->w16[l] = net->block16[mode] ? (uint16_t *)net->block16[mode] + (size_t)i * wf + wo : NULL;
        ws->b[l] = (float *)net->block_b[mode] + (size_t)i * bf + bo;
        wo += (size_t)net->out_pad[l] * (size_t)net->in[l];
        bo += (size_t)net->out_pad[l];
    }
}

/* Slice I of MODE = sum_k c_k * control point k at phase P (in control
 * points), elementwise (same panel layout). */
static void blend_set(pfnn_network *net, pfnn_mode mode, int i, double p)
{
    double c[PFNN_CONTROL_POINTS];
    coeffs_at(p, c);
    const size_t wf = set_weight_floats(net), bf = set_bias_floats(net);
    const float *cw = net->block32[PFNN_PHASE_CUBIC], *cb = net->block_b[PFNN_PHASE_CUBIC];
    float *w = (float *)net->block32[mode] + (size_t)i * wf;
    float *b = (float *)net->block_b[mode] + (size_t)i * bf;
    for (size_t j = 0; j < wf; j++) {
        double v = 0.0;
        for (int k = 0; k < PFNN_CONTROL_POINTS; k++)
            v += c[k] * (double)cw[(size_t)k * wf + j];
        w[j] = (float)v;
    }
    for (size_t j = 0; j < bf; j++) {
        double v = 0.0;
        for (int k = 0; k < PFNN_CONTROL_POINTS; k++)
            v += c[k] * (double)cb[(size_t)k * bf + j];
        b[j] = (float)v;
    }
}

static void free_mode_blocks(pfnn_network *net, pfnn_mode mode)
{
    free(net->block32[mode]);
    free(net->block16[mode]);
    free(net->block_b[mode]);
    net->block32[mode] = net->block16[mode] = net->block_b[mode] = NULL;
    net->has_mode[mode] = false;
    net->mode_bytes[mode][PFNN_F32] = net->mode_bytes[mode][PFNN_F16] = 0;
    if (net->sets)
        memset(net->sets + mode_base(net, mode), 0, (size_t)k_mode_sets[mode] * sizeof *net->sets);
}

/* Allocates MODE's blocks and fills them: the control points from PAYLOAD
 * (CUBIC), or slices blended from the control points; then the fp16 copies
 * when the network keeps them. */
static bool build_mode(pfnn_network *net, pfnn_mode mode, const float *payload)
{
    const size_t wf = set_weight_floats(net), bf = set_bias_floats(net);
    const size_t n_sets = (size_t)k_mode_sets[mode];
    size_t total = n_sets * (wf + bf) * sizeof(float) + (net->has_f16 ? n_sets * wf * sizeof(uint16_t) : 0);
    if (total > PFNN_MAX_LOAD_BYTES) {
        log_error("%s: phase mode %s would need %zu MiB, over the %zu MiB cap", net->name,
                  pfnn_mode_name(mode), total >> 20, PFNN_MAX_LOAD_BYTES >> 20);
        return false;
    }
    net->block32[mode] = alloc_weights(n_sets * wf * sizeof(float));
    net->block_b[mode] = alloc_aligned(n_sets * bf * sizeof(float));
    net->block16[mode] = net->has_f16 ? alloc_weights(n_sets * wf * sizeof(uint16_t)) : NULL;
    if (!net->block32[mode] || !net->block_b[mode] || (net->has_f16 && !net->block16[mode])) {
        log_error("%s: out of memory for %zu MiB of %s weights", net->name, total >> 20, pfnn_mode_name(mode));
        free_mode_blocks(net, mode);
        return false;
    }
    for (int i = 0; i < (int)n_sets; i++)
        set_pointers(net, mode, i);

    if (mode == PFNN_PHASE_CUBIC) {
        /* Control points from the payload (after Xmean, Xstd, Ymean, Ystd). */
        const float *src = payload + 2 * (size_t)net->n_in + 2 * (size_t)net->n_out;
        for (int k = 0; k < PFNN_CONTROL_POINTS; k++) {
            for (int l = 0; l < PFNN_LAYERS; l++) {
                const int o = net->out[l], i = net->in[l];
                panelize(src, o, i, net->out_pad[l], (float *)net->sets[k].w32[l]);
                src += (size_t)o * (size_t)i;
                float *b = (float *)net->sets[k].b[l];
                memcpy(b, src, (size_t)o * sizeof(float));
                memset(b + o, 0, (size_t)(net->out_pad[l] - o) * sizeof(float));
                src += o;
            }
        }
    } else {
        /* Slice s of a mode with N slices sits at phase 2 pi s / N. */
        for (int i = 0; i < (int)n_sets; i++)
            blend_set(net, mode, i, (double)PFNN_CONTROL_POINTS * i / (double)n_sets);
    }

    if (net->has_f16) {
        const float *w = net->block32[mode];
        uint16_t *h = net->block16[mode];
        for (size_t j = 0; j < n_sets * wf; j++) {
            if (fabsf(w[j]) > (float)PFNN_F16_MAX) {
                log_error("%s: weight %g does not fit in fp16 (|w| <= %d); load without fp16",
                          net->name, (double)w[j], PFNN_F16_MAX);
                free_mode_blocks(net, mode);
                return false;
            }
            h[j] = pfnn_f32_to_f16(w[j]);
        }
    }
    net->mode_bytes[mode][PFNN_F32] = n_sets * (wf + bf) * sizeof(float);
    net->mode_bytes[mode][PFNN_F16] = net->has_f16 ? n_sets * (wf * sizeof(uint16_t) + bf * sizeof(float)) : 0;
    net->has_mode[mode] = true;
    return true;
}

static bool check_dim(const char *name, const char *what, uint32_t v, int off)
{
    if (v < 1 || v > PFNN_MAX_DIM) {
        log_error("%s: byte %d: %s = %u is out of range 1..%d", name, off, what, v, PFNN_MAX_DIM);
        return false;
    }
    return true;
}

static bool check_layout(const char *name, const char *what, uint32_t v, int want, int off)
{
    if ((int64_t)v != want) {
        log_error("%s: byte %d: %s = %u, the controller's layout (docs/FORMATS_PFNN.md) needs %d",
                  name, off, what, v, want);
        return false;
    }
    return true;
}

static bool build_sets(pfnn_network *net, const float *payload, const pfnn_load_desc *d)
{
    unsigned modes = d->modes ? d->modes : (1u << PFNN_PHASE_MODE_COUNT) - 1u;
    net->const_base = PFNN_CONTROL_POINTS;
    net->lin_base = net->const_base + PFNN_CONSTANT_SLICES;
    net->set_count = net->lin_base + PFNN_LINEAR_SLICES;
    net->has_f16 = d->fp16;
    net->sets = calloc((size_t)net->set_count, sizeof *net->sets);
    if (!net->sets) {
        log_error("%s: out of memory", net->name);
        return false;
    }
    /* The control points are always built: they are the cubic mode and the
     * source of every slice. */
    if (!build_mode(net, PFNN_PHASE_CUBIC, payload))
        return false;
    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
        if (m != PFNN_PHASE_CUBIC && ((modes >> m) & 1u) && !build_mode(net, (pfnn_mode)m, NULL))
            return false;
    return true;
}

static bool load_checked(pfnn_network *net, const uint8_t *data, size_t size, const pfnn_load_desc *d);

/* Whether B, just loaded, is the network A was loaded as. */
static bool same_network(const pfnn_network *a, const pfnn_network *b)
{
    return a->checksum == b->checksum && a->n_in == b->n_in && a->h0 == b->h0 && a->h1 == b->h1 &&
           a->n_out == b->n_out && a->n_joints == b->n_joints && a->n_traj == b->n_traj &&
           a->n_gaits == b->n_gaits &&
           memcmp(a->x_mean, b->x_mean, (2 * (size_t)a->n_in + 2 * (size_t)a->n_out) * sizeof(float)) == 0;
}

/* The control points, released, read again from the file they were loaded
 * from, with every check of a load; the file must still hold the network
 * loaded (dimensions, normalisation, payload checksum). */
static bool reload_control_points(pfnn_network *net)
{
    if (!net->path) {
        log_error("%s: the control points were released and there is no file to read them from", net->name);
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(net->path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    pfnn_network fresh;
    memset(&fresh, 0, sizeof fresh);
    snprintf(fresh.name, sizeof fresh.name, "%s", net->name);
    const pfnn_load_desc d = {.modes = 1u << PFNN_PHASE_CUBIC, .fp16 = net->has_f16, .any_dims = true};
    bool ok = load_checked(&fresh, data, size, &d);
    file_free(data);
    if (ok && !same_network(net, &fresh)) {
        log_error("%s: the file changed since it was loaded (checksum 0x%08x, was 0x%08x); load it again", net->name,
                  fresh.checksum, net->checksum);
        ok = false;
    }
    if (ok) {
        const pfnn_mode c = PFNN_PHASE_CUBIC;
        net->block32[c] = fresh.block32[c];
        net->block16[c] = fresh.block16[c];
        net->block_b[c] = fresh.block_b[c];
        fresh.block32[c] = fresh.block16[c] = fresh.block_b[c] = NULL;
        net->mode_bytes[c][PFNN_F32] = fresh.mode_bytes[c][PFNN_F32];
        net->mode_bytes[c][PFNN_F16] = fresh.mode_bytes[c][PFNN_F16];
        for (int i = 0; i < PFNN_CONTROL_POINTS; i++)
            set_pointers(net, c, i);
        net->has_mode[c] = true;
    }
    pfnn_free(&fresh);
    return ok;
}

bool pfnn_prepare_mode(pfnn_network *net, pfnn_mode mode)
{
    if (!net || !net->sets || (unsigned)mode >= PFNN_PHASE_MODE_COUNT) {
        log_error("pfnn: prepare mode %d: no loaded network, or no such mode", (int)mode);
        return false;
    }
    if (net->has_mode[mode])
        return true;
    /* Every mode is the control points or blended from them. */
    if (!net->has_mode[PFNN_PHASE_CUBIC] && !reload_control_points(net))
        return false;
    return mode == PFNN_PHASE_CUBIC || build_mode(net, mode, NULL);
}

void pfnn_release_mode(pfnn_network *net, pfnn_mode mode)
{
    if (!net || !net->sets || (unsigned)mode >= PFNN_PHASE_MODE_COUNT)
        return;
    /* The control points go only where they can be read again. */
    if (mode != PFNN_PHASE_CUBIC || net->path)
        free_mode_blocks(net, mode);
}

static bool load_checked(pfnn_network *net, const uint8_t *data, size_t size, const pfnn_load_desc *d)
{
    const char *name = net->name;
    if (size < PFNN_HEADER_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, shorter than the %d-byte header", name, size,
                  PFNN_HEADER_BYTES);
        return false;
    }
    if (size > PFNN_MAX_FILE_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, over the %zu-byte cap", name, size, PFNN_MAX_FILE_BYTES);
        return false;
    }
    if (memcmp(data, PFNN_MAGIC, 4) != 0) {
        log_error("%s: byte 0: bad magic (expected \"%s\"), not a PFNN weights file", name, PFNN_MAGIC);
        return false;
    }
    reader_t r = reader_make(data + 4, PFNN_HEADER_BYTES - 4);
    uint32_t h[15];
    for (int i = 0; i < 15; i++)
        h[i] = reader_u32(&r);
    const uint32_t version = h[0], header_bytes = h[1], n_in = h[2], h0 = h[3], h1 = h[4], n_out = h[5];
    const uint32_t n_control = h[6], n_joints = h[7], n_traj = h[8], n_gaits = h[9], dtype = h[10];
    const uint32_t payload_bytes = h[11], checksum = h[12];
    if (version != PFNN_VERSION) {
        log_error("%s: byte %d: version %u, this runtime reads version %d", name, PFNN_OFF_VERSION,
                  version, PFNN_VERSION);
        return false;
    }
    if (header_bytes != PFNN_HEADER_BYTES) {
        log_error("%s: byte %d: header size %u, expected %d", name, PFNN_OFF_HEADER_BYTES, header_bytes,
                  PFNN_HEADER_BYTES);
        return false;
    }
    if (!check_dim(name, "n_in", n_in, PFNN_OFF_DIMS) || !check_dim(name, "h0", h0, PFNN_OFF_DIMS + 4) ||
        !check_dim(name, "h1", h1, PFNN_OFF_DIMS + 8) || !check_dim(name, "n_out", n_out, PFNN_OFF_DIMS + 12))
        return false;
    if (n_control != PFNN_CONTROL_POINTS) {
        log_error("%s: byte %d: %u control points, expected %d", name, PFNN_OFF_CONTROL, n_control,
                  PFNN_CONTROL_POINTS);
        return false;
    }
    if (dtype != PFNN_DTYPE_F32) {
        log_error("%s: byte %d: weight type %u, only 0 (f32) is defined", name, PFNN_OFF_DTYPE, dtype);
        return false;
    }
    if (!d->any_dims &&
        (!check_layout(name, "n_in", n_in, PFNN_N_IN, PFNN_OFF_DIMS) ||
         !check_layout(name, "n_out", n_out, PFNN_N_OUT, PFNN_OFF_DIMS + 12) ||
         !check_layout(name, "n_joints", n_joints, PFNN_N_JOINTS, PFNN_OFF_JOINTS) ||
         !check_layout(name, "n_traj", n_traj, PFNN_N_TRAJ, PFNN_OFF_TRAJ) ||
         !check_layout(name, "n_gaits", n_gaits, PFNN_N_GAITS, PFNN_OFF_GAITS)))
        return false;
    const uint64_t per_cp = (uint64_t)h0 * n_in + h0 + (uint64_t)h1 * h0 + h1 + (uint64_t)n_out * h1 + n_out;
    const uint64_t floats = 2 * (uint64_t)n_in + 2 * (uint64_t)n_out + PFNN_CONTROL_POINTS * per_cp;
    if ((uint64_t)payload_bytes != 4 * floats) {
        log_error("%s: byte %d: payload size %u, the dimensions need %llu", name, PFNN_OFF_PAYLOAD,
                  payload_bytes, (unsigned long long)(4 * floats));
        return false;
    }
    if ((uint64_t)size != PFNN_HEADER_BYTES + (uint64_t)payload_bytes) {
        log_error("%s: byte %zu: file size %zu, the header says %llu (truncated or padded)", name, size,
                  size, (unsigned long long)(PFNN_HEADER_BYTES + (uint64_t)payload_bytes));
        return false;
    }
    const uint8_t *pay = data + PFNN_HEADER_BYTES;
    const uint32_t sum = file_checksum32(pay, payload_bytes);
    if (sum != checksum) {
        log_error("%s: byte %d: checksum 0x%08x, the payload hashes to 0x%08x", name, PFNN_OFF_CHECKSUM,
                  checksum, sum);
        return false;
    }

    net->checksum = checksum;
    net->n_in = (int)n_in;
    net->h0 = (int)h0;
    net->h1 = (int)h1;
    net->n_out = (int)n_out;
    net->n_joints = (int)n_joints;
    net->n_traj = (int)n_traj;
    net->n_gaits = (int)n_gaits;
    const int ins[PFNN_LAYERS] = {(int)n_in, (int)h0, (int)h1};
    const int outs[PFNN_LAYERS] = {(int)h0, (int)h1, (int)n_out};
    for (int l = 0; l < PFNN_LAYERS; l++) {
        net->in[l] = ins[l];
        net->out[l] = outs[l];
        net->out_pad[l] = (int)round_up((size_t)outs[l], PFNN_PANEL_ROWS);
    }

    /* Decode once (little-endian), checking every value. */
    float *payload = malloc((size_t)floats * sizeof(float));
    if (!payload) {
        log_error("%s: out of memory for %llu floats", name, (unsigned long long)floats);
        return false;
    }
    reader_t pr = reader_make(pay, payload_bytes);
    for (size_t j = 0; j < floats; j++) {
        payload[j] = reader_f32(&pr);
        if (!isfinite(payload[j])) {
            log_error("%s: byte %zu: non-finite value (float %zu of the payload)", name,
                      (size_t)PFNN_HEADER_BYTES + 4 * j, j);
            free(payload);
            return false;
        }
    }
    /* Every value within its plausible range (Xstd and Ystd, divisors, at
     * least PFNN_STD_MIN). */
    const bool shipped = n_in == PFNN_N_IN && n_out == PFNN_N_OUT;
    if (!check_ranges(name, payload, (int)n_in, (int)h0, (int)h1, (int)n_out, shipped)) {
        free(payload);
        return false;
    }
    net->x_mean = malloc(((size_t)n_in * 2 + (size_t)n_out * 2) * sizeof(float));
    if (!net->x_mean) {
        free(payload);
        log_error("%s: out of memory", name);
        return false;
    }
    memcpy(net->x_mean, payload, ((size_t)n_in * 2 + (size_t)n_out * 2) * sizeof(float));
    net->x_std = net->x_mean + n_in;
    net->y_mean = net->x_std + n_in;
    net->y_std = net->y_mean + n_out;
    bool ok = build_sets(net, payload, d);
    free(payload);
    return ok;
}

bool pfnn_load_memory(pfnn_network *net, const char *name, const uint8_t *data, size_t size,
                      const pfnn_load_desc *desc)
{
    static const pfnn_load_desc defaults = {0};
    memset(net, 0, sizeof *net);
    snprintf(net->name, sizeof net->name, "%s", name ? name : "(memory)");
    if (!data)
        size = 0;
    if (!load_checked(net, data, size, desc ? desc : &defaults)) {
        pfnn_free(net);
        return false;
    }
    return true;
}

bool pfnn_load_ex(pfnn_network *net, const char *path, const pfnn_load_desc *desc)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(net, 0, sizeof *net);
    if (!file_read_all(path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    bool ok = pfnn_load_memory(net, path, data, size, desc);
    file_free(data);
    /* Kept so that released control points can be read again; without it
     * (out of memory) they are simply never released. */
    if (ok)
        net->path = strdup(path);
    return ok;
}

bool pfnn_load(pfnn_network *net, const char *path)
{
    return pfnn_load_ex(net, path, NULL);
}

void pfnn_free(pfnn_network *net)
{
    if (!net)
        return;
    free(net->x_mean);
    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
        free_mode_blocks(net, (pfnn_mode)m);
    free(net->sets);
    free(net->path);
    memset(net, 0, sizeof *net);
}

bool pfnn_has_mode(const pfnn_network *net, pfnn_mode mode, pfnn_dtype dtype)
{
    if ((unsigned)mode >= PFNN_PHASE_MODE_COUNT || (unsigned)dtype >= PFNN_DTYPE_COUNT || !net->sets)
        return false;
    return net->has_mode[mode] && (dtype == PFNN_F32 || net->has_f16);
}

size_t pfnn_mode_bytes(const pfnn_network *net, pfnn_mode mode, pfnn_dtype dtype)
{
    if (!pfnn_has_mode(net, mode, dtype))
        return 0;
    return net->mode_bytes[mode][dtype];
}

size_t pfnn_bytes_per_inference(const pfnn_network *net, pfnn_mode mode, pfnn_dtype dtype)
{
    if (!pfnn_has_mode(net, mode, dtype))
        return 0;
    static const int sets_read[PFNN_PHASE_MODE_COUNT] = {1, 2, PFNN_CONTROL_POINTS};
    return net->mode_bytes[mode][dtype] / (size_t)k_mode_sets[mode] * (size_t)sets_read[mode];
}

/* ---------------------------------------------------------------- running */

bool pfnn_workspace_init(pfnn_workspace *ws, const pfnn_network *net)
{
    memset(ws, 0, sizeof *ws);
    const size_t n = round_up((size_t)net->n_in, PFNN_PANEL_ROWS) + (size_t)net->out_pad[0] +
                     (size_t)net->out_pad[1] + (size_t)net->out_pad[2];
    ws->block = alloc_aligned(n * sizeof(float));
    if (!ws->block) {
        log_error("%s: out of memory for the network workspace", net->name);
        return false;
    }
    memset(ws->block, 0, n * sizeof(float));
    ws->xn = ws->block;
    ws->h[0] = ws->xn + round_up((size_t)net->n_in, PFNN_PANEL_ROWS);
    ws->h[1] = ws->h[0] + net->out_pad[0];
    ws->yn = ws->h[1] + net->out_pad[1];
    return true;
}

void pfnn_workspace_free(pfnn_workspace *ws)
{
    if (!ws)
        return;
    free(ws->block);
    memset(ws, 0, sizeof *ws);
}

bool pfnn_output_is_finite(const float *y, int n)
{
    /* Sum of x - x is 0 for finite x and NaN otherwise; one branch at the end. */
    float acc = 0.0f;
    for (int i = 0; i < n; i++)
        acc += y[i] - y[i];
    return acc == 0.0f;
}

bool pfnn_validate(const pfnn_job *job)
{
    if (!job || !job->net || !job->ws || !job->ws->block || !job->x || !job->y) {
        log_error("pfnn: job needs a loaded network, a workspace, x and y");
        return false;
    }
    if (!job->net->sets) {
        log_error("pfnn: job's network is not loaded");
        return false;
    }
    if (!pfnn_has_mode(job->net, job->mode, job->dtype)) {
        log_error("%s: phase mode %d (%s) in %s was not prepared at load", job->net->name, (int)job->mode,
                  pfnn_mode_name(job->mode), pfnn_dtype_name(job->dtype));
        return false;
    }
    if (!pfnn_isa_supported(job->isa, job->dtype)) {
        log_error("pfnn: ISA %s (%s weights) does not run on this CPU", pfnn_isa_name(job->isa),
                  pfnn_dtype_name(job->dtype));
        return false;
    }
    return true;
}

/* One layer: out = sum over the chosen sets of c * (W x + b). */
static void layer_run(const pfnn_network *net, int l, const int *sets, const float *c, int n,
                      pfnn_dtype dtype, pfnn_isa isa, const float *x, float *out)
{
    bool first = true;
    for (int j = 0; j < n; j++) {
        /* Control points with a zero Catmull-Rom weight add nothing. */
        if (c[j] == 0.0f)
            continue;
        const pfnn_weights *s = &net->sets[sets[j]];
        pfnn_kern_gemv(isa, dtype, s->w32[l], s->w16[l], s->b[l], x, net->in[l], net->out_pad[l], c[j],
                       !first, out);
        first = false;
    }
}

void pfnn_run_unchecked(const pfnn_job *job)
{
    const pfnn_network *net = job->net;
    pfnn_workspace *ws = job->ws;
    const pfnn_isa isa = isa_resolve(job->isa, job->dtype);
    const double u = phase_unit(job->phase);
    int sets[PFNN_CONTROL_POINTS];
    float c[PFNN_CONTROL_POINTS];
    int n = 0;
    switch (job->mode) {
    case PFNN_PHASE_CONSTANT: {
        /* Nearest slice (the original demo floors; rounding halves the error). */
        int s = (int)lround(u * PFNN_CONSTANT_SLICES) % PFNN_CONSTANT_SLICES;
        sets[0] = net->const_base + s;
        c[0] = 1.0f;
        n = 1;
        break;
    }
    case PFNN_PHASE_LINEAR: {
        const double p = u * PFNN_LINEAR_SLICES;
        int s0 = (int)floor(p);
        if (s0 >= PFNN_LINEAR_SLICES)
            s0 = PFNN_LINEAR_SLICES - 1;
        const float t = (float)(p - s0);
        sets[0] = net->lin_base + s0;
        sets[1] = net->lin_base + (s0 + 1) % PFNN_LINEAR_SLICES;
        c[0] = 1.0f - t;
        c[1] = t;
        n = 2;
        break;
    }
    default: {
        double cd[PFNN_CONTROL_POINTS];
        coeffs_at(u * PFNN_CONTROL_POINTS, cd);
        for (int k = 0; k < PFNN_CONTROL_POINTS; k++) {
            sets[k] = k;
            c[k] = (float)cd[k];
        }
        n = PFNN_CONTROL_POINTS;
        break;
    }
    }

    for (int i = 0; i < net->n_in; i++)
        ws->xn[i] = (job->x[i] - net->x_mean[i]) / net->x_std[i];
    layer_run(net, 0, sets, c, n, job->dtype, isa, ws->xn, ws->h[0]);
    pfnn_kern_elu(isa, ws->h[0], net->out[0]);
    layer_run(net, 1, sets, c, n, job->dtype, isa, ws->h[0], ws->h[1]);
    pfnn_kern_elu(isa, ws->h[1], net->out[1]);
    layer_run(net, 2, sets, c, n, job->dtype, isa, ws->h[1], ws->yn);
    for (int o = 0; o < net->n_out; o++)
        job->y[o] = ws->yn[o] * net->y_std[o] + net->y_mean[o];
}

bool pfnn_run(const pfnn_job *job)
{
    if (!pfnn_validate(job))
        return false;
    pfnn_run_unchecked(job);
    return true;
}

/* ------------------------------------------------------ reference vectors */

bool pfnn_ref_load_memory(pfnn_ref *ref, const char *name, const uint8_t *data, size_t size)
{
    memset(ref, 0, sizeof *ref);
    if (!data || size < PFNN_REF_HEADER_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, shorter than the %d-byte header", name, data ? size : 0,
                  PFNN_REF_HEADER_BYTES);
        return false;
    }
    if (memcmp(data, PFNN_REF_MAGIC, 4) != 0) {
        log_error("%s: byte 0: bad magic (expected \"%s\"), not a PFNN reference file", name, PFNN_REF_MAGIC);
        return false;
    }
    reader_t r = reader_make(data + 4, PFNN_REF_HEADER_BYTES - 4);
    const uint32_t version = reader_u32(&r), header_bytes = reader_u32(&r), count = reader_u32(&r);
    const uint32_t n_in = reader_u32(&r), n_out = reader_u32(&r), checksum = reader_u32(&r);
    if (version != PFNN_VERSION || header_bytes != PFNN_REF_HEADER_BYTES) {
        log_error("%s: byte 4: version %u / header size %u, expected %d / %d", name, version, header_bytes,
                  PFNN_VERSION, PFNN_REF_HEADER_BYTES);
        return false;
    }
    if (count < 1 || count > PFNN_REF_MAX_COUNT || n_in < 1 || n_in > PFNN_MAX_DIM || n_out < 1 ||
        n_out > PFNN_MAX_DIM) {
        log_error("%s: byte 12: count %u / n_in %u / n_out %u out of range (1..%d, 1..%d)", name, count, n_in,
                  n_out, PFNN_REF_MAX_COUNT, PFNN_MAX_DIM);
        return false;
    }
    const uint64_t floats = (uint64_t)count * (1 + (uint64_t)n_in + n_out);
    if ((uint64_t)size != PFNN_REF_HEADER_BYTES + 4 * floats) {
        log_error("%s: byte %zu: file size %zu, the counts need %llu", name, size, size,
                  (unsigned long long)(PFNN_REF_HEADER_BYTES + 4 * floats));
        return false;
    }
    const uint32_t sum = file_checksum32(data + PFNN_REF_HEADER_BYTES, (size_t)(4 * floats));
    if (sum != checksum) {
        log_error("%s: byte 24: checksum 0x%08x, the records hash to 0x%08x", name, checksum, sum);
        return false;
    }
    ref->count = (int)count;
    ref->n_in = (int)n_in;
    ref->n_out = (int)n_out;
    ref->phase = malloc((size_t)floats * sizeof(float));
    if (!ref->phase) {
        log_error("%s: out of memory", name);
        return false;
    }
    ref->x = ref->phase + count;
    ref->y = ref->x + (size_t)count * n_in;
    /* Records interleave phase, x, y; the struct keeps three arrays. */
    reader_t pr = reader_make(data + PFNN_REF_HEADER_BYTES, (size_t)(4 * floats));
    for (uint32_t k = 0; k < count; k++) {
        for (uint32_t j = 0; j < 1 + n_in + n_out; j++) {
            const float v = reader_f32(&pr);
            if (!isfinite(v)) {
                log_error("%s: byte %zu: non-finite value (record %u)", name, pr.pos - 4 + PFNN_REF_HEADER_BYTES, k);
                pfnn_ref_free(ref);
                return false;
            }
            if (j == 0)
                ref->phase[k] = v;
            else if (j <= n_in)
                ref->x[(size_t)k * n_in + j - 1] = v;
            else
                ref->y[(size_t)k * n_out + j - 1 - n_in] = v;
        }
    }
    return true;
}

bool pfnn_ref_load(pfnn_ref *ref, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(ref, 0, sizeof *ref);
    if (!file_read_all(path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    bool ok = pfnn_ref_load_memory(ref, path, data, size);
    file_free(data);
    return ok;
}

void pfnn_ref_free(pfnn_ref *ref)
{
    if (!ref)
        return;
    free(ref->phase);
    memset(ref, 0, sizeof *ref);
}
