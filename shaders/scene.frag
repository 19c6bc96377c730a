/* scene.frag: lit, shadowed, fogged surfaces. u_mode 0 = terrain (procedural
 * slope/height colouring and a 1 m grid), 1 = vertex colour (sRGB, alpha). */
#include "frame.glsl"

in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;

uniform int u_mode;
uniform vec2 u_height_range; /* terrain min and max height, cm */

out vec4 o_color;

float hash12(vec2 p)
{
    vec3 p3 = fract(vec3(p.xyx) * 0.1031);
    p3 += dot(p3, p3.yzx + 33.33);
    return fract((p3.x + p3.y) * p3.z);
}

float value_noise(vec2 p)
{
    vec2 i = floor(p);
    vec2 f = fract(p);
    f = f * f * (3.0 - 2.0 * f);
    float a = hash12(i), b = hash12(i + vec2(1, 0));
    float c = hash12(i + vec2(0, 1)), d = hash12(i + vec2(1, 1));
    return mix(mix(a, b, f.x), mix(c, d, f.x), f.y);
}

/* Anti-aliased grid line coverage for cells of 'cell' cm; fades to 0 where a
 * pixel covers a large part of a cell (distance), which would only alias. */
float grid_lines(vec2 p, float cell, float width_px)
{
    vec2 q = p / cell;
    vec2 fw = fwidth(q);
    vec2 g = abs(fract(q - 0.5) - 0.5) / max(fw, 1e-5);
    float line = 1.0 - clamp(min(g.x, g.y) / width_px, 0.0, 1.0);
    float fade = 1.0 - smoothstep(0.08, 0.35, max(fw.x, fw.y));
    return line * fade;
}

vec3 terrain_albedo(vec3 n)
{
    float slope = 1.0 - clamp(n.y, 0.0, 1.0);
    float range = max(u_height_range.y - u_height_range.x, 1.0);
    float h = clamp((v_world.y - u_height_range.x) / range, 0.0, 1.0);
    vec3 grass = srgb_to_linear(vec3(0.42, 0.55, 0.30));
    vec3 dry = srgb_to_linear(vec3(0.62, 0.62, 0.40));
    vec3 rock = srgb_to_linear(vec3(0.52, 0.47, 0.42));
    vec3 c = mix(grass, dry, h * 0.6);
    c = mix(c, rock, smoothstep(0.12, 0.35, slope));
    /* Large soft patches break up uniform areas and give a sense of speed. */
    float nz = value_noise(v_world.xz / 370.0) * 0.6 + value_noise(v_world.xz / 97.0) * 0.4;
    c *= 0.85 + 0.3 * nz;
    if (frame.fog.w > 0.5) {
        float minor = grid_lines(v_world.xz, 100.0, 1.0);
        float major = grid_lines(v_world.xz, 1000.0, 1.5);
        c *= 1.0 - 0.28 * max(minor, major) - 0.2 * major;
    }
    return c;
}

void main()
{
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing)
        n = -n;
    vec3 albedo;
    float alpha = 1.0;
    if (u_mode == 0) {
        albedo = terrain_albedo(n);
    } else {
        albedo = srgb_to_linear(v_color.rgb);
        alpha = v_color.a;
    }
    vec3 c = light_surface(albedo, n, v_world, 1.0);
    c = apply_fog(c, v_world);
    o_color = vec4(tonemap_to_srgb(c), alpha);
}
