/* character.vert: the character of gfx_character.c. Without
 * STRIDER_GPU_SKIN, positions, normals, tangents and AO arrive already
 * morphed and skinned in model space (CPU path). With it, they arrive in
 * bind pose (blend shapes already applied on the CPU) and skin.glsl deforms
 * them by the palette SSBO with the joints/weights attributes. u_model
 * places the figure in the world (rotation + translation).
 * STRIDER_SKIN_CAPTURE (tests): also writes the skinned model-space vertex
 * to an SSBO, indexed by gl_VertexID. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
layout(location = ATTR_UV) in vec2 a_uv;
layout(location = ATTR_AO) in float a_ao;
/* The character has no vertex colours; the material index uses that slot. */
layout(location = ATTR_COLOR) in uint a_material;
#ifdef STRIDER_GPU_SKIN
#include "skin.glsl"
layout(location = ATTR_JOINTS) in uvec4 a_joints;
layout(location = ATTR_WEIGHTS) in vec4 a_weights;
#endif
#ifdef STRIDER_SKIN_CAPTURE
/* Per vertex: position xyz + pad, normal xyz + pad, tangent xyzw. */
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
out vec4 v_fog;

void main()
{
#ifdef STRIDER_GPU_SKIN
    skin_out s = skin_vertex(a_position, a_normal, a_tangent.xyz, a_joints, a_weights);
    vec3 position = s.position, normal = s.normal;
    vec4 tangent = vec4(s.tangent, a_tangent.w);
#else
    vec3 position = a_position, normal = a_normal;
    vec4 tangent = a_tangent;
#endif
#ifdef STRIDER_SKIN_CAPTURE
    skin_capture[3 * gl_VertexID] = vec4(position, 1.0);
    skin_capture[3 * gl_VertexID + 1] = vec4(normal, 0.0);
    skin_capture[3 * gl_VertexID + 2] = tangent;
#endif
    vec4 w = u_model * vec4(position, 1.0);
    mat3 r = mat3(u_model);
    v_world = w.xyz;
    v_normal = r * normal;
    v_tangent = vec4(r * tangent.xyz, tangent.w);
    v_uv = a_uv;
    v_ao = a_ao;
    uint m = min(a_material, uint(MATERIAL_SLOTS - 1));
    v_albedo = u_material_color[m].rgb;
    v_material = u_material_params[m].xy;
    v_fog = fog_at(w.xyz);
    gl_Position = frame.view_proj * w;
}
