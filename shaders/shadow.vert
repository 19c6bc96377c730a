/* shadow.vert: depth-only pass from the sun. The projection is a uniform,
 * not frame.light_view_proj: the static casters' cache is drawn through a
 * wider window of the same texel grid (src/render/gfx.c). */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;

uniform mat4 u_model;
uniform mat4 u_light_view_proj;

void main()
{
    gl_Position = u_light_view_proj * (u_model * vec4(a_position, 1.0));
}
