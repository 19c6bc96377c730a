/* skin_bench.vert: one mesh skinned for `strider bench skinning` and its
 * tests (render/gfx_skin_bench), with the game's skinning code (skin.glsl).
 * Variants (defines):
 *   SKIN_METHOD, SKIN_INFLUENCES    as in skin.glsl (SKIN_INFLUENCES: a fixed count)
 *   SKIN_BENCH_COMPRESSED           the 24-byte anim/vcompress stream, decoded here
 *                                   with exactly vcompress_unpack()'s formulas
 *   SKIN_BENCH_PASSTHROUGH          the vertices are already skinned (skin once)
 *   SKIN_BENCH_LERP                 Cebenoyan's hybrid: lerp two CPU-skinned keys by u_t
 *                                   (key 0 in the position/normal slots, key 1 in the
 *                                   tangent/weight slots; the normal is renormalised)
 *   SKIN_BENCH_DRAW                 rasterise with u_view_proj (depth / main pass);
 *                                   otherwise only the outputs matter (transform feedback)
 * Outputs v_position, v_normal, v_tangent are the transform-feedback varyings
 * (model space, cm; unit normal; unit tangent with handedness in w). */
#include "shader_interface.h"

#if defined(SKIN_BENCH_PASSTHROUGH)
layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
#elif defined(SKIN_BENCH_LERP)
layout(location = ATTR_POSITION) in vec3 a_key0_position;
layout(location = ATTR_NORMAL) in vec3 a_key0_normal;
layout(location = ATTR_TANGENT) in vec3 a_key1_position;
layout(location = ATTR_WEIGHTS) in vec3 a_key1_normal;
uniform float u_t;
#else
#include "skin.glsl"
layout(location = ATTR_JOINTS) in uvec4 a_joints;
layout(location = ATTR_WEIGHTS) in vec4 a_weights;
#ifdef SKIN_BENCH_COMPRESSED
/* Fetched as unorm16 (0..1), snorm16 and snorm 10-10-10-2 (w: -1, 0 or +1). */
layout(location = ATTR_POSITION) in vec3 a_position_q;
layout(location = ATTR_NORMAL) in vec2 a_normal_oct;
layout(location = ATTR_TANGENT) in vec4 a_tangent_q;
uniform vec3 u_pos_bias;
uniform vec3 u_pos_extent;

vec3 oct_decode(vec2 e)
{
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    float t = max(-n.z, 0.0);
    n.x += n.x >= 0.0 ? -t : t;
    n.y += n.y >= 0.0 ? -t : t;
    return normalize(n);
}
#else
layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
#endif
#endif

#ifdef SKIN_BENCH_DRAW
uniform mat4 u_view_proj;
#endif

out vec3 v_position;
out vec3 v_normal;
out vec4 v_tangent;

void main()
{
#if defined(SKIN_BENCH_PASSTHROUGH)
    v_position = a_position;
    v_normal = a_normal;
    v_tangent = a_tangent;
#elif defined(SKIN_BENCH_LERP)
    /* skin_hybrid_run()'s math: (1 - t) k0 + t k1, normals renormalised. */
    v_position = (1.0 - u_t) * a_key0_position + u_t * a_key1_position;
    vec3 n = (1.0 - u_t) * a_key0_normal + u_t * a_key1_normal;
    v_normal = dot(n, n) > 1e-12 ? normalize(n) : a_key0_normal;
    v_tangent = vec4(0.0);
#else
#ifdef SKIN_BENCH_COMPRESSED
    vec3 p = u_pos_bias + u_pos_extent * a_position_q;
    vec3 n = oct_decode(a_normal_oct);
    vec4 t = vec4(normalize(a_tangent_q.xyz), a_tangent_q.w < 0.0 ? -1.0 : 1.0);
#else
    vec3 p = a_position, n = a_normal;
    vec4 t = a_tangent;
#endif
    skin_out s = skin_vertex(p, n, t.xyz, a_joints, a_weights);
    v_position = s.position;
    v_normal = s.normal;
    v_tangent = vec4(s.tangent, t.w);
#endif
#ifdef SKIN_BENCH_DRAW
    gl_Position = u_view_proj * vec4(v_position, 1.0);
#else
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
#endif
}
