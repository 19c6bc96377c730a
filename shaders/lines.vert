/* lines.vert: debug lines, world positions with sRGB colours. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_COLOR) in vec4 a_color;

out vec4 v_color;

void main()
{
    v_color = a_color;
    gl_Position = frame.view_proj * vec4(a_position, 1.0);
}
