#include "pfnn/kernels.h"

#include "core/cpu.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define PFNN_X86 1
#include <immintrin.h>
#else
#define PFNN_X86 0
#endif

enum {
    /* Rows per panel over the SIMD width: 4 AVX or 8 SSE accumulators. */
    KERN_R = PFNN_PANEL_ROWS,
    /* GEMM register block: columns (inputs) per pass over a half panel. */
    KERN_G = 3,
    /* GEMM rows per pass: half a panel, 2 AVX or 4 SSE accumulators per
     * column (twice that on AVX, whose chains split even and odd inputs). */
    KERN_H = PFNN_PANEL_ROWS / 2,
    /* AVX-512 GEMM: columns per pass over a whole panel (2 ZMM rows of
     * weights, 4 ZMM accumulators per column: 24 of the 32 registers). */
    KERN_G512 = 6,
    KERN_GMAX = KERN_G512
};

#define KERN_INLINE static inline __attribute__((always_inline))

/* exp() range reduction and polynomial (Cephes expf; |rel err| ~1e-7 on
 * [-87, 0]). Below -87.3 exp() underflows to 0 and ELU to -1. */
#define KERN_EXP_LO (-87.3f)
#define KERN_LOG2E 1.44269504088896341f
#define KERN_LN2_HI 0.693359375f
#define KERN_LN2_LO (-2.12194440e-4f)
#define KERN_P0 1.9875691500e-4f
#define KERN_P1 1.3981999507e-3f
#define KERN_P2 8.3334519073e-3f
#define KERN_P3 4.1665795894e-2f
#define KERN_P4 1.6666665459e-1f
#define KERN_P5 5.0000001201e-1f

/* ------------------------------------------------------------- plain C */

static void gemv_scalar(const float *w, const uint16_t *w16, const float *b, const float *x, int n_in, int out_pad,
                        float c, bool accumulate, float *y)
{
    for (int p = 0; p < out_pad; p += KERN_R) {
        float acc[KERN_R];
        memset(acc, 0, sizeof acc);
        size_t base = (size_t)p * (size_t)n_in;
        for (int i = 0; i < n_in; i++) {
            const float xi = x[i];
            size_t at = base + (size_t)i * KERN_R;
            if (w16) {
                for (int r = 0; r < KERN_R; r++)
                    acc[r] += pfnn_f16_to_f32(w16[at + r]) * xi;
            } else {
                for (int r = 0; r < KERN_R; r++)
                    acc[r] += w[at + r] * xi;
            }
        }
        for (int r = 0; r < KERN_R; r++) {
            float v = c * (acc[r] + b[p + r]);
            y[p + r] = accumulate ? y[p + r] + v : v;
        }
    }
}

/* The GEMM's column blocks: the input and output rows of up to CAP
 * (KERN_G, or KERN_G512) columns starting at COLS. */
typedef struct kern_block_t {
    const float *x[KERN_GMAX];
    float *y[KERN_GMAX];
    float c[KERN_GMAX];
    bool accumulate[KERN_GMAX];
    int n;
} kern_block_t;

static kern_block_t kern_block(const float *x, size_t x_stride, float *y, size_t y_stride, const pfnn_kern_col_t *cols,
                               int n, int cap)
{
    kern_block_t k;
    memset(&k, 0, sizeof k);
    k.n = n < cap ? n : cap;
    for (int j = 0; j < k.n; j++) {
        k.x[j] = x + (size_t)cols[j].row * x_stride;
        k.y[j] = y + (size_t)cols[j].row * y_stride;
        k.c[j] = cols[j].c;
        k.accumulate[j] = cols[j].accumulate;
    }
    return k;
}

