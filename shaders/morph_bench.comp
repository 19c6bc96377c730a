/* morph_bench.comp: `strider bench blendshapes`' gpu-compute-dense and
 * gpu-compute-sparse methods (render/gfx_morph_bench.c): shaders/morph.glsl,
 * the game's code (dense or sparse by MORPH_LAYOUT), in one compute pass
 * over the active shapes, three threads a vertex: GPU Gems 3's one-pass
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

shared vec4 morph_bench_parts[DEFORM_GROUP_SIZE];

void main()
{
    /* Three threads a vertex, as the game's skin-once pass
     * (character_deform.comp): a part of the sums each, then the vertex's
     * first thread finishes and writes. */
    uint l = gl_LocalInvocationID.x, slot = l / uint(MORPH_DELTA_VEC4S), part = l - slot * uint(MORPH_DELTA_VEC4S);
    uint v = gl_WorkGroupID.x * uint(DEFORM_GROUP_VERTICES) + slot;
    bool live = slot < uint(DEFORM_GROUP_VERTICES) && v < u_morph_vertex_count &&
                3u * v + 2u < uint(morph_bench_source.length()) && 3u * v + 2u < uint(morph_bench_out.length());
    morph_bench_parts[l] = live ? morph_accumulate_part(v, part) : vec4(0.0);
    memoryBarrierShared();
    barrier();
    if (!live || part != 0u)
        return;
    vec4 pa = morph_bench_source[3u * v], n = morph_bench_source[3u * v + 1u], t = morph_bench_source[3u * v + 2u];
    morph_out m = morph_finish(pa.xyz, n.xyz, t, pa.w, morph_bench_parts[l], morph_bench_parts[l + 1u].xyz,
                               morph_bench_parts[l + 2u].xyz);
    morph_bench_out[3u * v] = vec4(m.position, m.ao);
    morph_bench_out[3u * v + 1u] = vec4(m.normal, 0.0);
    morph_bench_out[3u * v + 2u] = m.tangent;
}
