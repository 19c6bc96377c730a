/* skin_bench.comp: `strider bench skinning`'s gpu-compute path and the
 * skin-once path's deformation (render/gfx_skin_bench.c): the game's
 * skinning code (skin.glsl, SKIN_METHOD, u_influences) over every vertex in
 * a compute pass, one thread per vertex, written where the transform-
 * feedback paths write (10 floats a vertex: position, normal, tangent with
 * handedness), so read-back and checks are shared.
 * Input SSBO_DEFORM_SOURCE: the bench's 64-byte vertex as 4 uvec4: position
 * xyz + normal x, normal yz + tangent xy, tangent zw + joints (16-bit
 * halves, low first), weights. */
#include "shader_interface.h"

layout(local_size_x = DEFORM_GROUP_SIZE) in;

#include "skin.glsl"

layout(std430, binding = SSBO_DEFORM_SOURCE) readonly buffer skin_bench_source_block {
    uvec4 skin_bench_source[];
};
layout(std430, binding = SSBO_DEFORM_OUT) writeonly buffer skin_bench_out_block {
    float skin_bench_out[];
};

uniform uint u_count;

void main()
{
    uint v = gl_GlobalInvocationID.x;
    if (v >= u_count || 4u * v + 3u >= uint(skin_bench_source.length()) ||
        10u * v + 9u >= uint(skin_bench_out.length()))
        return;
    vec4 a = uintBitsToFloat(skin_bench_source[4u * v]);
    vec4 b = uintBitsToFloat(skin_bench_source[4u * v + 1u]);
    uvec4 c = skin_bench_source[4u * v + 2u];
    vec4 w = uintBitsToFloat(skin_bench_source[4u * v + 3u]);
    vec3 p = a.xyz, n = vec3(a.w, b.xy);
    vec4 t = vec4(b.zw, uintBitsToFloat(c.xy));
    uvec4 joints = uvec4(c.z & 0xffffu, c.z >> 16, c.w & 0xffffu, c.w >> 16);
    skin_out s = skin_vertex(p, n, t.xyz, joints, w);
    uint o = 10u * v;
    skin_bench_out[o] = s.position.x;
    skin_bench_out[o + 1u] = s.position.y;
    skin_bench_out[o + 2u] = s.position.z;
    skin_bench_out[o + 3u] = s.normal.x;
    skin_bench_out[o + 4u] = s.normal.y;
    skin_bench_out[o + 5u] = s.normal.z;
    skin_bench_out[o + 6u] = s.tangent.x;
    skin_bench_out[o + 7u] = s.tangent.y;
    skin_bench_out[o + 8u] = s.tangent.z;
    skin_bench_out[o + 9u] = t.w;
}
