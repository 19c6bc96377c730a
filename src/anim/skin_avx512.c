/* skin_avx512: the AVX-512 kernels of skin.c's LBS-matrix and DQS methods,
 * one non-inlined copy per (influences, normals/tangents, index width), and
 * skin_avx512_kernel(), which picks one. skin.c chooses them where
 * skin_isa_supported(SKIN_ISA_AVX512) (cpuid and XCR0). They read the palette
 * skin_prepare() laid out (LBS: the columns (x y z 0) of a joint in one
 * 64-byte line, so a joint is one load; DQS: 8 floats per joint) and give the
 * same bits for every vertex whatever the split into ranges: every lane runs
 * the same arithmetic, in blocks of 16 vertices.
 * What makes them faster than the AVX2 kernels, besides the width:
 * - LBS blends a vertex's matrix as one register (k multiply-adds, not 2k),
 *   then turns four vertices' matrices into columns across vertices, C0 =
 *   (c0 of a | c0 of b | c0 of c | c0 of d), with eight 128-bit lane
 *   shuffles; three multiply-adds then transform four points at once, and
 *   normals and tangents reuse the same columns.
 * - Inputs come in as whole 64-byte loads and are spread by one permute per
 *   coordinate; outputs leave packed in three 64-byte stores per attribute
 *   and block (two-source permutes, no per-vertex stores).
 * - DQS blends in SoA: each influence's dual quaternions of 16 vertices are
 *   transposed to 8 registers, so the hemisphere test, the blend, the
 *   normalisation and the rigid transform run on 16 vertices an instruction.
 * - The last, short block uses masked loads and stores (no scalar tail, no
 *   read or write past an array); its weights and joint indices are staged
 *   into 16-vertex buffers by masked loads, zero past the end.
 * Gathers are not used: a vertex reads whole joint rows, so 16 joint loads
 * plus lane shuffles cost less than 12 (LBS) or 8 (DQS) 16-element gathers.
 * Compiled per function with target attributes; on other CPUs or compilers
 * (!SKIN_X86) there is nothing here.
 */
#include "anim/skin.h"
#include "anim/skin_internal.h"

#include <stddef.h>
#include <stdint.h>

#if SKIN_X86
#include <immintrin.h>

#define SKIN512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")))
#define SKIN512_INLINE SKIN512 static inline __attribute__((always_inline))

/* Vertices per block, and per group of a block (four groups of four). */
#define SKIN512_BLOCK 16

/* The job's arrays, copied into locals: stores may alias anything as far as
 * the compiler knows, so fields read through the job would be reloaded. */
typedef struct skin512_arrays_t {
    const float *pos, *nrm, *tan, *w;
    const uint8_t *j8;
    const uint16_t *j16;
    float *opos, *onrm, *otan;
    const float (*cols)[SKIN_COLS_FLOATS];
    const float (*dq)[8];
    bool prenorm;
} skin512_arrays_t;

static skin512_arrays_t skin512_arrays(const skin_ctx_t *c)
{
    const skin_job_t *j = c->job;
    return (skin512_arrays_t){.pos = j->positions,
                              .nrm = j->normals,
                              .tan = j->tangents,
                              .w = j->weights,
                              .j8 = j->joints_u8,
                              .j16 = j->joints_u16,
                              .opos = j->out_positions,
                              .onrm = j->out_normals,
                              .otan = j->out_tangents,
                              .cols = c->prep->u.cols,
                              .dq = c->prep->u.dq,
                              .prenorm = j->prenormalized};
}

/* Joint I of lane L; uint16 indices past the palette land on the zero entry
 * (skin_validate() is O(1) and does not check them: the clamp is the bounds
 * check; uint8 indices always land inside the padded palette). */
SKIN512_INLINE unsigned skin512_joint(const uint8_t *j8, const uint16_t *j16, size_t l, int i, const bool u16)
{
    unsigned x = u16 ? j16[4 * l + i] : j8[4 * l + i];
    return u16 && x > SKIN_MAX_JOINTS ? SKIN_MAX_JOINTS : x;
}

/* The low N (0..16) bits. */
SKIN512_INLINE __mmask16 skin512_mask(int n) { return (__mmask16)(n <= 0 ? 0u : n >= 16 ? 0xFFFFu : (1u << n) - 1u); }

