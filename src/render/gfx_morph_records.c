#include "render/gfx_morph_records.h"

#include "shaders/shader_interface.h"

#include <string.h>

_Static_assert(GFX_MORPH_RECORD_FLOATS == MORPH_DELTA_VEC4S * 4, "a record is morph.glsl's struct morph_delta");

/* CPU delta D of TARGET -> one record at OUT. */
static void pack_record(const float *d, uint32_t target, float *out)
{
    out[0] = d[0];
    out[1] = d[1];
    out[2] = d[2];
    out[3] = d[9];
    out[4] = d[3];
    out[5] = d[4];
    out[6] = d[5];
    memcpy(&out[7], &target, sizeof target);
    out[8] = d[6];
    out[9] = d[7];
    out[10] = d[8];
    out[11] = 0.0f;
}

void gfx_morph_records_dense(const float *dense, uint32_t target_count, uint32_t vertex_count, float *out)
{
    size_t n = (size_t)target_count * vertex_count;
    for (size_t r = 0; r < n; r++)
        pack_record(dense + r * GFX_MORPH_CPU_DELTA_FLOATS, (uint32_t)(r / vertex_count),
                    out + r * GFX_MORPH_RECORD_FLOATS);
}

void gfx_morph_records_sparse(const float *pair_delta, const uint32_t *pair_target, uint32_t pair_count, float *out)
{
    for (size_t i = 0; i < pair_count; i++)
        pack_record(pair_delta + i * GFX_MORPH_CPU_DELTA_FLOATS, pair_target[i], out + i * GFX_MORPH_RECORD_FLOATS);
}

void gfx_morph_records_dense_from_pairs(const uint32_t *vertex_offset, const uint32_t *pair_target,
                                        const float *pair_delta, uint32_t target_count, uint32_t vertex_count,
                                        float *out)
{
    static const float zero[GFX_MORPH_CPU_DELTA_FLOATS] = {0};
    size_t n = (size_t)target_count * vertex_count;
    for (size_t r = 0; r < n; r++)
        pack_record(zero, (uint32_t)(r / vertex_count), out + r * GFX_MORPH_RECORD_FLOATS);
    /* A later pair of the same (target, vertex) wins, as in the dense build. */
    for (uint32_t v = 0; v < vertex_count; v++)
        for (uint32_t i = vertex_offset[v]; i < vertex_offset[v + 1]; i++)
            pack_record(pair_delta + (size_t)i * GFX_MORPH_CPU_DELTA_FLOATS, pair_target[i],
                        out + ((size_t)pair_target[i] * vertex_count + v) * GFX_MORPH_RECORD_FLOATS);
}
