/* character.vert: the character of gfx_character.c. Without
 * STRIDER_GPU_SKIN, positions, normals, tangents and AO arrive already
 * morphed and skinned in model space (CPU path). With it, they arrive in
 * bind pose and skin.glsl deforms them by the palette SSBO with the
 * joints/weights attributes. STRIDER_GPU_MORPH (with MORPH_LAYOUT) first
 * applies the blend shapes from SSBOs (morph.glsl), so the attributes are
 * the unmorphed bind pose; without it they arrive already morphed (CPU).
 * u_model places the figure in the world (rotation + translation).
 * STRIDER_SKIN_CAPTURE (tests): also writes the deformed model-space vertex
 * (position + AO, normal, tangent) to an SSBO, indexed by gl_VertexID.
 * STRIDER_MORPH_BAKE (with STRIDER_GPU_MORPH, without STRIDER_GPU_SKIN):
 * the morphed bind-pose vertex goes out through transform feedback, three
 * vec4 per vertex (position + AO, normal + 0, tangent), for the bake.
 * (Skin once deforms in a compute pass, character_deform.comp, with this
 * shader's morph.glsl and skin.glsl; both passes then draw its output with
 * the plain (CPU-path) variants.)
 * STRIDER_HYBRID (CPU path): Cebenoyan's hybrid; the attributes hold the
 * newer of two CPU-skinned keys, ATTR_KEY0_* the older, and the vertex is
 * (1 - t) key0 + t key1 at t = u_hybrid_t (normals and tangents lerped and
 * renormalised, AO lerped, handedness of the newer key; skin_hybrid_run's
 * math); at t >= 1 the newer key passes through bit for bit.
 * STRIDER_NO_FOG: no fog (the whole figure lies before the fog's start,
 * where its amount is 0: gfx_character.c decides).
 * STRIDER_CROWD (with STRIDER_GPU_SKIN, SKIN_METHOD 1; gfx_crowd.c): one
 * instanced draw covers many characters. ATTR_INSTANCE (divisor 1) names
 * the instance, whose palette in SSBO_PALETTE maps the bind pose straight
 * to the world: no u_model. Everything else (materials, lighting, shadow,
 * fog) is this shader's, so a crowd character looks like the player.
 * STRIDER_CROWD_CPU (with STRIDER_CROWD, without STRIDER_GPU_SKIN;
 * gfx_crowd_cpu.c): the crowd skinned on the CPU. ATTR_INSTANCE is the
 * float offset of the instance's vertices in SSBO_CROWD_VERTICES (already
 * in the world); the attributes give the rest (uv, AO, material) of the
 * level's own vertices, which start at u_lod_first and number
 * u_lod_vertices. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
layout(location = ATTR_UV) in vec2 a_uv;
layout(location = ATTR_AO) in float a_ao;
/* The character has no vertex colours; the material index uses that slot. */
layout(location = ATTR_COLOR) in uint a_material;
#ifdef STRIDER_CROWD
layout(location = ATTR_INSTANCE) in uint a_instance;
#define SKIN_PALETTE_BASE (a_instance * uint(u_joint_count) * 3u)
#endif
#ifdef STRIDER_CROWD_CPU
#include "crowd_cpu.glsl"
#endif
#ifdef STRIDER_GPU_SKIN
#include "skin.glsl"
layout(location = ATTR_JOINTS) in uvec4 a_joints;
layout(location = ATTR_WEIGHTS) in vec4 a_weights;
#endif
#ifdef STRIDER_GPU_MORPH
#include "morph.glsl"
#endif
#ifdef STRIDER_HYBRID
layout(location = ATTR_KEY0_POSITION) in vec3 a_key0_position;
layout(location = ATTR_KEY0_NORMAL) in vec3 a_key0_normal;
layout(location = ATTR_KEY0_TANGENT) in vec4 a_key0_tangent;
layout(location = ATTR_KEY0_AO) in float a_key0_ao;
uniform float u_hybrid_t;
/* Below this squared length a lerped direction is degenerate (two opposite
 * keys): keep the older key's, as skin_hybrid_run does. */