/* 16 floats at SRC + FIRST of an array of which N floats from SRC are
 * readable: a plain load when the block is FULL, else a masked one (zeros
 * past the end; no pointer is formed past the array). */
SKIN512_INLINE __m512 skin512_load(const float *src, int first, int n, const bool full)
{
    if (full)
        return _mm512_loadu_ps(src + first);
    if (n <= first)
        return _mm512_setzero_ps();
    return _mm512_maskz_loadu_ps(skin512_mask(n - first), src + first);
}

SKIN512_INLINE void skin512_store(float *dst, int first, int n, __m512 x, const bool full)
{
    if (full)
        _mm512_storeu_ps(dst + first, x);
    else if (n > first)
        _mm512_mask_storeu_ps(dst + first, skin512_mask(n - first), x);
}

/* The weights and joint indices of a short block of COUNT vertices from V0,
 * staged by masked loads into 16-vertex buffers (zero past COUNT: joint 0
 * with weight 0, finite and never stored). */
typedef struct skin512_stage_t {
    _Alignas(64) float w[4 * SKIN512_BLOCK];
    _Alignas(64) uint16_t j16[4 * SKIN512_BLOCK];
    _Alignas(64) uint8_t j8[4 * SKIN512_BLOCK];
} skin512_stage_t;

SKIN512_INLINE void skin512_stage(const skin512_arrays_t *a, size_t v0, int count, const bool weights, const bool u16,
                                  skin512_stage_t *s)
{
    int n = 4 * count;
    if (weights)
        for (int g = 0; g < 4; g++)
            _mm512_store_ps(s->w + 16 * g, skin512_load(a->w + 4 * v0, 16 * g, n, false));
    if (u16) {
        const uint16_t *src = a->j16 + 4 * v0;
        __mmask32 lo = (__mmask32)(n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1u);
        _mm512_store_si512((void *)s->j16, _mm512_maskz_loadu_epi16(lo, src));
        __m512i hi = _mm512_setzero_si512();
        if (n > 32)
            hi = _mm512_maskz_loadu_epi16((__mmask32)((1u << (n - 32)) - 1u), src + 32);
        _mm512_store_si512((void *)(s->j16 + 32), hi);
    } else {
        __mmask64 m = n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        _mm512_store_si512((void *)s->j8, _mm512_maskz_loadu_epi8(m, a->j8 + 4 * v0));
    }
}

/* x (3 - len2 x^2) / 2 from the 14-bit estimate x: one Newton step, about 23
 * bits, as the AVX2 kernels' rsqrt. */
SKIN512_INLINE __m512 skin512_rsqrt(__m512 len2)
{
    __m512 e = _mm512_rsqrt14_ps(len2);
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), e),
                         _mm512_fnmadd_ps(_mm512_mul_ps(len2, e), e, _mm512_set1_ps(3.0f)));
}

/* ---- LBS: four groups of four vertices per block. A group's vectors are
 * one register, (x y z 0) per 128-bit lane and vertex. */

/* Index vectors of the permutes, loaded once per range. */
typedef struct skin512_lbs_idx_t {
    /* A group's 12 packed xyz floats to coordinate C broadcast over its
     * vertex's lane: IN[C]. */
    __m512i in[3];
    /* Packed output register S (floats 16 S ..) from groups S and S + 1. */
    __m512i pack[3];
    /* A tangent group (x y z w per lane) to x, y, z broadcast per lane. */
    __m512i tan[3];
} skin512_lbs_idx_t;

static const int32_t k_lbs_in[3][16] __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 3, 3, 3, 3, 6, 6, 6, 6, 9, 9, 9, 9},
    {1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 7, 7, 10, 10, 10, 10},
    {2, 2, 2, 2, 5, 5, 5, 5, 8, 8, 8, 8, 11, 11, 11, 11},
};

static const int32_t k_lbs_pack[3][16] __attribute__((aligned(64))) = {
    {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20},
    {5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25},
    {10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30},
};

static const int32_t k_lbs_tan[3][16] __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12},
    {1, 1, 1, 1, 5, 5, 5, 5, 9, 9, 9, 9, 13, 13, 13, 13},
    {2, 2, 2, 2, 6, 6, 6, 6, 10, 10, 10, 10, 14, 14, 14, 14},
};

