/* skin_simd: the SSE2 and AVX2 kernels of skin.c's LBS-matrix and DQS
 * methods (LBS points runs scalar only), one non-inlined copy per
 * (influences, normals/tangents, index width), and skin_simd_kernel(), which
 * picks one. They read the palette skin_prepare() laid out and give the same
 * bits for every vertex whatever the split into ranges. Compiled only on
 * x86-64 with GCC or Clang (SKIN_X86).
 */
#include "anim/skin.h"
#include "anim/skin_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if SKIN_X86
#include <immintrin.h>
#endif

/* --------------------------------------------------------- SIMD kernels */
#if SKIN_X86

#define SKIN_INLINE static inline __attribute__((always_inline))

/* Stores the low three lanes of X at DST (no write past DST[2]). */
#define SKIN_STORE3(dst, x)                                                                                            \
    do {                                                                                                               \
        _mm_storel_pi((__m64 *)(void *)(dst), (x));                                                                    \
        _mm_store_ss((dst) + 2, _mm_movehl_ps((x), (x)));                                                              \
    } while (0)

/* The job's arrays, copied into locals: SIMD stores may alias anything as
 * far as the compiler knows, so fields read through the job pointer would be
 * reloaded after every store. */
typedef struct skin_arrays_t {
    const float *pos, *nrm, *tan, *w;
    const uint8_t *j8;
    const uint16_t *j16;
    float *opos, *onrm, *otan;
    const float (*cols)[SKIN_COLS_FLOATS];
    const float (*dup)[SKIN_DUP_FLOATS];
    const float (*dq)[8];
    bool prenorm;
} skin_arrays_t;

SKIN_INLINE skin_arrays_t skin_arrays(const skin_ctx_t *c)
{
    const skin_job_t *j = c->job;
    return (skin_arrays_t){.pos = j->positions,
                           .nrm = j->normals,
                           .tan = j->tangents,
                           .w = j->weights,
                           .j8 = j->joints_u8,
                           .j16 = j->joints_u16,
                           .opos = j->out_positions,
                           .onrm = j->out_normals,
                           .otan = j->out_tangents,
                           .cols = c->prep->u.cols,
                           .dup = c->prep->u.dup,
                           .dq = c->prep->u.dq,
                           .prenorm = j->prenormalized};
}

SKIN_INLINE unsigned skin_joint_a(const skin_arrays_t *a, size_t v, int i, bool u16)
{
    if (u16) {
        unsigned j = a->j16[4 * v + i];
        return j < SKIN_MAX_JOINTS ? j : SKIN_MAX_JOINTS;
    }
    return a->j8[4 * v + i];
}

/* Normalises the xyz of four vectors at once. The reciprocal square root
 * estimate plus one Newton step (about 23 bits) replaces sqrt and divide,
 * which cost about 10% of the whole LBS kernel; the sums of squares run in the
 * scalar reference's order. */
SKIN_INLINE void skin_normalize4(__m128 n[4])
{
    __m128 s0 = _mm_mul_ps(n[0], n[0]), s1 = _mm_mul_ps(n[1], n[1]);
    __m128 s2 = _mm_mul_ps(n[2], n[2]), s3 = _mm_mul_ps(n[3], n[3]);
    __m128 t0 = _mm_unpacklo_ps(s0, s1), t1 = _mm_unpackhi_ps(s0, s1);
    __m128 t2 = _mm_unpacklo_ps(s2, s3), t3 = _mm_unpackhi_ps(s2, s3);
    __m128 xx = _mm_movelh_ps(t0, t2), yy = _mm_movehl_ps(t2, t0), zz = _mm_movelh_ps(t1, t3);
    __m128 len2 = _mm_add_ps(_mm_add_ps(xx, yy), zz);
    __m128 r = _mm_rsqrt_ps(len2);
    /* inv = r (3 - len2 r^2) / 2 */
    __m128 inv = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r),
                            _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(len2, r), r)));
    n[0] = _mm_mul_ps(n[0], _mm_shuffle_ps(inv, inv, 0x00));
    n[1] = _mm_mul_ps(n[1], _mm_shuffle_ps(inv, inv, 0x55));
    n[2] = _mm_mul_ps(n[2], _mm_shuffle_ps(inv, inv, 0xAA));
    n[3] = _mm_mul_ps(n[3], _mm_shuffle_ps(inv, inv, 0xFF));
}

/* Writes the xyz of four vectors as 12 packed floats with three stores. */
SKIN_INLINE void skin_store4x3(float *dst, const __m128 p[4])
{
    __m128 u = _mm_shuffle_ps(p[0], p[1], _MM_SHUFFLE(0, 0, 2, 2));
    _mm_storeu_ps(dst, _mm_shuffle_ps(p[0], u, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(dst + 4, _mm_shuffle_ps(p[1], p[2], _MM_SHUFFLE(1, 0, 2, 1)));
    u = _mm_shuffle_ps(p[2], p[3], _MM_SHUFFLE(0, 0, 2, 2));
    _mm_storeu_ps(dst + 8, _mm_shuffle_ps(u, p[3], _MM_SHUFFLE(2, 1, 2, 0)));
}

/* Loads 4 packed xyz vectors (12 floats) as x, y, z of 4 lanes. */
SKIN_INLINE void skin_load4x3(const float *src, __m128 out[3])
{
    __m128 a = _mm_loadu_ps(src), b = _mm_loadu_ps(src + 4), c = _mm_loadu_ps(src + 8);
    __m128 u = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 2, 2));
    out[0] = _mm_shuffle_ps(a, u, _MM_SHUFFLE(3, 0, 3, 0));
    __m128 v = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));
    __m128 w = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));
    out[1] = _mm_shuffle_ps(v, w, _MM_SHUFFLE(2, 0, 2, 0));
    __m128 x = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));
    __m128 y = _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 3, 0, 0));
    out[2] = _mm_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0));
}

/* Stores x, y, z of 4 lanes as 4 packed xyz vectors (12 floats). */
SKIN_INLINE void skin_store4x3_soa(float *dst, const __m128 in[3])
{
    __m128 t = _mm_unpacklo_ps(in[0], in[1]);
    __m128 u = _mm_shuffle_ps(in[2], in[0], _MM_SHUFFLE(1, 1, 0, 0));
    _mm_storeu_ps(dst, _mm_shuffle_ps(t, u, _MM_SHUFFLE(2, 0, 1, 0)));
    __m128 v = _mm_shuffle_ps(in[1], in[2], _MM_SHUFFLE(1, 1, 1, 1));
    __m128 h = _mm_unpackhi_ps(in[0], in[1]);
    _mm_storeu_ps(dst + 4, _mm_shuffle_ps(v, h, _MM_SHUFFLE(1, 0, 2, 0)));
    __m128 r = _mm_shuffle_ps(in[2], h, _MM_SHUFFLE(3, 2, 3, 2));
    _mm_storeu_ps(dst + 8, _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 3, 2, 0)));
}

