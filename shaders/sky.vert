/* sky.vert: a unit sphere around the eye, pushed to the far plane. The sky
 * colour is smooth, so it is computed (and tonemapped) per vertex. */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;

out vec3 v_color; /* sRGB */

void main()
{
    vec3 d = normalize(a_position);
    v_color = tonemap_to_srgb(sky_color(d));
    /* Direction only: rotate with the view, ignore the eye's translation,
     * and put depth at 1 (z = w) so everything else is drawn in front. */
    vec4 p = frame.view_proj * vec4(frame.eye.xyz + d * 1000.0, 1.0);
    gl_Position = p.xyww;
}
