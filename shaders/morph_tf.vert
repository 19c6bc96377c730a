/* morph_tf.vert: the stream-out blend-shape baseline of GPU Gems 3, 3.2.3,
 * in GL transform feedback. Each accumulation pass adds up to
 * MORPH_TF_SHAPES_PER_PASS weighted shapes, whose deltas arrive as vertex
 * attributes (the dense target-major records of morph.glsl, one attribute
 * binding per shape slot), to the running sum of the previous pass, and
 * streams the new sum out; passes ping-pong between two buffers. The running
 * sum holds deltas only (dpos + dao, dnormal, dtangent), so the final pass
 * (MORPH_TF_FINISH) does exactly what morph.glsl's morph_vertex() does with
 * its sum: p = base + sum, n renormalised, tangent Gram-Schmidt, AO clamped.
 * Shapes come in ascending target order, so the sum has morph.glsl's order.
 * Output: one morph vertex (shaders/morph_bench.h) per input vertex. */
#include "shader_interface.h"
#include "morph_bench.h"

/* BSHAPE_DEGENERATE_SQ in bshape.c, MORPH_DEGENERATE_SQ in morph.glsl. */
#define MORPH_TF_DEGENERATE_SQ 1e-12

/* The running sum; the first pass reads a buffer of zeros (every enabled
 * attribute has a buffer: render/gfx_validate.h). */
layout(location = MORPH_TF_ATTR_ACC) in vec4 a_acc[3];

layout(xfb_buffer = 0, xfb_stride = MORPH_BENCH_VERTEX_BYTES) out;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_POS_AO) out vec4 o_0;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_NORMAL) out vec4 o_1;
layout(xfb_buffer = 0, xfb_offset = MORPH_BENCH_OFFSET_TANGENT) out vec4 o_2;

#ifndef MORPH_TF_FINISH
layout(location = MORPH_TF_ATTR_DPOS_AO) in vec4 a_dpos_ao[MORPH_TF_SHAPES_PER_PASS];
layout(location = MORPH_TF_ATTR_DNORMAL) in vec3 a_dnormal[MORPH_TF_SHAPES_PER_PASS];
layout(location = MORPH_TF_ATTR_DTANGENT) in vec3 a_dtangent[MORPH_TF_SHAPES_PER_PASS];
/* Weights of the pass's shape slots; unused slots have weight 0 and add
 * nothing (morph.glsl skips zero weights; adding w * d = 0 keeps the sum). */
uniform vec4 u_tf_weight;

void main()
{
    vec4 pos_ao = a_acc[0];
    vec3 nrm = a_acc[1].xyz;
    vec3 tan = a_acc[2].xyz;
    for (int k = 0; k < MORPH_TF_SHAPES_PER_PASS; k++) {
        float w = u_tf_weight[k];
        if (w == 0.0)
            continue;
        pos_ao += w * a_dpos_ao[k];
        nrm += w * a_dnormal[k];
        tan += w * a_dtangent[k];
    }
    o_0 = pos_ao;
    o_1 = vec4(nrm, 0.0);
    o_2 = vec4(tan, 0.0);
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
#else
/* Base vertex: position + AO, normal + 0, tangent xyzw. */
layout(location = MORPH_TF_ATTR_BASE) in vec4 a_base[3];

void main()
{
    vec4 pa = a_acc[0];
    vec3 dn = a_acc[1].xyz;
    vec3 dt = a_acc[2].xyz;
    vec3 n = a_base[1].xyz;
    vec4 t = a_base[2];
    o_0 = vec4(a_base[0].xyz + pa.xyz, clamp(a_base[0].w + pa.w, 0.0, 1.0));
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
    /* The finish of morph.glsl's morph_vertex(), which is fused there with
     * its SSBO reads and so cannot be called on a sum from attributes. */
    if (all(equal(dn, vec3(0.0))) && all(equal(dt, vec3(0.0)))) {
        o_1 = vec4(n, 0.0);
        o_2 = t;
        return;
    }
    vec3 nn = n + dn;
    float len2 = dot(nn, nn);
    if (len2 < MORPH_TF_DEGENERATE_SQ) {
        nn = n;
        len2 = dot(nn, nn);
    }
    vec3 on = nn * (1.0 / sqrt(len2));
    o_1 = vec4(on, 0.0);
    vec3 tt = t.xyz + dt;
    for (int attempt = 0; attempt < 2; attempt++) {
        vec3 g = tt - on * dot(tt, on);
        float g2 = dot(g, g);
        if (g2 >= MORPH_TF_DEGENERATE_SQ) {
            o_2 = vec4(g * (1.0 / sqrt(g2)), t.w);
            return;
        }
        tt = t.xyz;
    }
    vec3 ax = abs(on.x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    vec3 g = ax - on * dot(ax, on);
    o_2 = vec4(g * (1.0 / sqrt(dot(g, g))), t.w);
}
#endif