/* Vertices go in blocks of SKIN_BLOCK: normals and tangents are normalised
 * four at a time and outputs leave in packed stores. A short last block runs
 * the same per-vertex arithmetic (dummy lanes are computed and dropped), so
 * a vertex's result does not depend on where a thread's range starts. */
#define SKIN_BLOCK 4

/* Normalises and stores the COUNT vertices of one block from V0. */
SKIN_INLINE void skin_store_block(const skin_arrays_t *a, size_t v0, size_t count, bool nrm, bool tan,
                                  __m128 pl[SKIN_BLOCK], __m128 nl[SKIN_BLOCK], __m128 tl[SKIN_BLOCK])
{
    if (nrm && !a->prenorm)
        skin_normalize4(nl);
    if (tan && !a->prenorm)
        skin_normalize4(tl);
    if (count == SKIN_BLOCK) {
        skin_store4x3(a->opos + 3 * v0, pl);
        if (nrm)
            skin_store4x3(a->onrm + 3 * v0, nl);
    } else {
        for (size_t l = 0; l < count; l++) {
            SKIN_STORE3(a->opos + 3 * (v0 + l), pl[l]);
            if (nrm)
                SKIN_STORE3(a->onrm + 3 * (v0 + l), nl[l]);
        }
    }
    if (tan) {
        for (size_t l = 0; l < count; l++) {
            float *dst = a->otan + 4 * (v0 + l);
            /* Tangent w (handedness) rides along unchanged. */
            __m128 w = _mm_load_ss(a->tan + 4 * (v0 + l) + 3);
            __m128 hi = _mm_shuffle_ps(tl[l], w, _MM_SHUFFLE(0, 0, 3, 2));
            _mm_storeu_ps(dst, _mm_shuffle_ps(tl[l], hi, _MM_SHUFFLE(2, 0, 1, 0)));
        }
    }
}

/* Runs VERTEX(a, v, k, nrm, tan, u16, &p, &n, &t) over [BEGIN, END) in blocks,
 * each finished by STORE(a, v0, count, nrm, tan, p[], n[], t[]). */
#define SKIN_BLOCK_LOOP(VERTEX, STORE, a, begin, end, k, nrm, tan, u16)                                                \
    do {                                                                                                               \
        size_t v0_ = (size_t)(begin), end_ = (size_t)(end);                                                            \
        for (; v0_ + SKIN_BLOCK <= end_; v0_ += SKIN_BLOCK) {                                                          \
            __m128 pl_[SKIN_BLOCK], nl_[SKIN_BLOCK], tl_[SKIN_BLOCK];                                                  \
            VERTEX(a, v0_ + 0, k, nrm, tan, u16, &pl_[0], &nl_[0], &tl_[0]);                                           \
            VERTEX(a, v0_ + 1, k, nrm, tan, u16, &pl_[1], &nl_[1], &tl_[1]);                                           \
            VERTEX(a, v0_ + 2, k, nrm, tan, u16, &pl_[2], &nl_[2], &tl_[2]);                                           \
            VERTEX(a, v0_ + 3, k, nrm, tan, u16, &pl_[3], &nl_[3], &tl_[3]);                                           \
            STORE(a, v0_, SKIN_BLOCK, nrm, tan, pl_, nl_, tl_);                                                        \
        }                                                                                                              \
        if (v0_ < end_) {                                                                                              \
            __m128 pl_[SKIN_BLOCK], nl_[SKIN_BLOCK], tl_[SKIN_BLOCK];                                                  \
            for (size_t l_ = 0; l_ < SKIN_BLOCK; l_++)                                                                 \
                pl_[l_] = nl_[l_] = tl_[l_] = _mm_set1_ps(1.0f);                                                       \
            for (size_t l_ = 0; v0_ + l_ < end_; l_++)                                                                 \
                VERTEX(a, v0_ + l_, k, nrm, tan, u16, &pl_[l_], &nl_[l_], &tl_[l_]);                                   \
            STORE(a, v0_, end_ - v0_, nrm, tan, pl_, nl_, tl_);                                                        \
        }                                                                                                              \
    } while (0)

SKIN_INLINE __m128 skin_sse2_xform3(__m128 c0, __m128 c1, __m128 c2, const float *x)
{
    __m128 o = _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(x[0])), _mm_mul_ps(c1, _mm_set1_ps(x[1])));
    return _mm_add_ps(o, _mm_mul_ps(c2, _mm_set1_ps(x[2])));
}

/* SSE2: each column (x y z 0) of the blended matrix is one register. The
 * blend and the transform run in the scalar kernel's order (same bits); only
 * the normalisation differs (see skin_normalize4). */
SKIN_INLINE void skin_lbs_sse2_vertex(const skin_arrays_t *a, size_t v, const int k, const bool nrm, const bool tan,
                                      const bool u16, __m128 *po, __m128 *no, __m128 *to)
{
    float w[4];
    skin_weights(a->w + 4 * v, k, a->prenorm, w);
    const float *m = a->cols[skin_joint_a(a, v, 0, u16)];
    __m128 wi = _mm_set1_ps(w[0]);
    __m128 c0 = _mm_mul_ps(wi, _mm_load_ps(m));
    __m128 c1 = _mm_mul_ps(wi, _mm_load_ps(m + 4));
    __m128 c2 = _mm_mul_ps(wi, _mm_load_ps(m + 8));
    __m128 c3 = _mm_mul_ps(wi, _mm_load_ps(m + 12));
    for (int i = 1; i < k; i++) {
        m = a->cols[skin_joint_a(a, v, i, u16)];
        wi = _mm_set1_ps(w[i]);
        c0 = _mm_add_ps(c0, _mm_mul_ps(wi, _mm_load_ps(m)));
        c1 = _mm_add_ps(c1, _mm_mul_ps(wi, _mm_load_ps(m + 4)));
        c2 = _mm_add_ps(c2, _mm_mul_ps(wi, _mm_load_ps(m + 8)));
        c3 = _mm_add_ps(c3, _mm_mul_ps(wi, _mm_load_ps(m + 12)));
    }
    *po = _mm_add_ps(skin_sse2_xform3(c0, c1, c2, a->pos + 3 * v), c3);
    if (nrm)
        *no = skin_sse2_xform3(c0, c1, c2, a->nrm + 3 * v);
    if (tan)
        *to = skin_sse2_xform3(c0, c1, c2, a->tan + 4 * v);
}