/* gemv_scalar's arithmetic for the columns of K, one panel at P. */
static void gemm_scalar_panel(const float *w, const uint16_t *w16, const float *b, int n_in, int p,
                              const kern_block_t *k)
{
    float acc[KERN_G][KERN_R];
    memset(acc, 0, sizeof acc);
    size_t base = (size_t)p * (size_t)n_in;
    for (int i = 0; i < n_in; i++) {
        size_t at = base + (size_t)i * KERN_R;
        for (int j = 0; j < k->n; j++) {
            const float xi = k->x[j][i];
            if (w16) {
                for (int r = 0; r < KERN_R; r++)
                    acc[j][r] += pfnn_f16_to_f32(w16[at + r]) * xi;
            } else {
                for (int r = 0; r < KERN_R; r++)
                    acc[j][r] += w[at + r] * xi;
            }
        }
    }
    for (int j = 0; j < k->n; j++)
        for (int r = 0; r < KERN_R; r++) {
            float v = k->c[j] * (acc[j][r] + b[p + r]);
            k->y[j][p + r] = k->accumulate[j] ? k->y[j][p + r] + v : v;
        }
}

static void elu_scalar(float *v, int n)
{
    for (int i = 0; i < n; i++) {
        /* Written so that NaN takes the expm1 branch and stays NaN. */
        if (!(v[i] > 0.0f))
            v[i] = expm1f(v[i]);
    }
}

#if PFNN_X86

/* ---------------------------------------------------------------- probes */

bool pfnn_kern_has_avx2_fma(void) { return cpu_has(CPU_AVX2) && cpu_has(CPU_FMA); }

bool pfnn_kern_has_avx512f(void) { return cpu_has(CPU_AVX512F) && pfnn_kern_has_avx2_fma(); }

bool pfnn_kern_has_f16c(void) { return cpu_has(CPU_F16C); }

/* ------------------------------------------------------------------ SSE2 */

static void gemv_sse2(const float *w, const float *b, const float *x, int n_in, int out_pad, float c, bool accumulate,
                      float *y)
{
    const __m128 vc = _mm_set1_ps(c);
    for (int p = 0; p < out_pad; p += KERN_R) {
        __m128 a[8];
        for (int r = 0; r < 8; r++)
            a[r] = _mm_setzero_ps();
        const float *wp = w + (size_t)p * (size_t)n_in;
        for (int i = 0; i < n_in; i++, wp += KERN_R) {
            const __m128 xi = _mm_set1_ps(x[i]);
            for (int r = 0; r < 8; r++)
                a[r] = _mm_add_ps(a[r], _mm_mul_ps(_mm_loadu_ps(wp + 4 * r), xi));
        }
        for (int r = 0; r < 8; r++) {
            __m128 v = _mm_mul_ps(vc, _mm_add_ps(a[r], _mm_loadu_ps(b + p + 4 * r)));
            if (accumulate)
                v = _mm_add_ps(_mm_loadu_ps(y + p + 4 * r), v);
            _mm_storeu_ps(y + p + 4 * r, v);
        }
    }
}

/* gemv_sse2's arithmetic for the NC columns of K over the half panel at
 * W (rows R0.. of the panel at P): one mul + add chain per row. */
KERN_INLINE void gemm_sse2_half(const float *w, const float *b, int n_in, int p, int r0, const kern_block_t *k,
                                const int nc)
{
    __m128 a[KERN_G][4];
    for (int j = 0; j < nc; j++)
        for (int q = 0; q < 4; q++)
            a[j][q] = _mm_setzero_ps();
    const float *wp = w + (size_t)p * (size_t)n_in + r0;
    for (int i = 0; i < n_in; i++, wp += KERN_R) {
        const __m128 w0 = _mm_loadu_ps(wp), w1 = _mm_loadu_ps(wp + 4), w2 = _mm_loadu_ps(wp + 8),
                     w3 = _mm_loadu_ps(wp + 12);
        for (int j = 0; j < nc; j++) {
            const __m128 xi = _mm_set1_ps(k->x[j][i]);
            a[j][0] = _mm_add_ps(a[j][0], _mm_mul_ps(w0, xi));
            a[j][1] = _mm_add_ps(a[j][1], _mm_mul_ps(w1, xi));
            a[j][2] = _mm_add_ps(a[j][2], _mm_mul_ps(w2, xi));
            a[j][3] = _mm_add_ps(a[j][3], _mm_mul_ps(w3, xi));
        }
    }
    for (int j = 0; j < nc; j++) {
        const __m128 vc = _mm_set1_ps(k->c[j]);
        float *y = k->y[j] + p + r0;
        for (int q = 0; q < 4; q++) {
            __m128 v = _mm_mul_ps(vc, _mm_add_ps(a[j][q], _mm_loadu_ps(b + p + r0 + 4 * q)));
            if (k->accumulate[j])
                v = _mm_add_ps(_mm_loadu_ps(y + 4 * q), v);
            _mm_storeu_ps(y + 4 * q, v);
        }
    }
}

