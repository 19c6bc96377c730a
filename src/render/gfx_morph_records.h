/* gfx_morph_records: the delta records of shaders/morph.glsl (struct
 * morph_delta, MORPH_DELTA_VEC4S = 3 vec4s, 48 bytes), packed from the CPU
 * deltas of anim/bshape (dpos xyz, dnormal xyz, dtangent xyz, dao). The one
 * place that knows both layouts, for the character renderer
 * (gfx_character_morph) and the blend-shape benchmark (bench/gpu).
 *   record: dpos.xyz, dao | dnormal.xyz, target (uint bits) | dtangent.xyz, 0
 * Dense: target_count x vertex_count records, target-major, zeros included.
 * Sparse: one record per (vertex, target) pair, in the pairs' order.
 * Call order: none; plain functions into caller memory (a staging copy or a
 * write-mapped buffer, written once, never read).
 * Does NOT: allocate, call GL, or check counts (the caller sized OUT).
 */
#ifndef STRIDER_RENDER_GFX_MORPH_RECORDS_H
#define STRIDER_RENDER_GFX_MORPH_RECORDS_H

#include <stddef.h>
#include <stdint.h>

enum {
    GFX_MORPH_RECORD_FLOATS = 12,   /* floats per record */
    GFX_MORPH_CPU_DELTA_FLOATS = 10 /* floats per CPU delta (anim/bshape) */
};

/* DENSE: target_count x vertex_count CPU deltas, target-major. */
void gfx_morph_records_dense(const float *dense, uint32_t target_count, uint32_t vertex_count, float *out);
/* PAIR_DELTA: pair_count CPU deltas, PAIR_TARGET their targets. */
void gfx_morph_records_sparse(const float *pair_delta, const uint32_t *pair_target, uint32_t pair_count, float *out);
/* The dense records from the sparse layout (VERTEX_OFFSET: vertex_count + 1
 * offsets into the pairs): the records gfx_morph_records_dense() makes of
 * the dense deltas built from the same data, without those 40-byte deltas
 * being held on the CPU. */
void gfx_morph_records_dense_from_pairs(const uint32_t *vertex_offset, const uint32_t *pair_target,
                                        const float *pair_delta, uint32_t target_count, uint32_t vertex_count,
                                        float *out);

#endif
