/* character.vert: the CPU-deformed character (gfx_character.c). Positions,
 * normals, tangents and AO arrive already morphed and skinned in model
 * space; u_model places the figure in the world (rotation + translation). */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_TANGENT) in vec4 a_tangent;
layout(location = ATTR_UV) in vec2 a_uv;
layout(location = ATTR_AO) in float a_ao;
/* The character has no vertex colours; the material index uses that slot. */
layout(location = ATTR_COLOR) in uint a_material;

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
    vec4 w = u_model * vec4(a_position, 1.0);
    mat3 r = mat3(u_model);
    v_world = w.xyz;
    v_normal = r * a_normal;
    v_tangent = vec4(r * a_tangent.xyz, a_tangent.w);
    v_uv = a_uv;
    v_ao = a_ao;
    uint m = min(a_material, uint(MATERIAL_SLOTS - 1));
    v_albedo = u_material_color[m].rgb;
    v_material = u_material_params[m].xy;
    v_fog = fog_at(w.xyz);
    gl_Position = frame.view_proj * w;
}
