/* sample_cull_avx512: sample_cull_triangles() sixteen triangles at a time
 * on AVX-512 (F and BW), picked at run time by sample_cull.c where the CPU
 * and the OS have it. Each lane makes the scalar loop's decision with the
 * scalar loop's operations in its order (no fused multiply-adds: the
 * target enables none), so the kept triangles are the same, bit for bit
 * (test_sample_cull holds it).
 *
 * A block: the 48 indices of 16 triangles are split into their first,
 * second and third corners; the corners' centre ranges are gathered (a
 * record's first and last columns and rows are one 32-bit word each: the
 * column in the low half), reduced with 16-bit min/max and compared; the
 * back-face test gathers the window positions. The kept triangles' indices
 * are compressed out of the block in their order.
 */
#include "render/sample_cull_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stddef.h>

#define CULL512 __attribute__((target("avx512f,avx512bw")))

/* Bit k of a triangle mask, three times: bits 3k, 3k+1, 3k+2 (the three
 * indices of triangle k in the block's 48): every bit moved to every third
 * place (as a Morton code spreads a coordinate), then tripled. */
static uint64_t spread3(uint32_t m)
{
    uint64_t x = m & 0xFFFFu;
    x = (x | x << 32) & 0x001F00000000FFFFull;
    x = (x | x << 16) & 0x001F0000FF0000FFull;
    x = (x | x << 8) & 0x100F00F00F00F00Full;
    x = (x | x << 4) & 0x10C30C30C30C30C3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x | x << 1 | x << 2;
}

/* Where lane i of corner K (0, 1, 2) of a block lies: at 3i + K of the
 * 48 indices, first looked up in the first two vectors (positions below
 * 32; others take lane 0 there), then, for those past them, in the third
 * (16 + place in it; others keep lane i of the first lookup). */
static const int32_t FROM_AB[3][16] = {
    {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0},
    {1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0},
    {2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0},
};
static const int32_t FROM_C[3][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31},
};

/* Corner K of the block's 16 triangles (indices A, B, C in order). */
CULL512 static __m512i corner(__m512i a, __m512i b, __m512i c, int k)
{
    __m512i t = _mm512_permutex2var_epi32(a, _mm512_loadu_si512(FROM_AB[k]), b);
    return _mm512_permutex2var_epi32(t, _mm512_loadu_si512(FROM_C[k]), c);
}

/* -X, the sign bit flipped (as the scalar loop's unary minus). */
CULL512 static __m512 neg(__m512 x)
{
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
}