SKIN_INLINE void skin_lbs_sse2_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                      const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_BLOCK_LOOP(skin_lbs_sse2_vertex, skin_store_block, &a, begin, end, k, nrm, tan, u16);
}

#define SKIN_AVX2 __attribute__((target("avx2,fma")))

/* AVX2+FMA: the blended matrix is two registers, columns (0|1) and (2|3);
 * x' = c0 x + c1 y + c2 z + c3 LAST, as (c0 x | c1 y) + (c2 z | c3 LAST). */
SKIN_AVX2 SKIN_INLINE __m128 skin_avx2_xform(__m256 a, __m256 b, const float *x, __m256 last)
{
    __m256 xy = _mm256_blend_ps(_mm256_broadcast_ss(x), _mm256_broadcast_ss(x + 1), 0xF0);
    __m256 zl = _mm256_blend_ps(_mm256_broadcast_ss(x + 2), last, 0xF0);
    __m256 r = _mm256_fmadd_ps(a, xy, _mm256_mul_ps(b, zl));
    return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}

SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_vertex(const skin_arrays_t *a, size_t v, const int k, const bool nrm,
                                                const bool tan, const bool u16, __m128 *po, __m128 *no, __m128 *to)
{
    __m256 wv[SKIN_MAX_INFLUENCES];
    if (a->prenorm ? k > 1 : k == SKIN_MAX_INFLUENCES) {
        /* Weights as given: broadcast straight from memory. */
        for (int i = 0; i < k; i++)
            wv[i] = _mm256_broadcast_ss(a->w + 4 * v + i);
    } else {
        float w[4];
        skin_weights(a->w + 4 * v, k, a->prenorm, w);
        for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
            wv[i] = _mm256_set1_ps(w[i]);
    }
    const float *m = a->cols[skin_joint_a(a, v, 0, u16)];
    __m256 c01 = _mm256_mul_ps(wv[0], _mm256_load_ps(m));
    __m256 c23 = _mm256_mul_ps(wv[0], _mm256_load_ps(m + 8));
    for (int i = 1; i < k; i++) {
        m = a->cols[skin_joint_a(a, v, i, u16)];
        c01 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m), c01);
        c23 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m + 8), c23);
    }
    *po = skin_avx2_xform(c01, c23, a->pos + 3 * v, _mm256_set1_ps(1.0f));
    if (nrm)
        *no = skin_avx2_xform(c01, c23, a->nrm + 3 * v, _mm256_setzero_ps());
    if (tan)
        *to = skin_avx2_xform(c01, c23, a->tan + 4 * v, _mm256_setzero_ps());
}

/* AVX2 version of skin_store_block: normals and tangents are transposed to
 * x, y, z of four lanes, normalised there (squares summed with FMA) unless
 * prenormalized, and written straight from that layout. */
SKIN_AVX2 SKIN_INLINE void skin_normalize4_soa(__m128 v[4], bool normalize, __m128 out[3])
{
    __m128 t0 = _mm_unpacklo_ps(v[0], v[1]), t1 = _mm_unpackhi_ps(v[0], v[1]);
    __m128 t2 = _mm_unpacklo_ps(v[2], v[3]), t3 = _mm_unpackhi_ps(v[2], v[3]);
    __m128 x = _mm_movelh_ps(t0, t2), y = _mm_movehl_ps(t2, t0), z = _mm_movelh_ps(t1, t3);
    if (!normalize) {
        out[0] = x;
        out[1] = y;
        out[2] = z;
        return;
    }
    __m128 len2 = _mm_fmadd_ps(z, z, _mm_fmadd_ps(y, y, _mm_mul_ps(x, x)));
    __m128 r = _mm_rsqrt_ps(len2);
    /* inv = r (3 - len2 r^2) / 2 */
    __m128 inv = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r), _mm_fnmadd_ps(_mm_mul_ps(len2, r), r, _mm_set1_ps(3.0f)));
    out[0] = _mm_mul_ps(x, inv);
    out[1] = _mm_mul_ps(y, inv);
    out[2] = _mm_mul_ps(z, inv);
}

SKIN_AVX2 SKIN_INLINE void skin_store_block_avx2(const skin_arrays_t *a, size_t v0, size_t count, bool nrm, bool tan,
                                                 __m128 pl[SKIN_BLOCK], __m128 nl[SKIN_BLOCK], __m128 tl[SKIN_BLOCK])
{
    __m128 n3[3], t3[3];
    if (nrm)
        skin_normalize4_soa(nl, !a->prenorm, n3);
    if (tan)
        skin_normalize4_soa(tl, !a->prenorm, t3);
    if (count == SKIN_BLOCK) {
        skin_store4x3(a->opos + 3 * v0, pl);
        if (nrm)
            skin_store4x3_soa(a->onrm + 3 * v0, n3);
    } else {
        float tmp[12];
        skin_store4x3(tmp, pl);
        memcpy(a->opos + 3 * v0, tmp, sizeof(float) * 3 * count);
        if (nrm) {
            skin_store4x3_soa(tmp, n3);
            memcpy(a->onrm + 3 * v0, tmp, sizeof(float) * 3 * count);
        }
    }
    if (tan) {
        float tmp[12];
        skin_store4x3_soa(tmp, t3);
        for (size_t l = 0; l < count; l++) {
            float *dst = a->otan + 4 * (v0 + l);
            memcpy(dst, tmp + 3 * l, sizeof(float) * 3);
            /* Tangent w (handedness) rides along unchanged. */
            dst[3] = a->tan[4 * (v0 + l) + 3];
        }
    }
}

/* ---- AVX2 LBS kernel for positions and normals (no tangents), one variant
 * per influence count K. Vertices go in blocks of 8; the transform of a
 * point is three FMAs of the blended matrix's columns c0, c1, c2 by its x,
 * y, z (broadcast by in-lane shuffles), starting from the translation c3.
 * K = 1 (rigid): one register holds a vertex's position and normal, (x y z _
 * | nx ny nz _). The palette is prepared with each column doubled, (c0|c0)
 * (c1|c1) (c2|c2) (c3|0) (SKIN_LAYOUT_DUP), so the matrix is four loads and
 * no arithmetic, and one transform moves both (the translation meets the
 * position only). The weight is not read: the renormalised single weight is
 * w / w = 1.
 * K = 2..4: the palette holds (c0|c1) (c2|c3); each vertex's blend is two
 * FMAs per influence. One register then holds the positions of two vertices
 * of the block, L and L + 4, and another their normals: the columns of the
 * two blended matrices are paired by two in-lane inserts and two lane
 * permutes ((c0 of L | c0 of L + 4), ...), half the lane moves of doubling
 * each vertex's columns. Truncated weights (K < 4, not prenormalized) are
 * blended as given and the skinned position is scaled by 1 / their sum.
 * Each 4 registers are then packed into xyz order by in-lane shuffles
 * (normals renormalised on the way unless prenormalized), and a block's
 * positions and normals leave in three 32-byte stores each (this CPU family
 * commits one store per cycle to alternating lines, so packing halves the
 * count of per-vertex 16-byte stores). A 16-byte load of a vertex's xyz
 * reads one float past it, so the block that holds the array's last vertex
 * runs on padded copies (same arithmetic, same bits). */
