/* kernels (pfnn_kern_): the inner loops of the PFNN forward pass, private to
 * src/pfnn/. A panel gemv over the layout of pfnn_weights_t (network.h) and an
 * in-place ELU, each in plain C, SSE2 and AVX2+FMA (+F16C for fp16 weights).
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

/* v = v > 0 ? v : exp(v) - 1, in place (n any). NaN stays NaN. The SIMD
 * paths use a degree-5 exp polynomial (Cephes), within ~2e-7 absolute. */
void pfnn_kern_elu(pfnn_isa_t isa, float *v, int n);

/* The x86 feature probes (cached). */
bool pfnn_kern_has_avx2_fma(void);
bool pfnn_kern_has_f16c(void);

#endif