CULL512 uint32_t sample_cull_triangles_avx512(const sample_cull_vertex_t *projected, bool cull_back,
                                              const uint32_t *indices, uint32_t count, uint32_t *out)
{
    const char *base = (const char *)projected;
    const __m512i signs = _mm512_set1_epi32((int)0x80008000u), low16 = _mm512_set1_epi32(0xFFFF);
    const __m512 slack_per_px = _mm512_set1_ps(SAMPLE_CULL_WINDING_SLACK), slack_min = _mm512_set1_ps(1e-3f);
    uint32_t kept = 0, t = 0;
    for (; t + 48 <= count; t += 48) {
        __m512i v0 = _mm512_loadu_si512(indices + t), v1 = _mm512_loadu_si512(indices + t + 16),
                v2 = _mm512_loadu_si512(indices + t + 32);
        /* Gathers take signed 32-bit offsets: index * 2 at scale 8 is a
         * record's byte offset for indices below 2^30. Larger ones (no
         * mesh has them) go the scalar way. */
        if (_mm512_test_epi32_mask(_mm512_or_si512(v0, _mm512_or_si512(v1, v2)), _mm512_set1_epi32((int)0xC0000000u)) !=
            0) {
            uint32_t n = sample_cull_triangles_scalar(projected, cull_back, indices + t, 48, out + kept);
            kept += n;
            continue;
        }
        __m512i ia = _mm512_slli_epi32(corner(v0, v1, v2, 0), 1);
        __m512i ib = _mm512_slli_epi32(corner(v0, v1, v2, 1), 1);
        __m512i ic = _mm512_slli_epi32(corner(v0, v1, v2, 2), 1);
        const size_t first_at = offsetof(sample_cull_vertex_t, first), last_at = offsetof(sample_cull_vertex_t, last);
        __m512i fa = _mm512_i32gather_epi32(ia, base + first_at, 8),
                fb = _mm512_i32gather_epi32(ib, base + first_at, 8),
                fc = _mm512_i32gather_epi32(ic, base + first_at, 8);
        __m512i la = _mm512_i32gather_epi32(ia, base + last_at, 8), lb = _mm512_i32gather_epi32(ib, base + last_at, 8),
                lc = _mm512_i32gather_epi32(ic, base + last_at, 8);
        __m512i first = _mm512_min_epi16(_mm512_min_epi16(fa, fb), fc);
        __m512i last = _mm512_max_epi16(_mm512_max_epi16(la, lb), lc);
        /* last - first fits in 16 bits (both lie in [-1, 32767]); a
         * negative half is a column or row range holding no centre. */
        __mmask16 keep = (__mmask16)~_mm512_test_epi32_mask(_mm512_sub_epi16(last, first), signs);
        if (cull_back) {
            /* Only where every corner was projected: first column >= 0. */
            __m512i col = _mm512_srai_epi32(_mm512_slli_epi32(_mm512_and_si512(first, low16), 16), 16);
            __mmask16 test = keep & _mm512_cmpge_epi32_mask(col, _mm512_setzero_si512());
            if (test) {
                const size_t x_at = offsetof(sample_cull_vertex_t, x), y_at = offsetof(sample_cull_vertex_t, y);
                __m512 ax = _mm512_i32gather_ps(ia, base + x_at, 8), ay = _mm512_i32gather_ps(ia, base + y_at, 8);
                __m512 bx = _mm512_i32gather_ps(ib, base + x_at, 8), by = _mm512_i32gather_ps(ib, base + y_at, 8);
                __m512 cx = _mm512_i32gather_ps(ic, base + x_at, 8), cy = _mm512_i32gather_ps(ic, base + y_at, 8);
                __m512 ex1 = _mm512_sub_ps(bx, ax), ey1 = _mm512_sub_ps(by, ay);
                __m512 ex2 = _mm512_sub_ps(cx, ax), ey2 = _mm512_sub_ps(cy, ay);
                __m512 area2 = _mm512_sub_ps(_mm512_mul_ps(ex1, ey2), _mm512_mul_ps(ey1, ex2));
                __m512 sum = _mm512_add_ps(
                    _mm512_add_ps(_mm512_add_ps(_mm512_abs_ps(ex1), _mm512_abs_ps(ey1)), _mm512_abs_ps(ex2)),
                    _mm512_abs_ps(ey2));
                __m512 slack = _mm512_add_ps(_mm512_mul_ps(slack_per_px, sum), slack_min);
                __mmask16 clockwise = _mm512_mask_cmp_ps_mask(test, area2, neg(slack), _CMP_LT_OQ);
                keep &= (__mmask16)~clockwise;
            }
        }
        uint64_t m = spread3(keep);
        __mmask16 m0 = (__mmask16)m, m1 = (__mmask16)(m >> 16), m2 = (__mmask16)(m >> 32);
        /* Whole vectors stored: each lands at or before the block's own
         * place in OUT (kept <= t), so within its COUNT indices. */
        _mm512_storeu_si512(out + kept, _mm512_maskz_compress_epi32(m0, v0));
        kept += (uint32_t)__builtin_popcount(m0);
        _mm512_storeu_si512(out + kept, _mm512_maskz_compress_epi32(m1, v1));
        kept += (uint32_t)__builtin_popcount(m1);
        _mm512_storeu_si512(out + kept, _mm512_maskz_compress_epi32(m2, v2));
        kept += (uint32_t)__builtin_popcount(m2);
    }
    return kept + sample_cull_triangles_scalar(projected, cull_back, indices + t, count - t, out + kept);
}

bool sample_cull_has_avx512(void) { return true; }

#else

uint32_t sample_cull_triangles_avx512(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                                      uint32_t count, uint32_t *out)
{
    return sample_cull_triangles_scalar(projected, cull_back, indices, count, out);
}

bool sample_cull_has_avx512(void) { return false; }

#endif