#define SKIN_BLOCK8 8

/* Hides X's value from the compiler: GCC turns vshufps of a register with
 * itself into vpermilps, which recent Intel cores run on one port, not two. */
#define SKIN_OPAQUE(x) __asm__("" : "+x"(x))

/* Joint I of lane L; uint16 indices are clamped onto the zero entry:
 * skin_validate() is O(1) and does not check them, so the clamp is the
 * bounds check. */
SKIN_INLINE unsigned skin_lane_joint(const uint8_t *j8, const uint16_t *j16, size_t l, int i, const bool u16)
{
    unsigned x = u16 ? j16[4 * l + i] : j8[4 * l + i];
    return u16 && x > SKIN_MAX_JOINTS ? SKIN_MAX_JOINTS : x;
}

/* C0..C2 times the x, y, z of each half of IN, plus C3. */
SKIN_AVX2 SKIN_INLINE __m256 skin_avx2_xform3(__m256 c0, __m256 c1, __m256 c2, __m256 c3, __m256 in)
{
    __m256 in2 = in;
    SKIN_OPAQUE(in2);
    __m256 r = _mm256_fmadd_ps(c0, _mm256_shuffle_ps(in, in2, 0x00), c3);
    r = _mm256_fmadd_ps(c1, _mm256_shuffle_ps(in, in2, 0x55), r);
    return _mm256_fmadd_ps(c2, _mm256_shuffle_ps(in, in2, 0xAA), r);
}

/* One influence: lane L's (position | normal). POS, NRM, J8/J16 point at
 * the block's first vertex. */
SKIN_AVX2 SKIN_INLINE __m256 skin_avx2_rigid(const skin_arrays_t *a, const float *pos, const float *nrm,
                                             const uint8_t *j8, const uint16_t *j16, size_t l, const bool has_nrm,
                                             const bool u16)
{
    const float *m = a->dup[skin_lane_joint(j8, j16, l, 0, u16)];
    __m256 in = has_nrm ? _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(pos + 3 * l)),
                                               _mm_loadu_ps(nrm + 3 * l), 1)
                        : _mm256_broadcast_ps((const __m128 *)(const void *)(pos + 3 * l));
    return skin_avx2_xform3(_mm256_load_ps(m), _mm256_load_ps(m + 8), _mm256_load_ps(m + 16), _mm256_load_ps(m + 24),
                            in);
}

/* K >= 2: lane L's blended columns (c0|c1), (c2|c3), weights as given, and
 * the weights' sum in every lane of *WSUM. */
SKIN_AVX2 SKIN_INLINE void skin_avx2_blend(const skin_arrays_t *a, const float *w, const uint8_t *j8,
                                           const uint16_t *j16, size_t l, const int k, const bool u16, __m256 *c01,
                                           __m256 *c23, __m256 *wsum)
{
    const float *wl = w + 4 * l;
    const float *m = a->cols[skin_lane_joint(j8, j16, l, 0, u16)];
    __m256 wi = _mm256_broadcast_ss(wl);
    __m256 b01 = _mm256_mul_ps(wi, _mm256_load_ps(m));
    __m256 b23 = _mm256_mul_ps(wi, _mm256_load_ps(m + 8));
    __m256 sum = wi;
    for (int i = 1; i < k; i++) {
        m = a->cols[skin_lane_joint(j8, j16, l, i, u16)];
        wi = _mm256_broadcast_ss(wl + i);
        b01 = _mm256_fmadd_ps(wi, _mm256_load_ps(m), b01);
        b23 = _mm256_fmadd_ps(wi, _mm256_load_ps(m + 8), b23);
        sum = _mm256_add_ps(sum, wi);
    }
    *c01 = b01;
    *c23 = b23;
    *wsum = sum;
}

/* Two xyz vectors, at X and Y, as the two halves of a register. */
SKIN_AVX2 SKIN_INLINE __m256 skin_avx2_load_pair(const float *x, const float *y)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(x)), _mm_loadu_ps(y), 1);
}

/* K >= 2: lanes L and L + 4 skinned, positions (p of L | p of L + 4) into
 * *P and normals into *N. RENORM_W: positions scaled by 1 / the weights' sum. */
SKIN_AVX2 SKIN_INLINE void skin_avx2_pair(const skin_arrays_t *a, const float *pos, const float *nrm, const float *w,
                                          const uint8_t *j8, const uint16_t *j16, size_t l, const int k,
                                          const bool has_nrm, const bool renorm_w, const bool u16, __m256 *p, __m256 *n)
{
    __m256 a01, a23, b01, b23, asum, bsum;
    skin_avx2_blend(a, w, j8, j16, l, k, u16, &a01, &a23, &asum);
    skin_avx2_blend(a, w, j8, j16, l + 4, k, u16, &b01, &b23, &bsum);
    __m256 c0 = _mm256_insertf128_ps(a01, _mm256_castps256_ps128(b01), 1);
    __m256 c1 = _mm256_permute2f128_ps(a01, b01, 0x31);
    __m256 c2 = _mm256_insertf128_ps(a23, _mm256_castps256_ps128(b23), 1);
    __m256 c3 = _mm256_permute2f128_ps(a23, b23, 0x31);
    __m256 pp = skin_avx2_xform3(c0, c1, c2, c3, skin_avx2_load_pair(pos + 3 * l, pos + 3 * (l + 4)));
    if (renorm_w) {
        /* 1 / sum: the estimate plus one Newton step, e (2 - sum e), about 23 bits. */
        __m256 sum = _mm256_blend_ps(asum, bsum, 0xF0);
        __m256 e = _mm256_rcp_ps(sum);
        pp = _mm256_mul_ps(pp, _mm256_mul_ps(e, _mm256_fnmadd_ps(sum, e, _mm256_set1_ps(2.0f))));
    }
    *p = pp;
    if (has_nrm)
        *n = skin_avx2_xform3(c0, c1, c2, _mm256_setzero_ps(), skin_avx2_load_pair(nrm + 3 * l, nrm + 3 * (l + 4)));
}

