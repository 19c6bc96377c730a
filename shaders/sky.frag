/* sky.frag: vertical gradient + sun glow, matching apply_fog's colours. */
#include "frame.glsl"

in vec2 v_ndc;
out vec4 o_color;

void main()
{
    vec4 far_pt = frame.inv_view_proj * vec4(v_ndc, 1.0, 1.0);
    vec3 d = normalize(far_pt.xyz / far_pt.w - frame.eye.xyz);
    o_color = vec4(tonemap_to_srgb(sky_color(d)), 1.0);
}
