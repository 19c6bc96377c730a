/* kernels (pfnn_kern_): the inner loops of the PFNN forward pass, private to
 * src/pfnn/. A panel gemv over the layout of pfnn_weights_t (network.h) and an
 * in-place ELU, and a panel GEMM (the gemv for several inputs at once), each
 * in plain C, SSE2 and AVX2+FMA (+F16C for fp16 weights).
 *
 * Call order: none; the caller (network.c) has already checked that the ISA
 * runs on this CPU (pfnn_isa_supported) and that the sizes are multiples of
 * PFNN_PANEL_ROWS where stated.
 * Does NOT: allocate, check pointers, or choose the ISA.
 */
#ifndef STRIDER_PFNN_KERNELS_H
#define STRIDER_PFNN_KERNELS_H

#include "pfnn/network.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* y[o] = c * (W(o,:) . x + b[o])  (or y[o] += that when ACCUMULATE), for
 * o < out_pad (a multiple of PFNN_PANEL_ROWS). Exactly one of w32 / w16 is
 * read: w32 when DTYPE is PFNN_F32, w16 otherwise. */
void pfnn_kern_gemv(pfnn_isa_t isa, pfnn_dtype_t dtype, const float *w32, const uint16_t *w16, const float *b,
                    const float *x, int n_in, int out_pad, float c, bool accumulate, float *y);

/* One column of a panel GEMM: input row X + ROW * x_stride, output row
 * Y + ROW * y_stride, coefficient C; ACCUMULATE adds to the output row
 * instead of writing it. */
typedef struct pfnn_kern_col_t {
    int row;
    float c;
    bool accumulate;
} pfnn_kern_col_t;

/* pfnn_kern_gemv for N_COLS inputs at once: each weight panel is read once
 * and applied to up to 3 columns held in registers. Every output element
 * goes through exactly the operations pfnn_kern_gemv does for it (same
 * accumulation chains, same order, FMA where it uses FMA), so each column's
 * result is bit-identical to a gemv of that column, whichever columns share
 * a call. */
void pfnn_kern_gemm(pfnn_isa_t isa, pfnn_dtype_t dtype, const float *w32, const uint16_t *w16, const float *b, int n_in,
                    int out_pad, const float *x, size_t x_stride, float *y, size_t y_stride,
                    const pfnn_kern_col_t *cols, int n_cols);

/* v = v > 0 ? v : exp(v) - 1, in place (n any). NaN stays NaN. The SIMD
 * paths use a degree-5 exp polynomial (Cephes), within ~2e-7 absolute. */
void pfnn_kern_elu(pfnn_isa_t isa, float *v, int n);

/* The x86 feature probes (cached). */
bool pfnn_kern_has_avx2_fma(void);
/* AVX-512F with the OS saving its state: pfnn_kern_gemm's AVX2 arithmetic
 * then runs on 16-float registers (bit-identical, twice the rows a pass). */
bool pfnn_kern_has_avx512f(void);
bool pfnn_kern_has_f16c(void);

#endif
