/* sky.vert: one triangle covering the screen at the far plane. */
#include "frame.glsl"

out vec2 v_ndc;

void main()
{
    vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
    v_ndc = p;
    gl_Position = vec4(p, 1.0, 1.0);
}