static void gemm_sse2_cols(const float *w, const float *b, int n_in, int p, int r0, const kern_block_t *k)
{
    /* Constant column counts, so the accumulators stay in registers. */
    switch (k->n) {
    case 3: gemm_sse2_half(w, b, n_in, p, r0, k, 3); break;
    case 2: gemm_sse2_half(w, b, n_in, p, r0, k, 2); break;
    default: gemm_sse2_half(w, b, n_in, p, r0, k, 1); break;
    }
}

static __m128 exp_neg_sse2(__m128 x)
{
    /* max(LO, x) returns x when x is NaN (the second operand), so NaN survives. */
    x = _mm_max_ps(_mm_set1_ps(KERN_EXP_LO), x);
    __m128i ni = _mm_cvtps_epi32(_mm_mul_ps(x, _mm_set1_ps(KERN_LOG2E)));
    __m128 n = _mm_cvtepi32_ps(ni);
    __m128 r = _mm_sub_ps(x, _mm_mul_ps(n, _mm_set1_ps(KERN_LN2_HI)));
    r = _mm_sub_ps(r, _mm_mul_ps(n, _mm_set1_ps(KERN_LN2_LO)));
    __m128 p = _mm_set1_ps(KERN_P0);
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(KERN_P1));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(KERN_P2));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(KERN_P3));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(KERN_P4));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(KERN_P5));
    p = _mm_add_ps(_mm_mul_ps(p, _mm_mul_ps(r, r)), _mm_add_ps(r, _mm_set1_ps(1.0f)));
    __m128i e = _mm_slli_epi32(_mm_add_epi32(ni, _mm_set1_epi32(127)), 23);
    return _mm_mul_ps(p, _mm_castsi128_ps(e));
}

static void elu_sse2(float *v, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm_loadu_ps(v + i);
        __m128 pos = _mm_cmpgt_ps(x, _mm_setzero_ps());
        __m128 e = _mm_sub_ps(exp_neg_sse2(_mm_min_ps(_mm_setzero_ps(), x)), _mm_set1_ps(1.0f));
        _mm_storeu_ps(v + i, _mm_or_ps(_mm_and_ps(pos, x), _mm_andnot_ps(pos, e)));
    }
    elu_scalar(v + i, n - i);
}

/* ------------------------------------------------------------- AVX2+FMA */

#define KERN_AVX2 __attribute__((target("avx2,fma")))
#define KERN_AVX2_F16 __attribute__((target("avx2,fma,f16c")))

/* One panel of 32 rows: two sets of 4 accumulators over even/odd inputs so
 * 8 FMA chains are in flight. LOAD8(ptr) yields 8 floats. */
