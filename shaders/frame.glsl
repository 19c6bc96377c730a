/* frame.glsl: the per-frame uniform block and the lighting, shadow, sky, fog
 * and output helpers shared by every lit shader (scene, character).
 * The block layout must match gfx_frame_ubo_t in src/render/gfx.c (std140).
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
    vec4 sky_ambient;    /* linear rgb, ambient light from the sky onto up-facing surfaces */
    vec4 ground_ambient; /* linear rgb, light bounced up from the ground */
    vec4 fog;            /* x start cm, y 1/falloff cm, z 1 if on, w 1 if grid on */
    vec4 shadow;         /* x 1/map size, y normal offset cm, z depth bias, w fade start (0..1) */
} frame;

layout(binding = TEX_UNIT_SHADOW) uniform sampler2DShadow shadow_map;

vec3 srgb_to_linear(vec3 c) { return pow(c, vec3(2.2)); }

/* Sky radiance along the unit direction d (linear). Powers are written as
 * square roots and repeated squaring: this runs per pixel on software
 * rasterisers, where pow() costs an exp and a log. */
vec3 sky_color(vec3 d)
{
    float up = sqrt(clamp(d.y, 0.0, 1.0));
    vec3 c = mix(frame.sky_horizon.rgb, frame.sky_zenith.rgb, up);
    /* Below the horizon the sky fades to a hazy ground-side tone. */
    float down = clamp(-d.y * 4.0, 0.0, 1.0);
    c = mix(c, frame.sky_horizon.rgb * 0.85, down);
    float s = max(dot(d, frame.sun_dir.xyz), 0.0);
    float s2 = s * s, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8, s64 = s16 * s16 * s16 * s16;
    float s256 = s64 * s64 * s64 * s64;
    c += frame.sun_color.rgb * (0.06 * s8 + 0.4 * s256);
    return c;
}

/* 1 = fully lit, 0 = fully shadowed, at the surface point whose position in
 * the sun's clip space is LIGHT_POS (light_view_proj times the world
 * position; the projection is orthographic, so w = 1 and that product is
 * affine: a vertex shader may compute it and let it be interpolated). One
 * bilinear depth-compare tap (the hardware's 2x2 PCF): with texels of a few
 * cm it gives clean soft-edged shadows, and on llvmpipe each tap costs ~10%
 * of the frame (measured: 4 taps added ~30 ms CPU per 720p frame, 1 tap ~20 ms).
 * Straight-line code on purpose: llvmpipe runs both sides of every branch. */
float shadow_factor_at(vec3 light_pos, vec3 n)
{
    float ndl = dot(n, frame.sun_dir.xyz);
    /* Normal offset: push the lookup off the surface by about a texel, more
     * at grazing angles where acne appears first. */
    vec3 offset = n * (frame.shadow.y * (1.0 + 2.0 * (1.0 - clamp(ndl, 0.0, 1.0))));
    vec3 uvz = (light_pos + mat3(frame.light_view_proj) * offset) * 0.5 + 0.5;
    vec2 edge = abs(uvz.xy * 2.0 - 1.0);
    float e = max(edge.x, edge.y);
    float z = min(uvz.z, 1.0) - frame.shadow.z;
    float s = texture(shadow_map, vec3(uvz.xy, z));
    /* Fade out towards the border of the map so its edge never shows;
     * outside the map everything is lit. */
    return mix(s, 1.0, smoothstep(frame.shadow.w, 1.0, e));
}

/* The same from the world position. */
float shadow_factor(vec3 world_pos, vec3 n)
{
    return shadow_factor_at((frame.light_view_proj * vec4(world_pos, 1.0)).xyz, n);
}

/* Hemispheric ambient + directional sun, linear. LIGHT_POS as for
 * shadow_factor_at; shadow_min lifts the shadow term (1 = never shadowed),
 * for surfaces that only show through cracks. */
vec3 light_surface(vec3 albedo, vec3 n, vec3 light_pos, float ao, float shadow_min)
{
    float hemi = n.y * 0.5 + 0.5;
    vec3 ambient = mix(frame.ground_ambient.rgb, frame.sky_ambient.rgb, hemi);
    float ndl = max(dot(n, frame.sun_dir.xyz), 0.0);
#ifdef STRIDER_NO_SHADOWS
    float sh = 1.0;
#else
    float sh = max(shadow_factor_at(light_pos, n), shadow_min);
#endif
    return albedo * (ambient * ao + frame.sun_color.rgb * ndl * sh);
}
/* Fog amount (x) and colour (yzw) seen from the eye at world_pos. Cheap
 * enough per pixel but usually evaluated per vertex (scene.vert): fog varies
 * slowly across the small triangles of the scene. */
vec4 fog_at(vec3 world_pos)
{
    if (frame.fog.z < 0.5)
        return vec4(0.0);
    vec3 v = world_pos - frame.eye.xyz;
    float d = length(v);
    float f = 1.0 - exp(-max(d - frame.fog.x, 0.0) * frame.fog.y);
    /* Fog takes the colour of the sky just above the horizon in that direction,
     * so distant terrain melts into the sky. */
    vec3 dir = v / max(d, 1e-3);
    vec3 fc = sky_color(normalize(vec3(dir.x, max(dir.y, 0.0) * 0.25 + 0.02, dir.z)));
    return vec4(f, fc);
}

vec3 apply_fog(vec3 c, vec4 fog)
{
    return mix(c, fog.yzw, fog.x);
}

/* Linear -> sRGB encoding with one square root instead of pow() (which
 * costs an exp and a log per channel on software rasterisers): within 0.004
 * of the exact curve above 0.05, within 0.013 in the deepest shadows. */
vec3 linear_to_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return clamp(1.138 * sqrt(c) - 0.138 * c, 0.0, 1.0);
}

/* Filmic shoulder (Narkowicz's ACES fit) then sRGB encoding. */
vec3 tonemap_to_srgb(vec3 c)
{
    c *= 0.78; /* exposure */
    c = clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
    return linear_to_srgb(c);
}
