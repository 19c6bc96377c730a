/* skin_bench.frag: the two passes of the skin-once / per-pass benchmark.
 * SKIN_BENCH_DEPTH_ONLY: a shadow-like depth pass (no colour). Otherwise the
 * main pass: a plain diffuse shade of the skinned normal, enough to make the
 * normals visible in the read-back image. */
#ifdef SKIN_BENCH_DEPTH_ONLY
void main() {}
#else
in vec3 v_normal;
uniform vec3 u_light_dir;
layout(location = 0) out vec4 o_color;

void main()
{
    float d = max(dot(normalize(v_normal), u_light_dir), 0.0);
    o_color = vec4(vec3(0.15 + 0.85 * d), 1.0);
}
#endif
