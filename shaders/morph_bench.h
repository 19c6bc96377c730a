/* morph_bench.h: the vertex layout and attribute locations of the offscreen
 * blend-shape benchmark (src/render/gfx_morph_bench.c, shaders/morph_bench.vert,
 * shaders/morph_tf.vert), shared by C and GLSL. Only #define lines and
 * comments, so both languages parse it.
 * One "morph vertex" (base input, stream-out accumulator, captured output)
 * is three vec4 = 48 bytes: position xyz + AO, normal xyz + 0, tangent xyzw;
 * the same record STRIDER_MORPH_BAKE in character.vert writes.
 */
#ifndef STRIDER_MORPH_BENCH_H
#define STRIDER_MORPH_BENCH_H

#define MORPH_BENCH_VERTEX_BYTES 48
#define MORPH_BENCH_VERTEX_FLOATS 12
/* Byte offsets inside a morph vertex (and inside a morph.glsl delta record,
 * which has the same three-vec4 shape: dpos + dao, dnormal + target, dtangent). */
#define MORPH_BENCH_OFFSET_POS_AO 0
#define MORPH_BENCH_OFFSET_NORMAL 16
#define MORPH_BENCH_OFFSET_TANGENT 32

/* Stream-out passes (morph_tf.vert): shapes applied per pass, and attribute
 * locations: the running sum (3 vec4), then per shape slot k the delta's
 * pos_ao, normal and tangent. 3 + 3 * 4 = 15 of the 16 attributes GL 4.3
 * guarantees, which is why a pass takes 4 shapes. */
#define MORPH_TF_SHAPES_PER_PASS 4
#define MORPH_TF_ATTR_ACC 0
#define MORPH_TF_ATTR_DPOS_AO 3
#define MORPH_TF_ATTR_DNORMAL 7
#define MORPH_TF_ATTR_DTANGENT 11
/* Final pass: the base vertex (3 vec4) and the running sum (3 vec4). */
#define MORPH_TF_ATTR_BASE 3

#endif