/* Packs the xyz (lanes 0-2) of each half of 4 registers into xyz order, per
 * half: OUT = (x0 y0 z0 x1) (y1 z1 x2 y2) (z2 x3 y3 z3). */
SKIN_AVX2 SKIN_INLINE void skin_avx2_pack4(const __m256 r[4], __m256 out[3])
{
    __m256 u = _mm256_shuffle_ps(r[0], r[1], _MM_SHUFFLE(0, 0, 2, 2));
    out[0] = _mm256_shuffle_ps(r[0], u, _MM_SHUFFLE(2, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(r[1], r[2], _MM_SHUFFLE(1, 0, 2, 1));
    u = _mm256_shuffle_ps(r[2], r[3], _MM_SHUFFLE(0, 0, 2, 2));
    out[2] = _mm256_shuffle_ps(u, r[3], _MM_SHUFFLE(2, 1, 2, 0));
}

/* skin_avx2_pack4 with the vectors of the high halves (and of the low ones:
 * BOTH) renormalised: the registers are transposed to x, y, z of 4 lanes per
 * half, scaled there by 1 / length, and packed from that layout. */
SKIN_AVX2 SKIN_INLINE void skin_avx2_normalize_pack4(const __m256 r[4], const bool both, __m256 out[3])
{
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 len2 = _mm256_fmadd_ps(z, z, _mm256_fmadd_ps(y, y, _mm256_mul_ps(x, x)));
    __m256 e = _mm256_rsqrt_ps(len2);
    /* 1 / sqrt(len2) = e (3 - len2 e^2) / 2: one Newton step, about 23 bits. */
    __m256 inv = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), e),
                               _mm256_fnmadd_ps(_mm256_mul_ps(len2, e), e, _mm256_set1_ps(3.0f)));
    __m256 scale = both ? inv : _mm256_blend_ps(_mm256_set1_ps(1.0f), inv, 0xF0);
    x = _mm256_mul_ps(x, scale);
    y = _mm256_mul_ps(y, scale);
    z = _mm256_mul_ps(z, scale);
    __m256 xy = _mm256_unpacklo_ps(x, y);
    __m256 zx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));
    out[0] = _mm256_shuffle_ps(xy, zx, _MM_SHUFFLE(2, 0, 1, 0));
    __m256 yz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));
    __m256 xy2 = _mm256_unpackhi_ps(x, y);
    out[1] = _mm256_shuffle_ps(yz, xy2, _MM_SHUFFLE(1, 0, 2, 0));
    __m256 zz = _mm256_shuffle_ps(z, xy2, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(zz, zz, _MM_SHUFFLE(1, 3, 2, 0));
}

/* Stores 24 packed floats from S, whose halves hold the packed xyz of
 * vertices 0-3 (low) and 4-7 (high). */
SKIN_AVX2 SKIN_INLINE void skin_avx2_store_halves(float *dst, const __m256 s[3])
{
    _mm256_storeu_ps(dst, _mm256_insertf128_ps(s[0], _mm256_castps256_ps128(s[1]), 1));
    _mm256_storeu_ps(dst + 8, _mm256_blend_ps(s[2], s[0], 0xF0));
    _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(s[1], s[2], 0x31));
}

/* Skins the 8 vertices whose inputs start at POS, NRM (3 floats each, plus
 * one readable float after the last), W, J8/J16; writes 24 floats to OPOS
 * (and ONRM). The code is written out per register, without loops over
 * arrays of registers: GCC otherwise keeps them on the stack. */
SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_block8(const skin_arrays_t *a, const float *pos, const float *nrm,
                                                const float *w, const uint8_t *j8, const uint16_t *j16, const int k,
                                                const bool has_nrm, const bool prenorm, const bool u16, float *opos,
                                                float *onrm)
{
    const bool renorm_n = has_nrm && !prenorm;
    __m256 r[4], lo[3], hi[3];
    if (k == 1) {
        /* (p|n) of vertices 0-3, then 4-7. */
#define SKIN_RIGID(l) skin_avx2_rigid(a, pos, nrm, j8, j16, (l), has_nrm, u16)
        r[0] = SKIN_RIGID(0);
        r[1] = SKIN_RIGID(1);
        r[2] = SKIN_RIGID(2);
        r[3] = SKIN_RIGID(3);
        if (renorm_n)
            skin_avx2_normalize_pack4(r, false, lo);
        else
            skin_avx2_pack4(r, lo);
        r[0] = SKIN_RIGID(4);
        r[1] = SKIN_RIGID(5);
        r[2] = SKIN_RIGID(6);
        r[3] = SKIN_RIGID(7);
#undef SKIN_RIGID
        if (renorm_n)
            skin_avx2_normalize_pack4(r, false, hi);
        else
            skin_avx2_pack4(r, hi);
        /* Low halves: positions of 0-3 (LO) and 4-7 (HI); high: normals. */
        _mm256_storeu_ps(opos, _mm256_insertf128_ps(lo[0], _mm256_castps256_ps128(lo[1]), 1));
        _mm256_storeu_ps(opos + 8, _mm256_insertf128_ps(lo[2], _mm256_castps256_ps128(hi[0]), 1));
        _mm256_storeu_ps(opos + 16, _mm256_insertf128_ps(hi[1], _mm256_castps256_ps128(hi[2]), 1));
        if (has_nrm) {
            _mm256_storeu_ps(onrm, _mm256_permute2f128_ps(lo[0], lo[1], 0x31));
            _mm256_storeu_ps(onrm + 8, _mm256_permute2f128_ps(lo[2], hi[0], 0x31));
            _mm256_storeu_ps(onrm + 16, _mm256_permute2f128_ps(hi[1], hi[2], 0x31));
        }
        return;
    }
    /* Positions (p of l | p of l + 4) into R, normals into N. */
    const bool renorm_w = !prenorm && k < SKIN_MAX_INFLUENCES;
    __m256 n[4];
#define SKIN_PAIR(l) skin_avx2_pair(a, pos, nrm, w, j8, j16, (l), k, has_nrm, renorm_w, u16, &r[l], &n[l])
    SKIN_PAIR(0);
    SKIN_PAIR(1);
    SKIN_PAIR(2);
    SKIN_PAIR(3);
#undef SKIN_PAIR
    skin_avx2_pack4(r, lo);
    skin_avx2_store_halves(opos, lo);
    if (has_nrm) {
        if (renorm_n)
            skin_avx2_normalize_pack4(n, true, hi);
        else
            skin_avx2_pack4(n, hi);
        skin_avx2_store_halves(onrm, hi);
    }
}

