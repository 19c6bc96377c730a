/* scene.vert: static meshes (terrain, walls, areas) and the marker.
 * Everything that varies slowly across a surface is computed here, per
 * vertex, not per pixel: software rasterisers pay for every pixel's math.
 * u_mode 0 = terrain: albedo from slope, height and soft noise patches;
 * u_mode 1 = vertex colour (sRGB + alpha).
 * STRIDER_NO_FOG: no fog (for what lies wholly before the fog's start,
 * where its amount is 0: gfx.c decides). */
#include "frame.glsl"

layout(location = ATTR_POSITION) in vec3 a_position;
layout(location = ATTR_NORMAL) in vec3 a_normal;
layout(location = ATTR_COLOR) in vec4 a_color;

uniform mat4 u_model;
uniform int u_mode;
uniform vec2 u_height_range; /* terrain min and max height, cm */

out vec3 v_world;
out vec3 v_light;  /* position in the sun's clip space (shadow lookup) */
out vec3 v_normal;
out vec4 v_albedo; /* linear rgb, alpha */
#ifndef STRIDER_NO_FOG
out vec4 v_fog;    /* x amount, yzw colour */
#endif
out float v_skirt; /* 1 on terrain skirts (built with colour alpha 0) */

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

vec3 terrain_albedo(vec3 world, vec3 n)
{
    float slope = 1.0 - clamp(n.y, 0.0, 1.0);
    float range = max(u_height_range.y - u_height_range.x, 1.0);
    float h = clamp((world.y - u_height_range.x) / range, 0.0, 1.0);
    vec3 grass = srgb_to_linear(vec3(0.36, 0.55, 0.24));
    vec3 dry = srgb_to_linear(vec3(0.62, 0.62, 0.40));
    vec3 rock = srgb_to_linear(vec3(0.55, 0.50, 0.45));
    vec3 c = mix(grass, dry, h * 0.6);
    c = mix(c, rock, smoothstep(0.12, 0.35, slope));
    /* Large soft patches break up uniform areas and give a sense of speed. */
    /* Scales stay well above the vertex spacing of the coarsest terrain level. */
    float nz = value_noise(world.xz / 730.0) * 0.6 + value_noise(world.xz / 230.0) * 0.4;
    return c * (0.82 + 0.36 * nz);
}

void main()
{
    vec4 w = u_model * vec4(a_position, 1.0);
    v_world = w.xyz;
    /* Models are rotations + translations only, so the upper 3x3 is fine for normals. */
    v_normal = mat3(u_model) * a_normal;
    v_skirt = 0.0;
    if (u_mode == 0) {
        v_albedo = vec4(terrain_albedo(w.xyz, normalize(v_normal)), 1.0);
        /* Skirts hang below the surface and show only through cracks between
         * levels of detail; the surface above would shadow them. */
        v_skirt = 1.0 - a_color.a;
    } else {
        v_albedo = vec4(srgb_to_linear(a_color.rgb), a_color.a);
    }
#ifndef STRIDER_NO_FOG
    v_fog = fog_at(w.xyz);
#endif
    v_light = (frame.light_view_proj * w).xyz;
    gl_Position = frame.view_proj * w;
}