SKIN512_INLINE skin512_lbs_idx_t skin512_lbs_idx(void)
{
    skin512_lbs_idx_t x;
    for (int i = 0; i < 3; i++) {
        x.in[i] = _mm512_load_si512((const void *)k_lbs_in[i]);
        x.pack[i] = _mm512_load_si512((const void *)k_lbs_pack[i]);
        x.tan[i] = _mm512_load_si512((const void *)k_lbs_tan[i]);
    }
    return x;
}

/* A group's 12 floats from SRC + FIRST, of which N from SRC are readable. */
SKIN512_INLINE __m512 skin512_load12(const float *src, int first, int n, const bool full)
{
    if (full)
        return _mm512_maskz_loadu_ps(0x0FFF, src + first);
    if (n <= first)
        return _mm512_setzero_ps();
    return _mm512_maskz_loadu_ps(skin512_mask(n - first) & 0x0FFF, src + first);
}

/* Vertex L's blended matrix, columns (c0 | c1 | c2 | c3): one joint row for
 * one influence (its weight, 1, is not read), else K multiply-adds. */
SKIN512_INLINE __m512 skin512_blend(const skin512_arrays_t *a, const float *w, const uint8_t *j8, const uint16_t *j16,
                                    size_t l, const int k, const bool u16)
{
    __m512 m = _mm512_load_ps(a->cols[skin512_joint(j8, j16, l, 0, u16)]);
    if (k == 1)
        return m;
    m = _mm512_mul_ps(_mm512_set1_ps(w[4 * l]), m);
#pragma GCC unroll 4
    for (int i = 1; i < k; i++)
        m = _mm512_fmadd_ps(_mm512_set1_ps(w[4 * l + i]), _mm512_load_ps(a->cols[skin512_joint(j8, j16, l, i, u16)]),
                            m);
    return m;
}