/* Runs skin_lbs_avx2_block8 over [BEGIN, END) of a job of N vertices. */
SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_blocks(const skin_arrays_t *a, size_t n, size_t begin, size_t end, const int k,
                                                const bool nrm, const bool prenorm, const bool u16)
{
    size_t v0 = begin;
    /* Full blocks whose 16-byte loads stay inside the arrays. */
    for (; v0 + SKIN_BLOCK8 <= end && v0 + SKIN_BLOCK8 < n; v0 += SKIN_BLOCK8)
        skin_lbs_avx2_block8(a, a->pos + 3 * v0, nrm ? a->nrm + 3 * v0 : NULL, a->w + 4 * v0,
                             u16 ? NULL : a->j8 + 4 * v0, u16 ? a->j16 + 4 * v0 : NULL, k, nrm, prenorm, u16,
                             a->opos + 3 * v0, nrm ? a->onrm + 3 * v0 : NULL);
    if (v0 >= end)
        return;
    /* The range's or the array's last block (1..8 vertices): padded copies,
     * the pad lanes repeating the last vertex (finite results, never stored). */
    size_t count = end - v0;
    float ip[3 * SKIN_BLOCK8 + 1] = {0}, in[3 * SKIN_BLOCK8 + 1] = {0}, iw[4 * SKIN_BLOCK8];
    float op[3 * SKIN_BLOCK8], on[3 * SKIN_BLOCK8];
    uint8_t j8[4 * SKIN_BLOCK8] = {0};
    uint16_t j16[4 * SKIN_BLOCK8] = {0};
    for (size_t l = 0; l < SKIN_BLOCK8; l++) {
        size_t v = v0 + (l < count ? l : count - 1);
        memcpy(ip + 3 * l, a->pos + 3 * v, sizeof(float) * 3);
        if (nrm)
            memcpy(in + 3 * l, a->nrm + 3 * v, sizeof(float) * 3);
        memcpy(iw + 4 * l, a->w + 4 * v, sizeof(float) * 4);
        if (u16)
            memcpy(j16 + 4 * l, a->j16 + 4 * v, sizeof(uint16_t) * 4);
        else
            memcpy(j8 + 4 * l, a->j8 + 4 * v, sizeof(uint8_t) * 4);
    }
    skin_lbs_avx2_block8(a, ip, in, iw, j8, j16, k, nrm, prenorm, u16, op, on);
    memcpy(a->opos + 3 * v0, op, sizeof(float) * 3 * count);
    if (nrm)
        memcpy(a->onrm + 3 * v0, on, sizeof(float) * 3 * count);
}

SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                                const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    if (tan) {
        SKIN_BLOCK_LOOP(skin_lbs_avx2_vertex, skin_store_block_avx2, &a, begin, end, k, nrm, tan, u16);
        return;
    }
    size_t n = (size_t)c->job->vertex_count;
    /* Both weightings compiled in, so the block loop tests no flag. */
    if (a.prenorm)
        skin_lbs_avx2_blocks(&a, n, (size_t)begin, (size_t)end, k, nrm, true, u16);
    else
        skin_lbs_avx2_blocks(&a, n, (size_t)begin, (size_t)end, k, nrm, false, u16);
}

/* ---- DQS in SIMD: each vertex blends its dual quaternions in registers;
 * blocks of four vertices are then transposed so that normalisation and the
 * rigid transform run on four vertices per instruction (SoA). The transform
 * mirrors the scalar reference's operation order (mul/add, no FMA). */

/* Hemisphere signs: lane i of the result is W[i], negated when the real part
 * of influence i points away from influence 0's (dot < 0, as in the scalar). */
SKIN_INLINE __m128 skin_dq_signed_weights(__m128 w, const __m128 r[4])
{
    __m128 p0 = _mm_mul_ps(r[0], r[0]), p1 = _mm_mul_ps(r[0], r[1]);
    __m128 p2 = _mm_mul_ps(r[0], r[2]), p3 = _mm_mul_ps(r[0], r[3]);
    __m128 t0 = _mm_unpacklo_ps(p0, p1), t1 = _mm_unpackhi_ps(p0, p1);
    __m128 t2 = _mm_unpacklo_ps(p2, p3), t3 = _mm_unpackhi_ps(p2, p3);
    __m128 x = _mm_movelh_ps(t0, t2), y = _mm_movehl_ps(t2, t0);
    __m128 z = _mm_movelh_ps(t1, t3), ww = _mm_movehl_ps(t3, t1);
    __m128 dot = _mm_add_ps(_mm_add_ps(_mm_add_ps(x, y), z), ww);
    __m128 neg = _mm_and_ps(_mm_cmplt_ps(dot, _mm_setzero_ps()), _mm_set1_ps(-0.0f));
    return _mm_xor_ps(w, neg);
}

/* The kept (renormalised) weights and joint rows of vertex V; influences
 * past K repeat influence 0 with weight 0 and are never blended. */
SKIN_INLINE __m128 skin_dq_inputs(const skin_arrays_t *a, size_t v, const int k, const bool u16, const float *q[4])
{
    float w[4];
    skin_weights(a->w + 4 * v, k, a->prenorm, w);
    for (int i = 0; i < 4; i++)
        q[i] = a->dq[skin_joint_a(a, v, i < k ? i : 0, u16)];
    __m128 r[4] = {_mm_load_ps(q[0]), _mm_load_ps(q[1]), _mm_load_ps(q[2]), _mm_load_ps(q[3])};
    return skin_dq_signed_weights(_mm_loadu_ps(w), r);
}

/* SoA block: 4 vertices, real (rx..rw) and dual (dx..dw) parts, unnormalised. */
typedef struct skin_dq4_t {
    __m128 r[4], d[4];
} skin_dq4_t;

/* v' = v + 2 u x (u x v + w v) for 4 lanes; same order as SKIN_QROT. */
SKIN_INLINE void skin_qrot4(const __m128 r[4], const __m128 in[3], __m128 out[3])
{
#define M_ _mm_mul_ps
#define A_ _mm_add_ps
#define S_ _mm_sub_ps
    __m128 two = _mm_set1_ps(2.0f);
    __m128 cx = A_(S_(M_(r[1], in[2]), M_(r[2], in[1])), M_(r[3], in[0]));
    __m128 cy = A_(S_(M_(r[2], in[0]), M_(r[0], in[2])), M_(r[3], in[1]));
    __m128 cz = A_(S_(M_(r[0], in[1]), M_(r[1], in[0])), M_(r[3], in[2]));
    out[0] = A_(in[0], M_(two, S_(M_(r[1], cz), M_(r[2], cy))));
    out[1] = A_(in[1], M_(two, S_(M_(r[2], cx), M_(r[0], cz))));
    out[2] = A_(in[2], M_(two, S_(M_(r[0], cy), M_(r[1], cx))));
}

