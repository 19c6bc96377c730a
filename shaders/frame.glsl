/* frame.glsl: the per-frame uniform block and the lighting, shadow, sky, fog
 * and output helpers shared by every lit shader (scene, character).
 * The block layout must match gfx_frame_ubo in src/render/gfx.c (std140).
 * Colours in the block are linear; shaders output sRGB-encoded colour
 * (the framebuffer is a plain RGBA8 target, gamma is applied here). */
#include "shader_interface.h"

layout(std140, binding = UBO_FRAME) uniform frame_block {
    mat4 view_proj;
    mat4 inv_view_proj;
    mat4 light_view_proj;
    vec4 eye;            /* xyz camera position, cm */
    vec4 sun_dir;        /* xyz unit, towards the sun; w = 1 if shadows are on */
    vec4 sun_color;      /* linear rgb, includes intensity */
    vec4 sky_zenith;     /* linear rgb */
    vec4 sky_horizon;    /* linear rgb */
    vec4 ground_ambient; /* linear rgb, light bounced up from the ground */
    vec4 fog;            /* x start cm, y 1/falloff cm, z 1 if on, w 1 if grid on */
    vec4 shadow;         /* x 1/map size, y normal offset cm, z depth bias, w fade start (0..1) */
} frame;

layout(binding = TEX_UNIT_SHADOW) uniform sampler2DShadow shadow_map;

vec3 srgb_to_linear(vec3 c) { return pow(c, vec3(2.2)); }

/* Sky radiance along the unit direction d (linear). */
vec3 sky_color(vec3 d)
{
    float up = clamp(d.y, 0.0, 1.0);
    vec3 c = mix(frame.sky_horizon.rgb, frame.sky_zenith.rgb, pow(up, 0.55));
    /* Below the horizon the sky fades to a hazy ground-side tone. */
    float down = clamp(-d.y * 4.0, 0.0, 1.0);
    c = mix(c, frame.sky_horizon.rgb * 0.85, down);
    float s = max(dot(d, frame.sun_dir.xyz), 0.0);
    c += frame.sun_color.rgb * (0.05 * pow(s, 8.0) + 0.35 * pow(s, 256.0));
    return c;
}

/* 1 = fully lit, 0 = fully shadowed. 4 bilinear PCF taps ~ a 3x3 texel kernel. */
float shadow_factor(vec3 world_pos, vec3 n)
{
    if (frame.sun_dir.w < 0.5)
        return 1.0;
    float ndl = dot(n, frame.sun_dir.xyz);
    /* Normal offset: push the lookup off the surface by about a texel, more
     * at grazing angles where acne appears first. */
    vec3 p = world_pos + n * frame.shadow.y * (1.0 + 2.0 * (1.0 - clamp(ndl, 0.0, 1.0)));
    vec4 lp = frame.light_view_proj * vec4(p, 1.0);
    vec3 uvz = lp.xyz / lp.w * 0.5 + 0.5;
    vec2 edge = abs(uvz.xy * 2.0 - 1.0);
    float e = max(edge.x, edge.y);
    if (e >= 1.0 || uvz.z >= 1.0)
        return 1.0;
    float z = uvz.z - frame.shadow.z;
    float t = frame.shadow.x * 0.75;
    float s = texture(shadow_map, vec3(uvz.xy + vec2(-t, -t), z));
    s += texture(shadow_map, vec3(uvz.xy + vec2(t, -t), z));
    s += texture(shadow_map, vec3(uvz.xy + vec2(-t, t), z));
    s += texture(shadow_map, vec3(uvz.xy + vec2(t, t), z));
    s *= 0.25;
    /* Fade out towards the border of the map so its edge never shows. */
    return mix(s, 1.0, smoothstep(frame.shadow.w, 1.0, e));
}

/* Hemispheric ambient + directional sun, linear. */
vec3 light_surface(vec3 albedo, vec3 n, vec3 world_pos, float ao)
{
    float hemi = n.y * 0.5 + 0.5;
    vec3 ambient = mix(frame.ground_ambient.rgb, frame.sky_zenith.rgb * 1.6, hemi);
    float ndl = max(dot(n, frame.sun_dir.xyz), 0.0);
    float sh = ndl > 0.0 ? shadow_factor(world_pos, n) : 0.0;
    return albedo * (ambient * ao + frame.sun_color.rgb * ndl * sh);
}

vec3 apply_fog(vec3 c, vec3 world_pos)
{
    if (frame.fog.z < 0.5)
        return c;
    vec3 v = world_pos - frame.eye.xyz;
    float d = length(v);
    float f = 1.0 - exp(-max(d - frame.fog.x, 0.0) * frame.fog.y);
    /* Fog takes the colour of the sky just above the horizon in that direction,
     * so distant terrain melts into the sky. */
    vec3 dir = v / max(d, 1e-3);
    vec3 fc = sky_color(normalize(vec3(dir.x, max(dir.y, 0.0) * 0.25 + 0.02, dir.z)));
    return mix(c, fc, f);
}

/* Filmic shoulder (Narkowicz's ACES fit) then sRGB encoding. */
vec3 tonemap_to_srgb(vec3 c)
{
    c *= 0.9;
    c = clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
    vec3 lo = c * 12.92;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(lo, hi, step(vec3(0.0031308), c));
}