#define HYBRID_DEGENERATE_SQ 1e-12
vec3 hybrid_direction(vec3 d0, vec3 d1, float t)
{
    vec3 d = (1.0 - t) * d0 + t * d1;
    float len2 = dot(d, d);
    return len2 > HYBRID_DEGENERATE_SQ ? d * (1.0 / sqrt(len2)) : d0;
}
#endif
#ifdef STRIDER_MORPH_BAKE
layout(xfb_buffer = 0, xfb_stride = 48) out;
layout(xfb_buffer = 0, xfb_offset = 0) out vec4 tf_position_ao;
layout(xfb_buffer = 0, xfb_offset = 16) out vec4 tf_normal;
layout(xfb_buffer = 0, xfb_offset = 32) out vec4 tf_tangent;
#endif
#ifdef STRIDER_SKIN_CAPTURE
/* Per vertex: position xyz + AO, normal xyz + pad, tangent xyzw. */
layout(std430, binding = SSBO_SKIN_CAPTURE) writeonly buffer skin_capture_block {
    vec4 skin_capture[];
};
#endif

uniform mat4 u_model;
#define MATERIAL_SLOTS 64
uniform vec4 u_material_color[MATERIAL_SLOTS];  /* linear rgb, alpha */
uniform vec4 u_material_params[MATERIAL_SLOTS]; /* x roughness, y subsurface */

out vec3 v_world;
out vec3 v_normal;
out vec4 v_tangent;
out vec2 v_uv;
out float v_ao;
/* Material values are interpolated, not flat: a triangle that straddles a
 * material boundary blends across it instead of stair-stepping. */
out vec3 v_albedo;
out vec2 v_material; /* roughness, subsurface */
#ifndef STRIDER_NO_FOG
out vec4 v_fog;
#endif

void main()
{
#ifdef STRIDER_GPU_MORPH
    morph_out mo = morph_vertex(gl_VertexID, a_position, a_normal, a_tangent, a_ao);
    vec3 position = mo.position, normal = mo.normal;
    vec4 tangent = mo.tangent;
    float ao = mo.ao;
#elif defined(STRIDER_CROWD_CPU)
    vec3 position, normal;
    vec4 tangent;
    crowd_cpu_vertex(a_instance, position, normal, tangent);
    float ao = a_ao;
#else
    vec3 position = a_position, normal = a_normal;
    vec4 tangent = a_tangent;
    float ao = a_ao;
#endif
#ifdef STRIDER_HYBRID
    float t = u_hybrid_t;
    if (t < 1.0) {
        position = (1.0 - t) * a_key0_position + t * position;
        normal = hybrid_direction(a_key0_normal, normal, t);
        tangent = vec4(hybrid_direction(a_key0_tangent.xyz, tangent.xyz, t), tangent.w);
        ao = (1.0 - t) * a_key0_ao + t * ao;
    }
#endif
#ifdef STRIDER_MORPH_BAKE
    tf_position_ao = vec4(position, ao);
    tf_normal = vec4(normal, 0.0);
    tf_tangent = tangent;
#endif
#ifdef STRIDER_GPU_SKIN
    skin_out s = skin_vertex(position, normal, tangent.xyz, a_joints, a_weights);
    position = s.position;
    normal = s.normal;
    tangent = vec4(s.tangent, tangent.w);
#endif
#ifdef STRIDER_SKIN_CAPTURE
    skin_capture[3 * gl_VertexID] = vec4(position, ao);
    skin_capture[3 * gl_VertexID + 1] = vec4(normal, 0.0);
    skin_capture[3 * gl_VertexID + 2] = tangent;
#endif
#ifdef STRIDER_CROWD
    /* The palette put the vertex in the world already. */
    vec4 w = vec4(position, 1.0);
    v_normal = normal;
    v_tangent = tangent;
#else
    vec4 w = u_model * vec4(position, 1.0);
    mat3 r = mat3(u_model);
    v_normal = r * normal;
    v_tangent = vec4(r * tangent.xyz, tangent.w);
#endif
    v_world = w.xyz;
    v_uv = a_uv;
    v_ao = ao;
    uint m = min(a_material, uint(MATERIAL_SLOTS - 1));
    v_albedo = u_material_color[m].rgb;
    v_material = u_material_params[m].xy;
#ifndef STRIDER_NO_FOG
    v_fog = fog_at(w.xyz);
#endif
    gl_Position = frame.view_proj * w;
}