/* Normalises, transforms and stores one block of 4 vertices. POS/NRM hold
 * 12 floats, TAN 16 (as do the outputs). */
SKIN_INLINE void skin_dq_block(skin_dq4_t *q, const float *pos, const float *nrm, const float *tan, bool has_nrm,
                               bool has_tan, float *opos, float *onrm, float *otan)
{
    __m128 *r = q->r, *d = q->d;
    __m128 len2 = A_(A_(A_(M_(r[0], r[0]), M_(r[1], r[1])), M_(r[2], r[2])), M_(r[3], r[3]));
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    for (int i = 0; i < 4; i++) {
        r[i] = M_(r[i], inv);
        d[i] = M_(d[i], inv);
    }
    __m128 two = _mm_set1_ps(2.0f);
    __m128 t[3] = {M_(two, S_(A_(S_(M_(r[3], d[0]), M_(d[3], r[0])), M_(r[1], d[2])), M_(r[2], d[1]))),
                   M_(two, S_(A_(S_(M_(r[3], d[1]), M_(d[3], r[1])), M_(r[2], d[0])), M_(r[0], d[2]))),
                   M_(two, S_(A_(S_(M_(r[3], d[2]), M_(d[3], r[2])), M_(r[0], d[1])), M_(r[1], d[0])))};
    __m128 in[3], out[3];
    skin_load4x3(pos, in);
    skin_qrot4(r, in, out);
    for (int i = 0; i < 3; i++)
        out[i] = A_(out[i], t[i]);
    skin_store4x3_soa(opos, out);
    if (has_nrm) {
        skin_load4x3(nrm, in);
        skin_qrot4(r, in, out);
        skin_store4x3_soa(onrm, out);
    }
    if (has_tan) {
        __m128 t0 = _mm_loadu_ps(tan), t1 = _mm_loadu_ps(tan + 4);
        __m128 t2 = _mm_loadu_ps(tan + 8), t3 = _mm_loadu_ps(tan + 12);
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        in[0] = t0;
        in[1] = t1;
        in[2] = t2;
        skin_qrot4(r, in, out);
        /* t3 (handedness) rides along unchanged. */
        t0 = out[0];
        t1 = out[1];
        t2 = out[2];
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        _mm_storeu_ps(otan, t0);
        _mm_storeu_ps(otan + 4, t1);
        _mm_storeu_ps(otan + 8, t2);
        _mm_storeu_ps(otan + 12, t3);
    }
#undef M_
#undef A_
#undef S_
}

/* Blends lane L of a block with SSE2: two registers per dual quaternion. */
SKIN_INLINE void skin_dq_blend_sse2(const skin_arrays_t *a, size_t v, const int k, const bool u16, __m128 *real,
                                    __m128 *dual)
{
    const float *q[4];
    __m128 w = skin_dq_inputs(a, v, k, u16, q);
    __m128 wi = _mm_shuffle_ps(w, w, 0x00);
    __m128 br = _mm_mul_ps(wi, _mm_load_ps(q[0]));
    __m128 bd = _mm_mul_ps(wi, _mm_load_ps(q[0] + 4));
    if (k > 1) {
        wi = _mm_shuffle_ps(w, w, 0x55);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[1])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[1] + 4)));
    }
    if (k > 2) {
        wi = _mm_shuffle_ps(w, w, 0xAA);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[2])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[2] + 4)));
    }
    if (k > 3) {
        wi = _mm_shuffle_ps(w, w, 0xFF);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[3])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[3] + 4)));
    }
    *real = br;
    *dual = bd;
}

/* Transposes 4 per-vertex (real, dual) pairs into a SoA block. */
SKIN_INLINE void skin_dq_transpose_sse2(__m128 real[4], __m128 dual[4], skin_dq4_t *q)
{
    _MM_TRANSPOSE4_PS(real[0], real[1], real[2], real[3]);
    _MM_TRANSPOSE4_PS(dual[0], dual[1], dual[2], dual[3]);
    for (int i = 0; i < 4; i++) {
        q->r[i] = real[i];
        q->d[i] = dual[i];
    }
}

/* Runs BLOCK_FN(a, v0, count, ...) on full blocks, then on a padded tail
 * copied through small buffers so that the last vertices see the same code. */
#define SKIN_DQ_LOOP(BLEND_BLOCK, a, begin, end, k, nrm, tan, u16)                                                     \
    do {                                                                                                               \
        size_t v0_ = (size_t)(begin), end_ = (size_t)(end);                                                            \
        for (; v0_ + SKIN_BLOCK <= end_; v0_ += SKIN_BLOCK) {                                                          \
            skin_dq4_t q_;                                                                                             \
            BLEND_BLOCK(a, v0_, SKIN_BLOCK, k, u16, &q_);                                                              \
            skin_dq_block(&q_, (a)->pos + 3 * v0_, nrm ? (a)->nrm + 3 * v0_ : NULL, tan ? (a)->tan + 4 * v0_ : NULL,   \
                          nrm, tan, (a)->opos + 3 * v0_, nrm ? (a)->onrm + 3 * v0_ : NULL,                             \
                          tan ? (a)->otan + 4 * v0_ : NULL);                                                           \
        }                                                                                                              \
        if (v0_ < end_) {                                                                                              \
            size_t n_ = end_ - v0_;                                                                                    \
            float ip_[12] = {0}, in_[12] = {0}, it_[16] = {0}, op_[12], on_[12], ot_[16];                              \
            memcpy(ip_, (a)->pos + 3 * v0_, sizeof(float) * 3 * n_);                                                   \
            if (nrm)                                                                                                   \
                memcpy(in_, (a)->nrm + 3 * v0_, sizeof(float) * 3 * n_);                                               \
            if (tan)                                                                                                   \
                memcpy(it_, (a)->tan + 4 * v0_, sizeof(float) * 4 * n_);                                               \
            skin_dq4_t q_;                                                                                             \
            BLEND_BLOCK(a, v0_, n_, k, u16, &q_);                                                                      \
            skin_dq_block(&q_, ip_, in_, it_, nrm, tan, op_, on_, ot_);                                                \
            memcpy((a)->opos + 3 * v0_, op_, sizeof(float) * 3 * n_);                                                  \
            if (nrm)                                                                                                   \
                memcpy((a)->onrm + 3 * v0_, on_, sizeof(float) * 3 * n_);                                              \
            if (tan)                                                                                                   \
                memcpy((a)->otan + 4 * v0_, ot_, sizeof(float) * 4 * n_);                                              \
        }                                                                                                              \
    } while (0)

