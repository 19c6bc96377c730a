#include "render/sample_cull.h"

#include "core/cpu.h"
#include "render/sample_cull_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

_Static_assert(sizeof(sample_cull_vertex_t) == 16, "a projected vertex is four 32-bit words");

/* The centre range of a window coordinate V on an axis of SIZE pixels:
 * the first centre k + 0.5 at or after V - margin, clamped to [0, size],
 * and the last at or before V + margin, clamped to [-1, size - 1]. The
 * differences are rounded as a box test on the triangle would round them;
 * clamped to [-1, size] first (whole numbers: no result changes), they
 * convert to int exactly, and truncation corrected by one is ceil or floor. */
static void centre_range(float v, int size, int16_t *first, int16_t *last)
{
    float top = (float)size;
    float lo = v - SAMPLE_CULL_MARGIN_PX - 0.5f, hi = v + SAMPLE_CULL_MARGIN_PX - 0.5f;
    lo = lo < -1.0f ? -1.0f : lo > top ? top : lo;
    hi = hi < -1.0f ? -1.0f : hi > top ? top : hi;
    int f = (int)lo, l = (int)hi;
    f += (float)f < lo;
    l -= (float)l > hi;
    *first = (int16_t)(f < 0 ? 0 : f);
    *last = (int16_t)(l > size - 1 ? size - 1 : l);
}

#if defined(__SSE2__)
/* centre_range() on four coordinates at once, the same operations lane by
 * lane (min/max are the clamps, the compares' all-ones masks the +-1
 * corrections). Lanes whose V is not finite give garbage, never a trap. */
static void centre_range4(__m128 v, int size, __m128i *first, __m128i *last)
{
    const __m128 margin = _mm_set1_ps(SAMPLE_CULL_MARGIN_PX), half = _mm_set1_ps(0.5f);
    const __m128 top = _mm_set1_ps((float)size), bottom = _mm_set1_ps(-1.0f);
    __m128 lo = _mm_sub_ps(_mm_sub_ps(v, margin), half), hi = _mm_sub_ps(_mm_add_ps(v, margin), half);
    lo = _mm_max_ps(_mm_min_ps(lo, top), bottom);
    hi = _mm_max_ps(_mm_min_ps(hi, top), bottom);
    __m128i f = _mm_cvttps_epi32(lo), l = _mm_cvttps_epi32(hi);
    f = _mm_sub_epi32(f, _mm_castps_si128(_mm_cmplt_ps(_mm_cvtepi32_ps(f), lo)));
    l = _mm_add_epi32(l, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(l), hi)));
    *first = _mm_andnot_si128(_mm_cmplt_epi32(f, _mm_setzero_si128()), f);
    __m128i cap = _mm_set1_epi32(size - 1), over = _mm_cmpgt_epi32(l, cap);
    *last = _mm_or_si128(_mm_and_si128(over, cap), _mm_andnot_si128(over, l));
}

/* All-ones in the lanes of X that are finite. */
static __m128 finite4(__m128 x) { return _mm_cmplt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), x), _mm_set1_ps(INFINITY)); }

/* Column (low 16 bits) and row (high 16) of each lane, as the record stores them. */
static __m128i pair16(__m128i column, __m128i row)
{
    return _mm_or_si128(_mm_and_si128(column, _mm_set1_epi32(0xFFFF)), _mm_slli_epi32(row, 16));
}

/* sample_cull_project() on the vertices [0, N rounded down to 4), four at a
 * time: the scalar loop's operations in its order, so every record has the
 * same bits. Returns how many it did. */
static uint32_t project4(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         sample_cull_vertex_t *out)
{
    const __m128 hw = _mm_set1_ps(0.5f * (float)width), hh = _mm_set1_ps(0.5f * (float)height);
    const __m128 one = _mm_set1_ps(1.0f), eps = _mm_set1_ps(1e-6f);
    __m128 m[16];
    for (int i = 0; i < 16; i++)
        m[i] = _mm_set1_ps(mvp[i]);
    uint32_t v = 0;
    for (; v + 4 <= n; v += 4) {
        const float *p = positions + 3 * (size_t)v;
        __m128 px = _mm_setr_ps(p[0], p[3], p[6], p[9]);
        __m128 py = _mm_setr_ps(p[1], p[4], p[7], p[10]);
        __m128 pz = _mm_setr_ps(p[2], p[5], p[8], p[11]);
        __m128 x = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0], px), _mm_mul_ps(m[4], py)), _mm_mul_ps(m[8], pz)),
                              m[12]);
        __m128 y = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[1], px), _mm_mul_ps(m[5], py)), _mm_mul_ps(m[9], pz)),
                              m[13]);
        __m128 w = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[3], px), _mm_mul_ps(m[7], py)), _mm_mul_ps(m[11], pz)),
                              m[15]);
        __m128 ok = _mm_and_ps(_mm_cmpgt_ps(w, eps), _mm_and_ps(finite4(x), _mm_and_ps(finite4(y), finite4(w))));
        __m128 iw = _mm_and_ps(ok, _mm_div_ps(one, w));
        __m128 ox = _mm_mul_ps(_mm_add_ps(_mm_mul_ps(x, iw), one), hw);
        __m128 oy = _mm_mul_ps(_mm_add_ps(_mm_mul_ps(y, iw), one), hh);
        __m128i keep = _mm_castps_si128(_mm_and_ps(ok, _mm_and_ps(finite4(ox), finite4(oy))));
        __m128i fx, lx, fy, ly, none = _mm_set1_epi32(-1);
        centre_range4(ox, width, &fx, &lx);
        centre_range4(oy, height, &fy, &ly);
        __m128i first = _mm_or_si128(_mm_and_si128(keep, pair16(fx, fy)), _mm_andnot_si128(keep, none));
        __m128i last = _mm_or_si128(_mm_and_si128(keep, pair16(lx, ly)), _mm_andnot_si128(keep, none));
        /* Four lanes of x, y, first, last -> four records. */
        __m128 r0 = ox, r1 = oy, r2 = _mm_castsi128_ps(first), r3 = _mm_castsi128_ps(last);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        memcpy(out + v, &r0, sizeof r0);
        memcpy(out + v + 1, &r1, sizeof r1);
        memcpy(out + v + 2, &r2, sizeof r2);
        memcpy(out + v + 3, &r3, sizeof r3);
    }
    return v;
}
#endif

