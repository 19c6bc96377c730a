/* morph_bench.comp: `strider bench blendshapes`' gpu-compute-dense and
 * gpu-compute-sparse methods (render/gfx_morph_bench.c): shaders/morph.glsl,
 * the game's code (dense or sparse by MORPH_LAYOUT), in one compute pass
 * over the active shapes, twelve threads a vertex: GPU Gems 3's one-pass
 * blend shapes without the transform-feedback stage that dominates the
 * vertex-shader method on NVIDIA.
 * SSBO_DEFORM_SOURCE: base morph vertices, SSBO_DEFORM_OUT: morphed ones
 * (shaders/morph_bench.h: three vec4 a vertex). */
#include "morph_bench.h"
#include "morph.glsl"

layout(local_size_x = DEFORM_GROUP_SIZE) in;

layout(std430, binding = SSBO_DEFORM_SOURCE) readonly buffer morph_bench_source_block {
    vec4 morph_bench_source[];
};
layout(std430, binding = SSBO_DEFORM_OUT) writeonly buffer morph_bench_out_block {
    vec4 morph_bench_out[];
};

shared vec4 morph_bench_slices[DEFORM_GROUP_SIZE];

void main()
{
    /* DEFORM_MORPH_LANES threads a vertex, as the game's skin-once pass
     * (character_deform.comp): a slice of a part of the sums each, then the
     * vertex's first thread combines them, finishes and writes. */
    uint l = gl_LocalInvocationID.x, slot = l / uint(DEFORM_MORPH_LANES), lane = l - slot * uint(DEFORM_MORPH_LANES);
    uint part = lane / uint(MORPH_SLICES), slice = lane - part * uint(MORPH_SLICES);
    uint v = gl_WorkGroupID.x * uint(DEFORM_MORPH_GROUP_VERTICES) + slot;
    bool live = slot < uint(DEFORM_MORPH_GROUP_VERTICES) && v < u_morph_vertex_count &&
                3u * v + 2u < uint(morph_bench_source.length()) && 3u * v + 2u < uint(morph_bench_out.length());
    morph_bench_slices[l] = live ? morph_accumulate_slice(v, part, slice) : vec4(0.0);
    memoryBarrierShared();
    barrier();
    if (!live || lane != 0u)
        return;
    vec4 sums[MORPH_PARTS];
    for (uint p = 0u; p < uint(MORPH_PARTS); p++) {
        uint at = l + p * uint(MORPH_SLICES);
        sums[p] = morph_combine(morph_bench_slices[at], morph_bench_slices[at + 1u], morph_bench_slices[at + 2u],
                                morph_bench_slices[at + 3u]);
    }
    vec4 pa = morph_bench_source[3u * v], n = morph_bench_source[3u * v + 1u], t = morph_bench_source[3u * v + 2u];
    morph_out m = morph_finish(pa.xyz, n.xyz, t, pa.w, sums[0], sums[1].xyz, sums[2].xyz);
    morph_bench_out[3u * v] = vec4(m.position, m.ao);
    morph_bench_out[3u * v + 1u] = vec4(m.normal, 0.0);
    morph_bench_out[3u * v + 2u] = m.tangent;
}