/* Lanes past COUNT get the identity (no NaN from 0/0; never stored). */
SKIN_INLINE void skin_dq_blend_block_sse2(const skin_arrays_t *a, size_t v0, size_t count, const int k, const bool u16,
                                          skin_dq4_t *q)
{
    __m128 real[4], dual[4];
    for (size_t l = 0; l < SKIN_BLOCK; l++) {
        if (l < count) {
            skin_dq_blend_sse2(a, v0 + l, k, u16, &real[l], &dual[l]);
        } else {
            real[l] = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
            dual[l] = _mm_setzero_ps();
        }
    }
    skin_dq_transpose_sse2(real, dual, q);
}

SKIN_INLINE void skin_dqs_sse2_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                      const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_DQ_LOOP(skin_dq_blend_block_sse2, &a, begin, end, k, nrm, tan, u16);
}

/* AVX2: one register per dual quaternion, FMA accumulation; the 4x8 block
 * transposes with in-lane shuffles into (real | dual) halves. */
SKIN_AVX2 SKIN_INLINE __m256 skin_dq_blend_avx2(const skin_arrays_t *a, size_t v, const int k, const bool u16)
{
    const float *q[4];
    __m128 w = skin_dq_inputs(a, v, k, u16, q);
    __m256 w8 = _mm256_castps128_ps256(w);
    __m256 b = _mm256_mul_ps(_mm256_permutevar8x32_ps(w8, _mm256_set1_epi32(0)), _mm256_load_ps(q[0]));
    for (int i = 1; i < k; i++)
        b = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(w8, _mm256_set1_epi32(i)), _mm256_load_ps(q[i]), b);
    return b;
}

SKIN_AVX2 SKIN_INLINE void skin_dq_blend_block_avx2(const skin_arrays_t *a, size_t v0, size_t count, const int k,
                                                    const bool u16, skin_dq4_t *q)
{
    __m256 b[SKIN_BLOCK];
    for (size_t l = 0; l < SKIN_BLOCK; l++)
        b[l] = l < count ? skin_dq_blend_avx2(a, v0 + l, k, u16)
                         : _mm256_setr_ps(0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    __m256 t0 = _mm256_unpacklo_ps(b[0], b[1]), t1 = _mm256_unpackhi_ps(b[0], b[1]);
    __m256 t2 = _mm256_unpacklo_ps(b[2], b[3]), t3 = _mm256_unpackhi_ps(b[2], b[3]);
    __m256 x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    q->r[0] = _mm256_castps256_ps128(x);
    q->r[1] = _mm256_castps256_ps128(y);
    q->r[2] = _mm256_castps256_ps128(z);
    q->r[3] = _mm256_castps256_ps128(w);
    q->d[0] = _mm256_extractf128_ps(x, 1);
    q->d[1] = _mm256_extractf128_ps(y, 1);
    q->d[2] = _mm256_extractf128_ps(z, 1);
    q->d[3] = _mm256_extractf128_ps(w, 1);
}

SKIN_AVX2 SKIN_INLINE void skin_dqs_avx2_kernel(const skin_ctx_t *c, int begin, int end, const int k, const bool nrm,
                                                const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_DQ_LOOP(skin_dq_blend_block_avx2, &a, begin, end, k, nrm, tan, u16);
}

/* One non-inlined copy of KERNEL per (influences, normals/tangents, index
 * width), so the per-vertex loop has no flag tests. NT: 0 = positions only,
 * 1 = + normals, 2 = + normals and tangents. */
#define SKIN_V(P, ATTR, KERNEL, K, NT, W)                                                                              \
    ATTR static void P##_##K##_##NT##_##W(const skin_ctx_t *c, int b, int e)                                           \
    {                                                                                                                  \
        KERNEL(c, b, e, K, (NT) >= 1, (NT) >= 2, (W) != 0);                                                            \
    }
#define SKIN_V_W(P, ATTR, KERNEL, K, NT) SKIN_V(P, ATTR, KERNEL, K, NT, 0) SKIN_V(P, ATTR, KERNEL, K, NT, 1)
#define SKIN_V_NT(P, ATTR, KERNEL, K)                                                                                  \
    SKIN_V_W(P, ATTR, KERNEL, K, 0) SKIN_V_W(P, ATTR, KERNEL, K, 1) SKIN_V_W(P, ATTR, KERNEL, K, 2)
#define SKIN_T_NT(P, K)                                                                                                \
    {                                                                                                                  \
        {P##_##K##_0_0, P##_##K##_0_1}, {P##_##K##_1_0, P##_##K##_1_1}, { P##_##K##_2_0, P##_##K##_2_1 }               \
    }
#define SKIN_VARIANTS(P, ATTR, KERNEL)                                                                                 \
    SKIN_V_NT(P, ATTR, KERNEL, 1)                                                                                      \
    SKIN_V_NT(P, ATTR, KERNEL, 2)                                                                                      \
    SKIN_V_NT(P, ATTR, KERNEL, 3)                                                                                      \
    SKIN_V_NT(P, ATTR, KERNEL, 4)                                                                                      \
    static const skin_range_fn_t P##_table[4][3][2] = {SKIN_T_NT(P, 1), SKIN_T_NT(P, 2), SKIN_T_NT(P, 3),              \
                                                       SKIN_T_NT(P, 4)};

#define SKIN_NO_ATTR
SKIN_VARIANTS(skin_lbs_sse2, SKIN_NO_ATTR, skin_lbs_sse2_kernel)
SKIN_VARIANTS(skin_lbs_avx2, SKIN_AVX2, skin_lbs_avx2_kernel)
SKIN_VARIANTS(skin_dqs_sse2, SKIN_NO_ATTR, skin_dqs_sse2_kernel)
SKIN_VARIANTS(skin_dqs_avx2, SKIN_AVX2, skin_dqs_avx2_kernel)

skin_range_fn_t skin_simd_kernel(const skin_job_t *job, skin_isa_t isa)
{
    int k = job->influences - 1;
    int nt = job->tangents ? 2 : job->normals ? 1 : 0;
    int w = job->joints_u16 ? 1 : 0;
    bool avx2 = isa == SKIN_ISA_AVX2;
    if (job->method == SKIN_LBS_MATRIX)
        return avx2 ? skin_lbs_avx2_table[k][nt][w] : skin_lbs_sse2_table[k][nt][w];
    return avx2 ? skin_dqs_avx2_table[k][nt][w] : skin_dqs_sse2_table[k][nt][w];
}

#endif /* SKIN_X86 */