#define KERN_PANEL_BODY(LOAD8)                                                                                         \
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                                                        \
    __m256 e0 = a0, e1 = a0, e2 = a0, e3 = a0;                                                                         \
    int i = 0;                                                                                                         \
    for (; i + 2 <= n_in; i += 2, wp += 2 * KERN_R) {                                                                  \
        const __m256 x0 = _mm256_broadcast_ss(x + i);                                                                  \
        const __m256 x1 = _mm256_broadcast_ss(x + i + 1);                                                              \
        a0 = _mm256_fmadd_ps(LOAD8(wp), x0, a0);                                                                       \
        a1 = _mm256_fmadd_ps(LOAD8(wp + 8), x0, a1);                                                                   \
        a2 = _mm256_fmadd_ps(LOAD8(wp + 16), x0, a2);                                                                  \
        a3 = _mm256_fmadd_ps(LOAD8(wp + 24), x0, a3);                                                                  \
        e0 = _mm256_fmadd_ps(LOAD8(wp + 32), x1, e0);                                                                  \
        e1 = _mm256_fmadd_ps(LOAD8(wp + 40), x1, e1);                                                                  \
        e2 = _mm256_fmadd_ps(LOAD8(wp + 48), x1, e2);                                                                  \
        e3 = _mm256_fmadd_ps(LOAD8(wp + 56), x1, e3);                                                                  \
    }                                                                                                                  \
    if (i < n_in) {                                                                                                    \
        const __m256 x0 = _mm256_broadcast_ss(x + i);                                                                  \
        a0 = _mm256_fmadd_ps(LOAD8(wp), x0, a0);                                                                       \
        a1 = _mm256_fmadd_ps(LOAD8(wp + 8), x0, a1);                                                                   \
        a2 = _mm256_fmadd_ps(LOAD8(wp + 16), x0, a2);                                                                  \
        a3 = _mm256_fmadd_ps(LOAD8(wp + 24), x0, a3);                                                                  \
    }                                                                                                                  \
    const __m256 acc[4] = {_mm256_add_ps(a0, e0), _mm256_add_ps(a1, e1), _mm256_add_ps(a2, e2),                        \
                           _mm256_add_ps(a3, e3)};                                                                     \
    for (int r = 0; r < 4; r++) {                                                                                      \
        __m256 v = _mm256_mul_ps(vc, _mm256_add_ps(acc[r], _mm256_loadu_ps(b + p + 8 * r)));                           \
        if (accumulate)                                                                                                \
            v = _mm256_add_ps(_mm256_loadu_ps(y + p + 8 * r), v);                                                      \
        _mm256_storeu_ps(y + p + 8 * r, v);                                                                            \
    }

#define KERN_LOAD_F32(ptr) _mm256_loadu_ps(ptr)
#define KERN_LOAD_F16(ptr) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(ptr)))

KERN_AVX2 static void gemv_avx2(const float *w, const float *b, const float *x, int n_in, int out_pad, float c,
                                bool accumulate, float *y)
{
    const __m256 vc = _mm256_set1_ps(c);
    for (int p = 0; p < out_pad; p += KERN_R) {
        const float *wp = w + (size_t)p * (size_t)n_in;
        KERN_PANEL_BODY(KERN_LOAD_F32)
    }
}

KERN_AVX2_F16 static void gemv_avx2_f16(const uint16_t *w, const float *b, const float *x, int n_in, int out_pad,
                                        float c, bool accumulate, float *y)
{
    const __m256 vc = _mm256_set1_ps(c);
    for (int p = 0; p < out_pad; p += KERN_R) {
        const uint16_t *wp = w + (size_t)p * (size_t)n_in;
        KERN_PANEL_BODY(KERN_LOAD_F16)
    }
}

/* gemv_avx2's arithmetic (KERN_PANEL_BODY) for the columns of K over the
 * half panel of rows R0.. of the panel at P: per column J, one FMA chain
 * per row over the even inputs (aJ_0, aJ_1) and one over the odd ones
 * (eJ_0, eJ_1), summed at the end, then c * (acc + b) (+ y). A weight pair
 * serves every column before the next is loaded. The accumulators are
 * named variables, one set per column listed by COLS (M(0) M(1) ...):
 * arrays of them indexed in loops were kept in memory by gcc 12, a store
 * per FMA. WT is float or uint16_t, LOAD8 as in KERN_PANEL_BODY. */
#define KERN_COL_ZERO(J) __m256 a##J##_0 = z, a##J##_1 = z, e##J##_0 = z, e##J##_1 = z;
#define KERN_COL_EVEN(J)                                                                                               \
    {                                                                                                                  \
        const __m256 x0 = _mm256_broadcast_ss(k->x[J] + i);                                                            \
        a##J##_0 = _mm256_fmadd_ps(w0, x0, a##J##_0);                                                                  \
        a##J##_1 = _mm256_fmadd_ps(w1, x0, a##J##_1);                                                                  \
    }
#define KERN_COL_ODD(J)                                                                                                \
    {                                                                                                                  \
        const __m256 x1 = _mm256_broadcast_ss(k->x[J] + i + 1);                                                        \
        e##J##_0 = _mm256_fmadd_ps(w0, x1, e##J##_0);                                                                  \
        e##J##_1 = _mm256_fmadd_ps(w1, x1, e##J##_1);                                                                  \
    }
