/* morph_bench.vert: the one-pass SSBO blend shapes of shaders/morph.glsl
 * (the game's own code, dense or sparse by MORPH_LAYOUT), applied to a base
 * vertex and captured by transform feedback, with rasterisation discarded.
 * Used by src/render/gfx_morph_bench.c to time and check the GPU path. */
#include "morph_bench.h"
#include "morph.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
layout(location = ATTR_AO) in float a_ao;

layout(xfb_buffer = 0, xfb_stride = MORPH_BENCH_VERTEX_BYTES) out;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_POS_AO) out vec4 o_position_ao;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_NORMAL) out vec4 o_normal;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_TANGENT) out vec4 o_tangent;

void main()
{
    morph_out m = morph_vertex(gl_VertexID, a_position, a_normal, a_tangent, a_ao);
    o_position_ao = vec4(m.position, m.ao);
    o_normal = vec4(m.normal, 0.0);
    o_tangent = m.tangent;
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
