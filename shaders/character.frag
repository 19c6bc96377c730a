/* character.frag: per-pixel lighting of the deformed character.
 * - tangent frame from the deformed normal and tangent (Gram-Schmidt again
 *   after interpolation); suit materials get a fine woven-fabric normal
 *   perturbation in that frame, faded out where it would alias;
 * - wrap diffuse (how far light wraps past the terminator grows with the
 *   material's subsurface) with a warm scattering tint in the wrapped band;
 * - GGX specular from the material roughness, Schlick Fresnel;
 * - hemispheric ambient softly darkened by the per-vertex AO (which the
 *   blend shapes animate: closed eyes and mouth darken), and a rim light;
 * - the sun's shadow map (unless STRIDER_NO_SHADOWS) and fog (unless
 *   STRIDER_NO_FOG). */
#include "frame.glsl"

/* Fraction of AO darkening applied to the ambient term (soft, never black). */
#define AO_STRENGTH 0.85
/* Fraction of AO darkening applied to direct sunlight: the shadow map is
 * far too coarse for the inside of the mouth or a closed eyelid's crease,
 * so the baked (and morphed) occlusion stands in for those small shadows. */
#define AO_DIRECT_STRENGTH 0.6
/* Reflectance at normal incidence of skin and cloth (dielectrics). */
#define F0_DIELECTRIC 0.035
#define PI 3.14159265

in vec3 v_world;
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_uv;
in float v_ao;
in vec3 v_albedo;
in vec2 v_material; /* roughness, subsurface */
#ifndef STRIDER_NO_FOG
in vec4 v_fog;
#endif

out vec4 o_color;

/* Height of a plain weave at uv (cycles per uv unit); returns the gradient. */
vec2 weave_gradient(vec2 uv, float cycles)
{
    vec2 p = uv * cycles * 2.0 * PI;
    float sx = sin(p.x), cx = cos(p.x), sy = sin(p.y), cy = cos(p.y);
    /* h = sx * sy * 0.5 + 0.5 * (sx + sy) * 0.25 */
    return vec2(cx * sy * 0.5 + cx * 0.125, sx * cy * 0.5 + cy * 0.125);
}

void main()
{
    vec3 albedo = v_albedo;
    float rough = clamp(v_material.x, 0.04, 1.0);
    float sss = clamp(v_material.y, 0.0, 1.0);

    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing)
        n = -n;
    vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);
    t = t * inversesqrt(max(dot(t, t), 1e-12));
    vec3 b = v_tangent.w * cross(n, t);

    /* Woven cloth on rough, non-scattering materials (the suit). */
    float cloth = (1.0 - sss) * smoothstep(0.45, 0.7, rough);
    vec2 fw = fwidth(v_uv * 90.0);
    float fade = 1.0 - smoothstep(0.25, 0.6, max(fw.x, fw.y));
    vec2 g = weave_gradient(v_uv, 90.0) * 0.08 * cloth * fade;
    n = normalize(n - t * g.x - b * g.y);

    vec3 v = normalize(frame.eye.xyz - v_world);
    vec3 l = frame.sun_dir.xyz;
    float ndl = dot(n, l);
    /* Clamped above too: the dot of two normalised vectors can round to
     * 1 + 1 ulp where the surface faces the eye, and pow() of the negative
     * 1 - ndv below is undefined (NaN on llvmpipe: a black pixel). */
    float ndv = clamp(dot(n, v), 1e-3, 1.0);

#ifdef STRIDER_NO_SHADOWS
    float sh = 1.0;
#else
    float sh = shadow_factor(v_world, normalize(v_normal));
#endif

    /* Wrap diffuse; the band between plain Lambert and the wrapped term is
     * tinted warm, as light scattered under the skin comes out reddish. */
    float wrap = 0.6 * sss;
    float lambert = max(ndl, 0.0);
    float wrapped = max((ndl + wrap) / (1.0 + wrap), 0.0);
    vec3 scatter_tint = mix(vec3(1.0), vec3(1.0, 0.42, 0.28), sss);
    vec3 diffuse = albedo * (vec3(lambert) + (wrapped - lambert) * scatter_tint);
    /* Shadows soften at the terminator of scattering materials too. */
    float sh_soft = mix(sh, sqrt(sh), sss);

    /* GGX specular with a Schlick Fresnel and a Kelemen visibility term. */
    vec3 h = normalize(l + v);
    float ndh = clamp(dot(n, h), 0.0, 1.0), vdh = clamp(dot(v, h), 0.0, 1.0); /* pow(1 - vdh) as ndv */
    float a = rough * rough, a2 = a * a;
    float dd = ndh * ndh * (a2 - 1.0) + 1.0;
    float d = a2 / (PI * dd * dd);
    float fr = F0_DIELECTRIC + (1.0 - F0_DIELECTRIC) * pow(1.0 - vdh, 5.0);
    float spec = d * fr / (4.0 * max(vdh * vdh, 0.05)) * lambert;

    float ao_raw = clamp(v_ao, 0.0, 1.0);
    vec3 sun = frame.sun_color.rgb * sh_soft * mix(1.0, ao_raw, AO_DIRECT_STRENGTH);
    float ao = mix(1.0, ao_raw, AO_STRENGTH);
    float hemi = n.y * 0.5 + 0.5;
    vec3 ambient = mix(frame.ground_ambient.rgb, frame.sky_ambient.rgb, hemi) * ao;
    /* Ambient specular: a faint sky reflection, stronger at grazing angles. */
    vec3 env_spec = sky_color(reflect(-v, n)) * (F0_DIELECTRIC + (1.0 - F0_DIELECTRIC) * pow(1.0 - ndv, 5.0)) *
                    (1.0 - rough) * ao;

    /* Rim: a cool back light that outlines the silhouette against the sky,
     * weaker where AO says the surface is tucked in. */
    float rim = pow(1.0 - ndv, 3.0) * (0.35 + 0.65 * clamp(0.5 - 0.5 * dot(v, l), 0.0, 1.0));
    vec3 rim_light = frame.sky_zenith.rgb * 0.9 * rim * ao * mix(0.6, 1.0, hemi);

    vec3 c = diffuse * sun + albedo * ambient + spec * sun + env_spec + rim_light * mix(albedo, vec3(1.0), 0.35);
#ifndef STRIDER_NO_FOG
    c = apply_fog(c, v_fog);
#endif
    o_color = vec4(tonemap_to_srgb(c), 1.0);
}
