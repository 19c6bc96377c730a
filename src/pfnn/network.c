/* madvise() for transparent huge pages (see alloc_weights). */
#define _DEFAULT_SOURCE
#include "pfnn/network.h"

#include "core/file.h"
#include "core/log.h"
#include "pfnn/kernels.h"
#include "pfnn/network_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define PFNN_TWO_PI 6.283185307179586476925286766559

enum {
    /* Blocks are aligned to a cache line. */
    PFNN_ALIGN = 64,
    /* Largest binary16 value; larger weights cannot be stored as fp16. */
    PFNN_F16_MAX = 65504
};

/* Cap on everything one load allocates (the 512-wide network with all
 * modes in fp32 and fp16 needs ~215 MB). */
#define PFNN_MAX_LOAD_BYTES ((size_t)2 << 30)

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

const char *pfnn_mode_name(pfnn_mode_t mode)
{
    switch (mode) {
    case PFNN_PHASE_CONSTANT: return "constant";
    case PFNN_PHASE_LINEAR: return "linear";
    case PFNN_PHASE_CUBIC: return "cubic";
    default: return "?";
    }
}

const char *pfnn_dtype_name(pfnn_dtype_t dtype)
{
    switch (dtype) {
    case PFNN_F32: return "fp32";
    case PFNN_F16: return "fp16";
    default: return "?";
    }
}

const char *pfnn_isa_name(pfnn_isa_t isa)
{
    switch (isa) {
    case PFNN_ISA_AUTO: return "auto";
    case PFNN_ISA_SCALAR: return "scalar";
    case PFNN_ISA_SSE2: return "sse2";
    case PFNN_ISA_AVX2: return "avx2";
    default: return "?";
    }
}

bool pfnn_isa_supported(pfnn_isa_t isa, pfnn_dtype_t dtype)
{
    switch (isa) {
    case PFNN_ISA_AUTO:
    case PFNN_ISA_SCALAR: return true;
    case PFNN_ISA_SSE2:
#if defined(__x86_64__) || defined(__i386__)
        /* Part of the x86-64 baseline (fp16 weights there use plain C). */
        return true;
#else
        return false;
#endif
    case PFNN_ISA_AVX2: return pfnn_kern_has_avx2_fma() && (dtype != PFNN_F16 || pfnn_kern_has_f16c());
    }
    return false;
}

pfnn_isa_t pfnn_isa_best(void)
{
    if (pfnn_isa_supported(PFNN_ISA_AVX2, PFNN_F32))
        return PFNN_ISA_AVX2;
    if (pfnn_isa_supported(PFNN_ISA_SSE2, PFNN_F32))
        return PFNN_ISA_SSE2;
    return PFNN_ISA_SCALAR;
}

pfnn_isa_t pfnn_isa_resolve(pfnn_isa_t isa, pfnn_dtype_t dtype)
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

static void *alloc_aligned(size_t bytes) { return aligned_alloc(PFNN_ALIGN, round_up(bytes ? bytes : 1, PFNN_ALIGN)); }

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
static size_t set_weight_floats(const pfnn_network_t *net)
{
    size_t n = 0;
    for (int l = 0; l < PFNN_LAYERS; l++)
        n += (size_t)net->out_pad[l] * (size_t)net->in[l];
    return n;
}

static size_t set_bias_floats(const pfnn_network_t *net)
{
    return (size_t)net->out_pad[0] + (size_t)net->out_pad[1] + (size_t)net->out_pad[2];
}

/* Row-major out x in (doc layout) -> 32-row panels, zero padding rows. */
static void panelize(const float *src, int out, int in, int out_pad, float *dst)
{
    for (int o = 0; o < out_pad; o++) {
        float *col = dst + (size_t)(o / PFNN_PANEL_ROWS) * (size_t)in * PFNN_PANEL_ROWS + (size_t)(o % PFNN_PANEL_ROWS);
        for (int i = 0; i < in; i++)
            col[(size_t)i * PFNN_PANEL_ROWS] = o < out ? src[(size_t)o * (size_t)in + (size_t)i] : 0.0f;
    }
}

/* Sets of each mode: count and first index in net->sets. */
static const int k_mode_sets[PFNN_PHASE_MODE_COUNT] = {PFNN_CONSTANT_SLICES, PFNN_LINEAR_SLICES, PFNN_CONTROL_POINTS};

