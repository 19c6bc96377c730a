/* character_shadow.vert: the deformed character into the sun's depth map. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;

uniform mat4 u_model;

void main()
{
    gl_Position = frame.light_view_proj * (u_model * vec4(a_position, 1.0));
}