/* Per 128-bit lane: X scaled to unit length over its (x y z 0). */
SKIN512_INLINE __m512 skin512_normalize_lanes(__m512 x)
{
    __m512 sq = _mm512_mul_ps(x, x);
    __m512 s = _mm512_add_ps(sq, _mm512_permute_ps(sq, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm512_add_ps(s, _mm512_permute_ps(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_mul_ps(x, skin512_rsqrt(s));
}

/* Skins one block of COUNT (16 when FULL) vertices from V0. W, J8/J16 point
 * at the block's weights and indices (the caller's, or staged). */
SKIN512_INLINE void skin512_lbs_block(const skin512_arrays_t *a, const skin512_lbs_idx_t *ix, size_t v0, const float *w,
                                      const uint8_t *j8, const uint16_t *j16, int count, const int k, const bool nrm,
                                      const bool tan, const bool prenorm, const bool u16, const bool full)
{
    /* Truncated weights (K < 4, renormalising) blend as given; the position
     * is then scaled by 1 / their sum (directions are renormalised anyway). */
    const bool renorm_w = !prenorm && k > 1 && k < SKIN_MAX_INFLUENCES;
    const bool renorm_dir = !prenorm;
    const float *pos = a->pos + 3 * v0, *nv = nrm ? a->nrm + 3 * v0 : NULL;
    const float *tv = tan ? a->tan + 4 * v0 : NULL;
    float *op = a->opos + 3 * v0, *on = nrm ? a->onrm + 3 * v0 : NULL;
    int n3 = 3 * count, n4 = 4 * count;
    /* Group by group, so that few registers stay live: each group's output
     * register is packed with the previous group's and stored. */
    __m512 pprev = _mm512_setzero_ps(), nprev = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        size_t l = 4 * (size_t)g;
        __m512 ma = skin512_blend(a, w, j8, j16, l, k, u16);
        __m512 mb = skin512_blend(a, w, j8, j16, l + 1, k, u16);
        __m512 mc = skin512_blend(a, w, j8, j16, l + 2, k, u16);
        __m512 md = skin512_blend(a, w, j8, j16, l + 3, k, u16);
        /* (a.c0 a.c1 b.c0 b.c1), (a.c2 a.c3 b.c2 b.c3), the same of c, d. */
        __m512 t0 = _mm512_shuffle_f32x4(ma, mb, _MM_SHUFFLE(1, 0, 1, 0));
        __m512 t1 = _mm512_shuffle_f32x4(ma, mb, _MM_SHUFFLE(3, 2, 3, 2));
        __m512 t2 = _mm512_shuffle_f32x4(mc, md, _MM_SHUFFLE(1, 0, 1, 0));
        __m512 t3 = _mm512_shuffle_f32x4(mc, md, _MM_SHUFFLE(3, 2, 3, 2));
        __m512 c0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
        __m512 c1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
        __m512 c2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
        __m512 c3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
        __m512 in = skin512_load12(pos, 12 * g, n3, full);
        __m512 x = _mm512_permutexvar_ps(ix->in[0], in);
        __m512 y = _mm512_permutexvar_ps(ix->in[1], in);
        __m512 z = _mm512_permutexvar_ps(ix->in[2], in);
        __m512 r = _mm512_fmadd_ps(c2, z, _mm512_fmadd_ps(c1, y, _mm512_fmadd_ps(c0, x, c3)));
        if (renorm_w) {
            /* 1 / (w0 + .. + w(k-1)) per vertex lane: the estimate plus one
             * Newton step, e (2 - sum e), about 23 bits. */
            __m512 wg = _mm512_loadu_ps(w + 16 * g);
            __m512 sum = _mm512_add_ps(_mm512_permute_ps(wg, 0x00), _mm512_permute_ps(wg, 0x55));
            if (k == 3)
                sum = _mm512_add_ps(sum, _mm512_permute_ps(wg, 0xAA));
            __m512 e = _mm512_rcp14_ps(sum);
            r = _mm512_mul_ps(r, _mm512_mul_ps(e, _mm512_fnmadd_ps(sum, e, _mm512_set1_ps(2.0f))));
        }
        if (g > 0)
            skin512_store(op, 16 * (g - 1), n3, _mm512_permutex2var_ps(pprev, ix->pack[g - 1], r), full);
        pprev = r;
        if (nrm) {
            in = skin512_load12(nv, 12 * g, n3, full);
            x = _mm512_permutexvar_ps(ix->in[0], in);
            y = _mm512_permutexvar_ps(ix->in[1], in);
            z = _mm512_permutexvar_ps(ix->in[2], in);
            r = _mm512_fmadd_ps(c2, z, _mm512_fmadd_ps(c1, y, _mm512_mul_ps(c0, x)));
            if (renorm_dir)
                r = skin512_normalize_lanes(r);
            if (g > 0)
                skin512_store(on, 16 * (g - 1), n3, _mm512_permutex2var_ps(nprev, ix->pack[g - 1], r), full);
            nprev = r;
        }
        if (tan) {
            /* A group's 4 tangents are one register; w (handedness) rides along. */
            __m512 ti = skin512_load(tv, 16 * g, n4, full);
            x = _mm512_permutexvar_ps(ix->tan[0], ti);
            y = _mm512_permutexvar_ps(ix->tan[1], ti);
            z = _mm512_permutexvar_ps(ix->tan[2], ti);
            r = _mm512_fmadd_ps(c2, z, _mm512_fmadd_ps(c1, y, _mm512_mul_ps(c0, x)));
            if (renorm_dir)
                r = skin512_normalize_lanes(r);
            skin512_store(a->otan + 4 * v0, 16 * g, n4, _mm512_mask_blend_ps(0x8888, r, ti), full);
        }
    }
}

SKIN512_INLINE void skin512_lbs_range(const skin512_arrays_t *a, size_t begin, size_t end, const int k, const bool nrm,
                                      const bool tan, const bool prenorm, const bool u16)
{
    const skin512_lbs_idx_t ix = skin512_lbs_idx();
    size_t v0 = begin;
    for (; v0 + SKIN512_BLOCK <= end; v0 += SKIN512_BLOCK)
        skin512_lbs_block(a, &ix, v0, a->w + 4 * v0, u16 ? NULL : a->j8 + 4 * v0, u16 ? a->j16 + 4 * v0 : NULL,
                          SKIN512_BLOCK, k, nrm, tan, prenorm, u16, true);
    if (v0 >= end)
        return;
    skin512_stage_t s;
    int count = (int)(end - v0);
    /* Weights are read for 2..4 influences only (one kept weight is 1). */
    skin512_stage(a, v0, count, k > 1, u16, &s);
    skin512_lbs_block(a, &ix, v0, s.w, s.j8, s.j16, count, k, nrm, tan, prenorm, u16, false);
}

SKIN512_INLINE void skin512_lbs_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                       const bool tan, const bool u16)
{
    const skin512_arrays_t a = skin512_arrays(c);
    /* Both weightings compiled in, so the block loop tests no flag. */
    if (a.prenorm)
        skin512_lbs_range(&a, (size_t)begin, (size_t)end, k, nrm, tan, true, u16);
    else
        skin512_lbs_range(&a, (size_t)begin, (size_t)end, k, nrm, tan, false, u16);
}

/* ---- DQS: 16 vertices in SoA, one register per component. The blend, the
 * normalisation and the transform run in the scalar reference's operation
 * order (multiply, then add; no FMA), as the SSE2 and AVX2 kernels do. */

/* 8 x 16 <-> 16 x 8 and 3- and 4-float AoS <-> SoA index vectors. */
typedef struct skin512_dq_idx_t {
    __m512i soa3_a[3], soa3_b[3]; /* 48 packed xyz floats -> x, y, z */
    __m512i aos3_a[3], aos3_b[3]; /* x, y, z -> 48 packed floats */
    __m512i soa4_xy, soa4_zw;     /* two registers of 4 xyzw vertices -> (x | y), (z | w) of 8 */
    __m512i aos4;                 /* (x | y) and (z | w) of 8 -> 4 xyzw vertices */
} skin512_dq_idx_t;

static const int32_t k_soa3_a[3][16] __attribute__((aligned(64))) = {
    {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0},
    {1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0},
    {2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0},
};
static const int32_t k_soa3_b[3][16] __attribute__((aligned(64))) = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31},
};
static const int32_t k_aos3_a[3][16] __attribute__((aligned(64))) = {
    {0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
    {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
    {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0},
};
static const int32_t k_aos3_b[3][16] __attribute__((aligned(64))) = {
    {0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15},
    {0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15},
    {26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31},
};
static const int32_t k_soa4_xy[16]
    __attribute__((aligned(64))) = {0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29};
static const int32_t k_soa4_zw[16]
    __attribute__((aligned(64))) = {2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31};
static const int32_t k_aos4[16]
    __attribute__((aligned(64))) = {0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27};

SKIN512_INLINE skin512_dq_idx_t skin512_dq_idx(void)
{
    skin512_dq_idx_t x;
    for (int i = 0; i < 3; i++) {
        x.soa3_a[i] = _mm512_load_si512((const void *)k_soa3_a[i]);
        x.soa3_b[i] = _mm512_load_si512((const void *)k_soa3_b[i]);
        x.aos3_a[i] = _mm512_load_si512((const void *)k_aos3_a[i]);
        x.aos3_b[i] = _mm512_load_si512((const void *)k_aos3_b[i]);
    }
    x.soa4_xy = _mm512_load_si512((const void *)k_soa4_xy);
    x.soa4_zw = _mm512_load_si512((const void *)k_soa4_zw);
    x.aos4 = _mm512_load_si512((const void *)k_aos4);
    return x;
}

/* 16 packed xyz vectors (3 registers) as x, y, z of 16 lanes. */
SKIN512_INLINE void skin512_soa3(const skin512_dq_idx_t *ix, const __m512 in[3], __m512 out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(in[0], ix->soa3_a[c], in[1]), ix->soa3_b[c], in[2]);
}

SKIN512_INLINE void skin512_aos3(const skin512_dq_idx_t *ix, const __m512 in[3], __m512 out[3])
{
    for (int s = 0; s < 3; s++)
        out[s] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(in[0], ix->aos3_a[s], in[1]), ix->aos3_b[s], in[2]);
}