void sample_cull_project(const float mvp[16], int width, int height, const float *positions, uint32_t n,
                         sample_cull_vertex_t *out)
{
    float hw = 0.5f * (float)width, hh = 0.5f * (float)height;
    uint32_t v = 0;
#if defined(__SSE2__)
    v = project4(mvp, width, height, positions, n, out);
#endif
    for (; v < n; v++) {
        const float *p = positions + 3 * (size_t)v;
        float x = mvp[0] * p[0] + mvp[4] * p[1] + mvp[8] * p[2] + mvp[12];
        float y = mvp[1] * p[0] + mvp[5] * p[1] + mvp[9] * p[2] + mvp[13];
        float w = mvp[3] * p[0] + mvp[7] * p[1] + mvp[11] * p[2] + mvp[15];
        sample_cull_vertex_t *o = out + v;
        /* Behind or at the eye the rasteriser clips; keep those triangles. */
        bool ok = w > 1e-6f && isfinite(x) && isfinite(y) && isfinite(w);
        float iw = ok ? 1.0f / w : 0.0f;
        o->x = (x * iw + 1.0f) * hw;
        o->y = (y * iw + 1.0f) * hh;
        if (ok && isfinite(o->x) && isfinite(o->y)) {
            centre_range(o->x, width, &o->first[0], &o->last[0]);
            centre_range(o->y, height, &o->first[1], &o->last[1]);
        } else {
            o->first[0] = o->first[1] = o->last[0] = o->last[1] = -1;
        }
    }
}

/* Twice the signed area of ABC in window space (> 0: counter-clockwise),
 * and how far the rasteriser's rounding could move it. */
static bool surely_clockwise(const sample_cull_vertex_t *a, const sample_cull_vertex_t *b,
                             const sample_cull_vertex_t *c)
{
    float ex1 = b->x - a->x, ey1 = b->y - a->y, ex2 = c->x - a->x, ey2 = c->y - a->y;
    float area2 = ex1 * ey2 - ey1 * ex2;
    float slack = SAMPLE_CULL_WINDING_SLACK * (fabsf(ex1) + fabsf(ey1) + fabsf(ex2) + fabsf(ey2)) + 1e-3f;
    return area2 < -slack;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

uint32_t sample_cull_triangles_scalar(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                                      uint32_t count, uint32_t *out)
{
    uint32_t kept = 0;
    for (uint32_t t = 0; t + 2 < count; t += 3) {
        uint32_t ia = indices[t], ib = indices[t + 1], ic = indices[t + 2];
        const sample_cull_vertex_t *a = projected + ia, *b = projected + ib, *c = projected + ic;
        int fx = min3(a->first[0], b->first[0], c->first[0]);
        int fy = min3(a->first[1], b->first[1], c->first[1]);
        bool keep = fx <= max3(a->last[0], b->last[0], c->last[0]) && fy <= max3(a->last[1], b->last[1], c->last[1]);
        /* fx < 0: a vertex was not projected; the triangle stays whole. */
        if (keep && cull_back && fx >= 0)
            keep = !surely_clockwise(a, b, c);
        /* Written either way (OUT has room): no branch on the outcome. */
        out[kept] = ia;
        out[kept + 1] = ib;
        out[kept + 2] = ic;
        kept += keep ? 3u : 0u;
    }
    return kept;
}

static atomic_bool g_scalar;

void sample_cull_set_scalar(bool scalar) { atomic_store_explicit(&g_scalar, scalar, memory_order_relaxed); }

uint32_t sample_cull_triangles(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                               uint32_t count, uint32_t *out)
{
    if (!atomic_load_explicit(&g_scalar, memory_order_relaxed) && sample_cull_has_avx512() && cpu_has(CPU_AVX512F) &&
        cpu_has(CPU_AVX512BW))
        return sample_cull_triangles_avx512(projected, cull_back, indices, count, out);
    return sample_cull_triangles_scalar(projected, cull_back, indices, count, out);
}
