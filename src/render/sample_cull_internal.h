/* sample_cull_internal: the two ways sample_cull_triangles() is done, for
 * sample_cull.c (which picks one) and the tests (which hold them to each
 * other). Not part of the interface: only sample_cull*.c and tests include it.
 */
#ifndef STRIDER_RENDER_SAMPLE_CULL_INTERNAL_H
#define STRIDER_RENDER_SAMPLE_CULL_INTERNAL_H

#include "render/sample_cull.h"

/* sample_cull_triangles() one triangle at a time (any CPU). */
uint32_t sample_cull_triangles_scalar(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                                      uint32_t count, uint32_t *out);

/* The same, sixteen at a time on AVX-512 F and BW (sample_cull_avx512.c):
 * the same indices kept, bit for bit. Only where sample_cull_has_avx512()
 * and the CPU has those sets; elsewhere it is the scalar loop. */
uint32_t sample_cull_triangles_avx512(const sample_cull_vertex_t *projected, bool cull_back, const uint32_t *indices,
                                      uint32_t count, uint32_t *out);

/* Whether this build has the AVX-512 loop (x86-64 with GCC or clang). */
bool sample_cull_has_avx512(void);

#endif