/* 16 xyzw vectors (4 registers) as x, y, z, w of 16 lanes, and back. */
SKIN512_INLINE void skin512_soa4(const skin512_dq_idx_t *ix, const __m512 in[4], __m512 out[4])
{
    __m512 xy01 = _mm512_permutex2var_ps(in[0], ix->soa4_xy, in[1]);
    __m512 xy23 = _mm512_permutex2var_ps(in[2], ix->soa4_xy, in[3]);
    __m512 zw01 = _mm512_permutex2var_ps(in[0], ix->soa4_zw, in[1]);
    __m512 zw23 = _mm512_permutex2var_ps(in[2], ix->soa4_zw, in[3]);
    out[0] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm512_shuffle_f32x4(zw01, zw23, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm512_shuffle_f32x4(zw01, zw23, _MM_SHUFFLE(3, 2, 3, 2));
}

SKIN512_INLINE void skin512_aos4(const skin512_dq_idx_t *ix, const __m512 in[4], __m512 out[4])
{
    /* (x | y) and (z | w) of vertices 0-7, then 8-15. */
    __m512 xy0 = _mm512_shuffle_f32x4(in[0], in[1], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 xy1 = _mm512_shuffle_f32x4(in[0], in[1], _MM_SHUFFLE(3, 2, 3, 2));
    __m512 zw0 = _mm512_shuffle_f32x4(in[2], in[3], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 zw1 = _mm512_shuffle_f32x4(in[2], in[3], _MM_SHUFFLE(3, 2, 3, 2));
    __m512i four = _mm512_set1_epi32(4);
    out[0] = _mm512_permutex2var_ps(xy0, ix->aos4, zw0);
    out[1] = _mm512_permutex2var_ps(xy0, _mm512_add_epi32(ix->aos4, four), zw0);
    out[2] = _mm512_permutex2var_ps(xy1, ix->aos4, zw1);
    out[3] = _mm512_permutex2var_ps(xy1, _mm512_add_epi32(ix->aos4, four), zw1);
}

/* Influence I's dual quaternions of the block's 16 vertices, real x y z w
 * then dual x y z w of 16 lanes each: rows (v | v + 4) and (v + 8 | v + 12)
 * in registers, transposed in-lane as 8 x 8 blocks, and the 128-bit lanes
 * picked back into vertex order. */
SKIN512_INLINE void skin512_dq_rows(const skin512_arrays_t *a, const uint8_t *j8, const uint16_t *j16, int i,
                                    const bool u16, __m512 out[8])
{
    __m512 z[8];
    for (int l = 0; l < 4; l++) {
        const float *lo = a->dq[skin512_joint(j8, j16, (size_t)l, i, u16)];
        const float *hi = a->dq[skin512_joint(j8, j16, (size_t)l + 4, i, u16)];
        z[l] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(lo)), _mm256_load_ps(hi), 1);
        lo = a->dq[skin512_joint(j8, j16, (size_t)l + 8, i, u16)];
        hi = a->dq[skin512_joint(j8, j16, (size_t)l + 12, i, u16)];
        z[4 + l] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(lo)), _mm256_load_ps(hi), 1);
    }
    __m512 tt[8];
    for (int h = 0; h < 2; h++) {
        __m512 t0 = _mm512_unpacklo_ps(z[4 * h], z[4 * h + 1]), t1 = _mm512_unpackhi_ps(z[4 * h], z[4 * h + 1]);
        __m512 t2 = _mm512_unpacklo_ps(z[4 * h + 2], z[4 * h + 3]);
        __m512 t3 = _mm512_unpackhi_ps(z[4 * h + 2], z[4 * h + 3]);
        tt[4 * h] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        tt[4 * h + 1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        tt[4 * h + 2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        tt[4 * h + 3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int c = 0; c < 4; c++) {
        out[c] = _mm512_shuffle_f32x4(tt[c], tt[4 + c], _MM_SHUFFLE(2, 0, 2, 0));
        out[4 + c] = _mm512_shuffle_f32x4(tt[c], tt[4 + c], _MM_SHUFFLE(3, 1, 3, 1));
    }
}

/* v' = v + 2 u x (u x v + w v) for 16 lanes; same order as SKIN_QROT. */
SKIN512_INLINE void skin512_qrot(const __m512 r[4], const __m512 in[3], __m512 out[3])
{
#define M_ _mm512_mul_ps
#define A_ _mm512_add_ps
#define S_ _mm512_sub_ps
    __m512 two = _mm512_set1_ps(2.0f);
    __m512 cx = A_(S_(M_(r[1], in[2]), M_(r[2], in[1])), M_(r[3], in[0]));
    __m512 cy = A_(S_(M_(r[2], in[0]), M_(r[0], in[2])), M_(r[3], in[1]));
    __m512 cz = A_(S_(M_(r[0], in[1]), M_(r[1], in[0])), M_(r[3], in[2]));
    out[0] = A_(in[0], M_(two, S_(M_(r[1], cz), M_(r[2], cy))));
    out[1] = A_(in[1], M_(two, S_(M_(r[2], cx), M_(r[0], cz))));
    out[2] = A_(in[2], M_(two, S_(M_(r[0], cy), M_(r[1], cx))));
}

SKIN512_INLINE void skin512_dqs_block(const skin512_arrays_t *a, const skin512_dq_idx_t *ix, size_t v0, const float *w,
                                      const uint8_t *j8, const uint16_t *j16, int count, const int k, const bool nrm,
                                      const bool tan, const bool u16, const bool full)
{
    /* The kept weights of 16 vertices, as skin_weights() gives them. */
    __m512 wk[4];
    if (k > 1) {
        __m512 win[4];
        for (int g = 0; g < 4; g++)
            win[g] = _mm512_loadu_ps(w + 16 * g);
        skin512_soa4(ix, win, wk);
        if (!a->prenorm && k < SKIN_MAX_INFLUENCES) {
            __m512 sum = wk[0];
            for (int i = 1; i < k; i++)
                sum = _mm512_add_ps(sum, wk[i]);
            __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum);
            for (int i = 0; i < k; i++)
                wk[i] = _mm512_mul_ps(wk[i], inv);
        }
    }
    /* Blend in the hemisphere of influence 0 (dot of real parts < 0: the
     * weight is negated, as in the scalar). */
    __m512 b[8], q0[8];
    skin512_dq_rows(a, j8, j16, 0, u16, q0);
    for (int e = 0; e < 8; e++)
        b[e] = k == 1 ? q0[e] : _mm512_mul_ps(wk[0], q0[e]);
    for (int i = 1; i < k; i++) {
        __m512 qi[8];
        skin512_dq_rows(a, j8, j16, i, u16, qi);
        __m512 dot = A_(A_(A_(M_(q0[0], qi[0]), M_(q0[1], qi[1])), M_(q0[2], qi[2])), M_(q0[3], qi[3]));
        __mmask16 neg = _mm512_cmp_ps_mask(dot, _mm512_setzero_ps(), _CMP_LT_OQ);
        __m512 ws = _mm512_mask_sub_ps(wk[i], neg, _mm512_setzero_ps(), wk[i]);
        for (int e = 0; e < 8; e++)
            b[e] = A_(b[e], M_(ws, qi[e]));
    }
    __m512 len2 = A_(A_(A_(M_(b[0], b[0]), M_(b[1], b[1])), M_(b[2], b[2])), M_(b[3], b[3]));
    __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(len2));
    __m512 r[4], d[4];
    for (int e = 0; e < 4; e++) {
        r[e] = M_(b[e], inv);
        d[e] = M_(b[4 + e], inv);
    }
    __m512 two = _mm512_set1_ps(2.0f);
    __m512 t[3] = {M_(two, S_(A_(S_(M_(r[3], d[0]), M_(d[3], r[0])), M_(r[1], d[2])), M_(r[2], d[1]))),
                   M_(two, S_(A_(S_(M_(r[3], d[1]), M_(d[3], r[1])), M_(r[2], d[0])), M_(r[0], d[2]))),
                   M_(two, S_(A_(S_(M_(r[3], d[2]), M_(d[3], r[2])), M_(r[0], d[1])), M_(r[1], d[0])))};
    int n3 = 3 * count, n4 = 4 * count;
    __m512 in[4], soa[4], out[4];
    for (int s = 0; s < 3; s++)
        in[s] = skin512_load(a->pos + 3 * v0, 16 * s, n3, full);
    skin512_soa3(ix, in, soa);
    skin512_qrot(r, soa, out);
    for (int c = 0; c < 3; c++)
        out[c] = A_(out[c], t[c]);
    skin512_aos3(ix, out, in);
    for (int s = 0; s < 3; s++)
        skin512_store(a->opos + 3 * v0, 16 * s, n3, in[s], full);
    if (nrm) {
        for (int s = 0; s < 3; s++)
            in[s] = skin512_load(a->nrm + 3 * v0, 16 * s, n3, full);
        skin512_soa3(ix, in, soa);
        skin512_qrot(r, soa, out);
        skin512_aos3(ix, out, in);
        for (int s = 0; s < 3; s++)
            skin512_store(a->onrm + 3 * v0, 16 * s, n3, in[s], full);
    }
    if (tan) {
        for (int g = 0; g < 4; g++)
            in[g] = skin512_load(a->tan + 4 * v0, 16 * g, n4, full);
        skin512_soa4(ix, in, soa);
        skin512_qrot(r, soa, out);
        /* w (handedness) rides along unchanged. */
        out[3] = soa[3];
        skin512_aos4(ix, out, in);
        for (int g = 0; g < 4; g++)
            skin512_store(a->otan + 4 * v0, 16 * g, n4, in[g], full);
    }
}
#undef M_
#undef A_
#undef S_