static int mode_base(const pfnn_network_t *net, pfnn_mode_t mode)
{
    return mode == PFNN_PHASE_CONSTANT ? net->const_base : mode == PFNN_PHASE_LINEAR ? net->lin_base : 0;
}

/* Points set S of MODE (the I-th of the mode) into the mode's blocks. */
static void set_pointers(pfnn_network_t *net, pfnn_mode_t mode, int i)
{
    const size_t wf = set_weight_floats(net), bf = set_bias_floats(net);
    pfnn_weights_t *ws = &net->sets[mode_base(net, mode) + i];
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
static void blend_set(pfnn_network_t *net, pfnn_mode_t mode, int i, double p)
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

static void free_mode_blocks(pfnn_network_t *net, pfnn_mode_t mode)
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
static bool build_mode(pfnn_network_t *net, pfnn_mode_t mode, const float *payload)
{
    const size_t wf = set_weight_floats(net), bf = set_bias_floats(net);
    const size_t n_sets = (size_t)k_mode_sets[mode];
    size_t total = n_sets * (wf + bf) * sizeof(float) + (net->has_f16 ? n_sets * wf * sizeof(uint16_t) : 0);
    if (total > PFNN_MAX_LOAD_BYTES) {
        log_error("%s: phase mode %s would need %zu MiB, over the %zu MiB cap", net->name, pfnn_mode_name(mode),
                  total >> 20, PFNN_MAX_LOAD_BYTES >> 20);
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
                log_error("%s: weight %g does not fit in fp16 (|w| <= %d); load without fp16", net->name, (double)w[j],
                          PFNN_F16_MAX);
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

bool pfnn_build_sets(pfnn_network_t *net, const float *payload, const pfnn_load_desc_t *d)
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
        if (m != PFNN_PHASE_CUBIC && ((modes >> m) & 1u) && !build_mode(net, (pfnn_mode_t)m, NULL))
            return false;
    return true;
}

/* Whether B, just loaded, is the network A was loaded as. */
static bool same_network(const pfnn_network_t *a, const pfnn_network_t *b)
{
    return a->checksum == b->checksum && a->n_in == b->n_in && a->h0 == b->h0 && a->h1 == b->h1 &&
           a->n_out == b->n_out && a->n_joints == b->n_joints && a->n_traj == b->n_traj && a->n_gaits == b->n_gaits &&
           memcmp(a->x_mean, b->x_mean, (2 * (size_t)a->n_in + 2 * (size_t)a->n_out) * sizeof(float)) == 0;
}

/* The control points, released, read again from the file they were loaded
 * from, with every check of a load; the file must still hold the network
 * loaded (dimensions, normalisation, payload checksum). */
static bool reload_control_points(pfnn_network_t *net)
{
    if (!net->path) {
        log_error("%s: the control points were released and there is no file to read them from", net->name);
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(net->path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    pfnn_network_t fresh;
    memset(&fresh, 0, sizeof fresh);
    snprintf(fresh.name, sizeof fresh.name, "%s", net->name);
    const pfnn_load_desc_t d = {.modes = 1u << PFNN_PHASE_CUBIC, .fp16 = net->has_f16, .any_dims = true};
    bool ok = pfnn_load_checked(&fresh, data, size, &d);
    file_free(data);
    if (ok && !same_network(net, &fresh)) {
        log_error("%s: the file changed since it was loaded (checksum 0x%08x, was 0x%08x); load it again", net->name,
                  fresh.checksum, net->checksum);
        ok = false;
    }
    if (ok) {
        const pfnn_mode_t c = PFNN_PHASE_CUBIC;
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

bool pfnn_prepare_mode(pfnn_network_t *net, pfnn_mode_t mode)
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

void pfnn_release_mode(pfnn_network_t *net, pfnn_mode_t mode)
{
    if (!net || !net->sets || (unsigned)mode >= PFNN_PHASE_MODE_COUNT)
        return;
    /* The control points go only where they can be read again. */
    if (mode != PFNN_PHASE_CUBIC || net->path)
        free_mode_blocks(net, mode);
}

void pfnn_free(pfnn_network_t *net)
{
    if (!net)
        return;
    free(net->x_mean);
    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
        free_mode_blocks(net, (pfnn_mode_t)m);
    free(net->sets);
    free(net->path);
    memset(net, 0, sizeof *net);
}

bool pfnn_has_mode(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype)
{
    if ((unsigned)mode >= PFNN_PHASE_MODE_COUNT || (unsigned)dtype >= PFNN_DTYPE_COUNT || !net->sets)
        return false;
    return net->has_mode[mode] && (dtype == PFNN_F32 || net->has_f16);
}

size_t pfnn_mode_bytes(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype)
{
    if (!pfnn_has_mode(net, mode, dtype))
        return 0;
    return net->mode_bytes[mode][dtype];
}

size_t pfnn_bytes_per_inference(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype)
{
    if (!pfnn_has_mode(net, mode, dtype))
        return 0;
    static const int sets_read[PFNN_PHASE_MODE_COUNT] = {1, 2, PFNN_CONTROL_POINTS};
    return net->mode_bytes[mode][dtype] / (size_t)k_mode_sets[mode] * (size_t)sets_read[mode];
}

/* ---------------------------------------------------------------- running */

bool pfnn_workspace_init(pfnn_workspace_t *ws, const pfnn_network_t *net)
{
    memset(ws, 0, sizeof *ws);
    const size_t n = round_up((size_t)net->n_in, PFNN_PANEL_ROWS) + (size_t)net->out_pad[0] + (size_t)net->out_pad[1] +
                     (size_t)net->out_pad[2];
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

void pfnn_workspace_free(pfnn_workspace_t *ws)
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

bool pfnn_validate(const pfnn_job_t *job)
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
static void layer_run(const pfnn_network_t *net, int l, const int *sets, const float *c, int n, pfnn_dtype_t dtype,
                      pfnn_isa_t isa, const float *x, float *out)
{
    bool first = true;
    for (int j = 0; j < n; j++) {
        /* Control points with a zero Catmull-Rom weight add nothing. */
        if (c[j] == 0.0f)
            continue;
        const pfnn_weights_t *s = &net->sets[sets[j]];
        pfnn_kern_gemv(isa, dtype, s->w32[l], s->w16[l], s->b[l], x, net->in[l], net->out_pad[l], c[j], !first, out);
        first = false;
    }
}

int pfnn_phase_terms(const pfnn_network_t *net, pfnn_mode_t mode, float phase, int sets[PFNN_CONTROL_POINTS],
                     float c[PFNN_CONTROL_POINTS])
{
    const double u = phase_unit(phase);
    if (!isfinite(u)) {
        /* A non-finite phase has no slice or control points: a NaN weight
         * on the mode's first set makes every output NaN (propagated,
         * never hidden, and never an index computed from NaN). */
        sets[0] = mode_base(net, mode);
        c[0] = NAN;
        return 1;
    }
    switch (mode) {
    case PFNN_PHASE_CONSTANT: {
        /* Nearest slice (the original demo floors; rounding halves the error). */
        int s = (int)lround(u * PFNN_CONSTANT_SLICES) % PFNN_CONSTANT_SLICES;
        sets[0] = net->const_base + s;
        c[0] = 1.0f;
        return 1;
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
        return 2;
    }
    default: {
        double cd[PFNN_CONTROL_POINTS];
        coeffs_at(u * PFNN_CONTROL_POINTS, cd);
        for (int k = 0; k < PFNN_CONTROL_POINTS; k++) {
            sets[k] = k;
            c[k] = (float)cd[k];
        }
        return PFNN_CONTROL_POINTS;
    }
    }
}

void pfnn_run_unchecked(const pfnn_job_t *job)
{
    const pfnn_network_t *net = job->net;
    pfnn_workspace_t *ws = job->ws;
    const pfnn_isa_t isa = pfnn_isa_resolve(job->isa, job->dtype);
    int sets[PFNN_CONTROL_POINTS];
    float c[PFNN_CONTROL_POINTS];
    const int n = pfnn_phase_terms(net, job->mode, job->phase, sets, c);

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

bool pfnn_run(const pfnn_job_t *job)
{
    if (!pfnn_validate(job))
        return false;
    pfnn_run_unchecked(job);
    return true;
}
