/* scene.frag: lit, shadowed, fogged surfaces; the terrain (u_mode 0) also
 * gets anti-aliased grid lines every metre (stronger every 10 m) that fade
 * out with distance, so motion reads. Albedo and fog come from scene.vert
 * (STRIDER_NO_FOG: none, see there). */
#include "frame.glsl"

in vec3 v_world;
in vec3 v_light;
in vec3 v_normal;
in vec4 v_albedo;
#ifndef STRIDER_NO_FOG
in vec4 v_fog;
#endif
in float v_skirt;

uniform int u_mode;

out vec4 o_color;

/* Line coverage for cells of 'cell' cm, about width_px wide; fades to 0
 * where a pixel spans a large part of a cell, which would only alias. */
float grid_lines(vec2 p, float cell, float width_px)
{
    vec2 q = p / cell;
    vec2 fw = fwidth(q);
    vec2 g = abs(fract(q - 0.5) - 0.5) / max(fw, 1e-5);
    float line = 1.0 - clamp(min(g.x, g.y) / width_px, 0.0, 1.0);
    return line * (1.0 - smoothstep(0.08, 0.35, max(fw.x, fw.y)));
}

void main()
{
    vec3 n = normalize(v_normal);
    /* Two-sided lighting for thin props; not for the terrain, whose skirts
     * are seen from behind and must shade like the surface above them. */
    if (!gl_FrontFacing && u_mode != 0)
        n = -n;
    vec3 albedo = v_albedo.rgb;
    if (u_mode == 0 && frame.fog.w > 0.5) {
        float minor = grid_lines(v_world.xz, 100.0, 1.0);
        float major = grid_lines(v_world.xz, 1000.0, 1.5);
        albedo *= 1.0 - 0.28 * max(minor, major) - 0.2 * major;
    }
    vec3 c = light_surface(albedo, n, v_light, 1.0, v_skirt);
#ifndef STRIDER_NO_FOG
    c = apply_fog(c, v_fog);
#endif
    o_color = vec4(tonemap_to_srgb(c), v_albedo.a);
}