SKIN512_INLINE void skin512_dqs_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                       const bool tan, const bool u16)
{
    const skin512_arrays_t a = skin512_arrays(c);
    const skin512_dq_idx_t ix = skin512_dq_idx();
    size_t v0 = (size_t)begin, e = (size_t)end;
    for (; v0 + SKIN512_BLOCK <= e; v0 += SKIN512_BLOCK)
        skin512_dqs_block(&a, &ix, v0, a.w + 4 * v0, u16 ? NULL : a.j8 + 4 * v0, u16 ? a.j16 + 4 * v0 : NULL,
                          SKIN512_BLOCK, k, nrm, tan, u16, true);
    if (v0 >= e)
        return;
    skin512_stage_t s;
    int count = (int)(e - v0);
    skin512_stage(&a, v0, count, k > 1, u16, &s);
    skin512_dqs_block(&a, &ix, v0, s.w, s.j8, s.j16, count, k, nrm, tan, u16, false);
}

/* One non-inlined copy of KERNEL per (influences K, attributes NT: 0
 * positions, 1 + normals, 2 + tangents, index width W), so the block loop has
 * no flag tests. */
#define SKIN512_V(P, KERNEL, K, NT, W)                                                                                 \
    SKIN512 static void P##_##K##_##NT##_##W(const skin_ctx_t *c, int b, int e)                                        \
    {                                                                                                                  \
        KERNEL(c, b, e, K, (NT) >= 1, (NT) >= 2, (W) != 0);                                                            \
    }