#define KERN_COL_STORE(J)                                                                                              \
    {                                                                                                                  \
        const __m256 vc = _mm256_set1_ps(k->c[J]);                                                                     \
        float *y = k->y[J] + p + r0;                                                                                   \
        __m256 v0 = _mm256_mul_ps(vc, _mm256_add_ps(_mm256_add_ps(a##J##_0, e##J##_0), _mm256_loadu_ps(bp)));          \
        __m256 v1 = _mm256_mul_ps(vc, _mm256_add_ps(_mm256_add_ps(a##J##_1, e##J##_1), _mm256_loadu_ps(bp + 8)));      \
        if (k->accumulate[J]) {                                                                                        \
            v0 = _mm256_add_ps(_mm256_loadu_ps(y), v0);                                                                \
            v1 = _mm256_add_ps(_mm256_loadu_ps(y + 8), v1);                                                            \
        }                                                                                                              \
        _mm256_storeu_ps(y, v0);                                                                                       \
        _mm256_storeu_ps(y + 8, v1);                                                                                   \
    }
#define KERN_COLS_1(M) M(0)
#define KERN_COLS_2(M) M(0) M(1)
#define KERN_COLS_3(M) M(0) M(1) M(2)

#define KERN_GEMM_HALF(NAME, TARGET, WT, LOAD8, COLS)                                                                  \
    TARGET static void NAME(const WT *w, const float *b, int n_in, int p, int r0, const kern_block_t *k)               \
    {                                                                                                                  \
        const __m256 z = _mm256_setzero_ps();                                                                          \
        COLS(KERN_COL_ZERO)                                                                                            \
        const WT *wp = w + (size_t)p * (size_t)n_in + r0;                                                              \
        int i = 0;                                                                                                     \
        for (; i + 2 <= n_in; i += 2, wp += 2 * KERN_R) {                                                              \
            __m256 w0 = LOAD8(wp), w1 = LOAD8(wp + 8);                                                                 \
            COLS(KERN_COL_EVEN)                                                                                        \
            w0 = LOAD8(wp + KERN_R);                                                                                   \
            w1 = LOAD8(wp + KERN_R + 8);                                                                               \
            COLS(KERN_COL_ODD)                                                                                         \
        }                                                                                                              \
        if (i < n_in) {                                                                                                \
            const __m256 w0 = LOAD8(wp), w1 = LOAD8(wp + 8);                                                           \
            COLS(KERN_COL_EVEN)                                                                                        \
        }                                                                                                              \
        const float *bp = b + p + r0;                                                                                  \
        COLS(KERN_COL_STORE)                                                                                           \
    }

KERN_GEMM_HALF(gemm_avx2_half1, KERN_AVX2, float, KERN_LOAD_F32, KERN_COLS_1)
KERN_GEMM_HALF(gemm_avx2_half2, KERN_AVX2, float, KERN_LOAD_F32, KERN_COLS_2)
KERN_GEMM_HALF(gemm_avx2_half3, KERN_AVX2, float, KERN_LOAD_F32, KERN_COLS_3)
KERN_GEMM_HALF(gemm_avx2_f16_half1, KERN_AVX2_F16, uint16_t, KERN_LOAD_F16, KERN_COLS_1)
KERN_GEMM_HALF(gemm_avx2_f16_half2, KERN_AVX2_F16, uint16_t, KERN_LOAD_F16, KERN_COLS_2)
KERN_GEMM_HALF(gemm_avx2_f16_half3, KERN_AVX2_F16, uint16_t, KERN_LOAD_F16, KERN_COLS_3)

static void gemm_avx2_cols(const float *w, const float *b, int n_in, int p, int r0, const kern_block_t *k)
{
    switch (k->n) {
    case 3: gemm_avx2_half3(w, b, n_in, p, r0, k); break;
    case 2: gemm_avx2_half2(w, b, n_in, p, r0, k); break;
    default: gemm_avx2_half1(w, b, n_in, p, r0, k); break;
    }
}

static void gemm_avx2_f16_cols(const uint16_t *w, const float *b, int n_in, int p, int r0, const kern_block_t *k)
{
    switch (k->n) {
    case 3: gemm_avx2_f16_half3(w, b, n_in, p, r0, k); break;
    case 2: gemm_avx2_f16_half2(w, b, n_in, p, r0, k); break;
    default: gemm_avx2_f16_half1(w, b, n_in, p, r0, k); break;
    }
}

KERN_AVX2 static __m256 exp_neg_avx2(__m256 x)
{
    x = _mm256_max_ps(_mm256_set1_ps(KERN_EXP_LO), x);
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(KERN_LOG2E)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(KERN_LN2_HI), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(KERN_LN2_LO), r);
    __m256 p = _mm256_set1_ps(KERN_P0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KERN_P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KERN_P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KERN_P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KERN_P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(KERN_P5));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

KERN_AVX2 static void elu_avx2(float *v, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(v + i);
        __m256 pos = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
        __m256 e = _mm256_sub_ps(exp_neg_avx2(_mm256_min_ps(_mm256_setzero_ps(), x)), _mm256_set1_ps(1.0f));
        _mm256_storeu_ps(v + i, _mm256_blendv_ps(e, x, pos));
    }
    elu_sse2(v + i, n - i);
}

/* ---------------------------------------------------------------- AVX-512 */

#define KERN_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define KERN_AVX512_F16 __attribute__((target("avx512f,avx2,fma,f16c")))
#define KERN_LOAD16_F32(ptr) _mm512_loadu_ps(ptr)
#define KERN_LOAD16_F16(ptr) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(ptr)))

/* The AVX2 GEMM's arithmetic on 16-float registers over a whole panel:
 * per column J, rows 0-15 and 16-31 of the panel each with one FMA chain
 * over the even inputs (zJ_0, zJ_1) and one over the odd ones (oJ_0, oJ_1),
 * summed at the end, then c * (acc + b) (+ y). Each row's lane goes
 * through the very operations of gemv_avx2's (a lane does not see its
 * neighbours), so the results are bit-identical to it; only the rows per
 * instruction double, which pays where the CPU runs 512-bit FMAs at full
 * width. */
#define KERN_Z_ZERO(J) __m512 z##J##_0 = zero, z##J##_1 = zero, o##J##_0 = zero, o##J##_1 = zero;
#define KERN_Z_EVEN(J)                                                                                                 \
    {                                                                                                                  \
        const __m512 x0 = _mm512_set1_ps(k->x[J][i]);                                                                  \
        z##J##_0 = _mm512_fmadd_ps(w0, x0, z##J##_0);                                                                  \
        z##J##_1 = _mm512_fmadd_ps(w1, x0, z##J##_1);                                                                  \
    }
#define KERN_Z_ODD(J)                                                                                                  \
    {                                                                                                                  \
        const __m512 x1 = _mm512_set1_ps(k->x[J][i + 1]);                                                              \
        o##J##_0 = _mm512_fmadd_ps(w0, x1, o##J##_0);                                                                  \
        o##J##_1 = _mm512_fmadd_ps(w1, x1, o##J##_1);                                                                  \
    }
#define KERN_Z_STORE(J)                                                                                                \
    {                                                                                                                  \
        const __m512 vc = _mm512_set1_ps(k->c[J]);                                                                     \
        float *y = k->y[J] + p;                                                                                        \
        __m512 v0 = _mm512_mul_ps(vc, _mm512_add_ps(_mm512_add_ps(z##J##_0, o##J##_0), _mm512_loadu_ps(bp)));          \
        __m512 v1 = _mm512_mul_ps(vc, _mm512_add_ps(_mm512_add_ps(z##J##_1, o##J##_1), _mm512_loadu_ps(bp + 16)));     \
        if (k->accumulate[J]) {                                                                                        \
            v0 = _mm512_add_ps(_mm512_loadu_ps(y), v0);                                                                \
            v1 = _mm512_add_ps(_mm512_loadu_ps(y + 16), v1);                                                           \
        }                                                                                                              \
        _mm512_storeu_ps(y, v0);                                                                                       \
        _mm512_storeu_ps(y + 16, v1);                                                                                  \
    }
#define KERN_COLS_4(M) M(0) M(1) M(2) M(3)
#define KERN_COLS_5(M) M(0) M(1) M(2) M(3) M(4)
#define KERN_COLS_6(M) M(0) M(1) M(2) M(3) M(4) M(5)

#define KERN_GEMM_PANEL512(NAME, TARGET, WT, LOAD16, COLS)                                                             \
    TARGET static void NAME(const WT *w, const float *b, int n_in, int p, const kern_block_t *k)                       \
    {                                                                                                                  \
        const __m512 zero = _mm512_setzero_ps();                                                                       \
        COLS(KERN_Z_ZERO)                                                                                              \
        const WT *wp = w + (size_t)p * (size_t)n_in;                                                                   \
        int i = 0;                                                                                                     \
        for (; i + 2 <= n_in; i += 2, wp += 2 * KERN_R) {                                                              \
            __m512 w0 = LOAD16(wp), w1 = LOAD16(wp + 16);                                                              \
            COLS(KERN_Z_EVEN)                                                                                          \
            w0 = LOAD16(wp + KERN_R);                                                                                  \
            w1 = LOAD16(wp + KERN_R + 16);                                                                             \
            COLS(KERN_Z_ODD)                                                                                           \
        }                                                                                                              \
        if (i < n_in) {                                                                                                \
            const __m512 w0 = LOAD16(wp), w1 = LOAD16(wp + 16);                                                        \
            COLS(KERN_Z_EVEN)                                                                                          \
        }                                                                                                              \
        const float *bp = b + p;                                                                                       \
        COLS(KERN_Z_STORE)                                                                                             \
    }

KERN_GEMM_PANEL512(gemm512_1, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_1)
KERN_GEMM_PANEL512(gemm512_2, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_2)
KERN_GEMM_PANEL512(gemm512_3, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_3)
KERN_GEMM_PANEL512(gemm512_4, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_4)
KERN_GEMM_PANEL512(gemm512_5, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_5)
KERN_GEMM_PANEL512(gemm512_6, KERN_AVX512, float, KERN_LOAD16_F32, KERN_COLS_6)
KERN_GEMM_PANEL512(gemm512_f16_1, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_1)
KERN_GEMM_PANEL512(gemm512_f16_2, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_2)
KERN_GEMM_PANEL512(gemm512_f16_3, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_3)
KERN_GEMM_PANEL512(gemm512_f16_4, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_4)
KERN_GEMM_PANEL512(gemm512_f16_5, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_5)
KERN_GEMM_PANEL512(gemm512_f16_6, KERN_AVX512_F16, uint16_t, KERN_LOAD16_F16, KERN_COLS_6)

static void gemm512_cols(pfnn_dtype_t dtype, const float *w32, const uint16_t *w16, const float *b, int n_in, int p,
                         const kern_block_t *k)
{
    typedef void (*gemm512_f32_fn_t)(const float *, const float *, int, int, const kern_block_t *);
    typedef void (*gemm512_f16_fn_t)(const uint16_t *, const float *, int, int, const kern_block_t *);
    static const gemm512_f32_fn_t f32[KERN_G512] = {gemm512_1, gemm512_2, gemm512_3, gemm512_4, gemm512_5, gemm512_6};
    static const gemm512_f16_fn_t f16[KERN_G512] = {gemm512_f16_1, gemm512_f16_2, gemm512_f16_3,
                                                    gemm512_f16_4, gemm512_f16_5, gemm512_f16_6};
    if (dtype == PFNN_F16)
        f16[k->n - 1](w16, b, n_in, p, k);
    else
        f32[k->n - 1](w32, b, n_in, p, k);
}

#else /* not x86 */

bool pfnn_kern_has_avx2_fma(void) { return false; }
bool pfnn_kern_has_avx512f(void) { return false; }

bool pfnn_kern_has_f16c(void) { return false; }

#endif

/* ------------------------------------------------------------ dispatch */

void pfnn_kern_gemv(pfnn_isa_t isa, pfnn_dtype_t dtype, const float *w32, const uint16_t *w16, const float *b,
                    const float *x, int n_in, int out_pad, float c, bool accumulate, float *y)
{
#if PFNN_X86
    if (isa == PFNN_ISA_AVX2) {
        if (dtype == PFNN_F16)
            gemv_avx2_f16(w16, b, x, n_in, out_pad, c, accumulate, y);
        else
            gemv_avx2(w32, b, x, n_in, out_pad, c, accumulate, y);
        return;
    }
    /* SSE2 has no half conversion; fp16 there takes the plain C path. */
    if (isa == PFNN_ISA_SSE2 && dtype == PFNN_F32) {
        gemv_sse2(w32, b, x, n_in, out_pad, c, accumulate, y);
        return;
    }
#endif
    (void)isa;
    gemv_scalar(w32, dtype == PFNN_F16 ? w16 : NULL, b, x, n_in, out_pad, c, accumulate, y);
}

void pfnn_kern_gemm(pfnn_isa_t isa, pfnn_dtype_t dtype, const float *w32, const uint16_t *w16, const float *b, int n_in,
                    int out_pad, const float *x, size_t x_stride, float *y, size_t y_stride,
                    const pfnn_kern_col_t *cols, int n_cols)
{
    /* One column: the gemv itself (the same operations; its 8 chains per
     * panel beat the GEMM's 4 per half panel when nothing is shared). */
    if (n_cols == 1) {
        pfnn_kern_gemv(isa, dtype, w32, w16, b, x + (size_t)cols[0].row * x_stride, n_in, out_pad, cols[0].c,
                       cols[0].accumulate, y + (size_t)cols[0].row * y_stride);
        return;
    }
    /* Panel by panel, half panels on x86: the rows one pass of the columns
     * reads (16 x n_in weights, 32 KiB at n_in = 512) stay in L1 while the
     * blocks of KERN_G columns go by. */
#if PFNN_X86
    /* The AVX2 arithmetic on AVX-512 registers where the CPU has them:
     * whole panels, 6 columns a pass, the same bits. */
    if (isa == PFNN_ISA_AVX2 && pfnn_kern_has_avx512f()) {
        for (int p = 0; p < out_pad; p += KERN_R)
            for (int j = 0; j < n_cols; j += KERN_G512) {
                const kern_block_t k = kern_block(x, x_stride, y, y_stride, cols + j, n_cols - j, KERN_G512);
                gemm512_cols(dtype, w32, w16, b, n_in, p, &k);
            }
        return;
    }
#endif
    for (int p = 0; p < out_pad; p += KERN_R) {
#if PFNN_X86
        if (isa == PFNN_ISA_AVX2 || (isa == PFNN_ISA_SSE2 && dtype == PFNN_F32)) {
            for (int r0 = 0; r0 < KERN_R; r0 += KERN_H)
                for (int j = 0; j < n_cols; j += KERN_G) {
                    const kern_block_t k = kern_block(x, x_stride, y, y_stride, cols + j, n_cols - j, KERN_G);
                    if (isa == PFNN_ISA_SSE2)
                        gemm_sse2_cols(w32, b, n_in, p, r0, &k);
                    else if (dtype == PFNN_F16)
                        gemm_avx2_f16_cols(w16, b, n_in, p, r0, &k);
                    else
                        gemm_avx2_cols(w32, b, n_in, p, r0, &k);
                }
            continue;
        }
#endif
        /* SSE2 has no half conversion; fp16 there takes the plain C path. */
        for (int j = 0; j < n_cols; j += KERN_G) {
            const kern_block_t k = kern_block(x, x_stride, y, y_stride, cols + j, n_cols - j, KERN_G);
            gemm_scalar_panel(w32, dtype == PFNN_F16 ? w16 : NULL, b, n_in, p, &k);
        }
    }
    (void)isa;
}

void pfnn_kern_elu(pfnn_isa_t isa, float *v, int n)
{
#if PFNN_X86
    if (isa == PFNN_ISA_AVX2) {
        elu_avx2(v, n);
        return;
    }
    if (isa == PFNN_ISA_SSE2) {
        elu_sse2(v, n);
        return;
    }
#endif
    (void)isa;
    elu_scalar(v, n);
}
