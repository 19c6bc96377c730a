/* scene.vert: static meshes (terrain, walls, areas) and the marker. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_COLOR) in vec4 a_color;

uniform mat4 u_model;

out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;

void main()
{
    vec4 w = u_model * vec4(a_position, 1.0);
    v_world = w.xyz;
    /* Models are rotations + translations only, so the upper 3x3 is fine for normals. */
    v_normal = mat3(u_model) * a_normal;
    v_color = a_color;
    gl_Position = frame.view_proj * w;
}