#define SKIN512_V_W(P, KERNEL, K, NT) SKIN512_V(P, KERNEL, K, NT, 0) SKIN512_V(P, KERNEL, K, NT, 1)
#define SKIN512_V_NT(P, KERNEL, K)                                                                                     \
    SKIN512_V_W(P, KERNEL, K, 0) SKIN512_V_W(P, KERNEL, K, 1) SKIN512_V_W(P, KERNEL, K, 2)
#define SKIN512_T_NT(P, K)                                                                                             \
    {                                                                                                                  \
        {P##_##K##_0_0, P##_##K##_0_1}, {P##_##K##_1_0, P##_##K##_1_1}, { P##_##K##_2_0, P##_##K##_2_1 }               \
    }
#define SKIN512_VARIANTS(P, KERNEL)                                                                                    \
    SKIN512_V_NT(P, KERNEL, 1)                                                                                         \
    SKIN512_V_NT(P, KERNEL, 2)                                                                                         \
    SKIN512_V_NT(P, KERNEL, 3)                                                                                         \
    SKIN512_V_NT(P, KERNEL, 4)                                                                                         \
    static const skin_range_fn_t P##_table[4][3][2] = {SKIN512_T_NT(P, 1), SKIN512_T_NT(P, 2), SKIN512_T_NT(P, 3),     \
                                                       SKIN512_T_NT(P, 4)};

SKIN512_VARIANTS(skin512_lbs, skin512_lbs_kernel)
SKIN512_VARIANTS(skin512_dqs, skin512_dqs_kernel)

skin_range_fn_t skin_avx512_kernel(const skin_job_t *job)
{
    int k = job->influences - 1;
    int nt = job->tangents ? 2 : job->normals ? 1 : 0;
    int w = job->joints_u16 ? 1 : 0;
    return job->method == SKIN_LBS_MATRIX ? skin512_lbs_table[k][nt][w] : skin512_dqs_table[k][nt][w];
}

#endif /* SKIN_X86 */
