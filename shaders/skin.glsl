/* skin.glsl: GPU matrix-palette and dual-quaternion skinning, the same math
 * as src/anim/skin.c's scalar kernels. The variant is chosen by a define:
 *   SKIN_METHOD 0  transform by every joint, then blend the points
 *   SKIN_METHOD 1  blend the matrices, then transform once (Dawn 4.4.1)
 *   SKIN_METHOD 2  blend dual quaternions (Kavan; Cebenoyan)
 * The palette SSBO holds, per joint, 3 vec4 rows of a 3x4 row-major matrix
 * (methods 0, 1) or 2 vec4 (real xyzw, dual xyzw; method 2).
 * u_influences (1..4) keeps the first N weights and renormalises them
 * (a compile-time constant when SKIN_INFLUENCES is defined);
 * joints >= u_joint_count contribute nothing.
 * SKIN_PALETTE_BASE (vec4s, default 0) is where the vertex's palette starts
 * in the block: the crowd (gfx_crowd.c) keeps every instance's palette in
 * one buffer and defines it from the instance, so that its characters are
 * skinned by this very code. */
#ifndef SKIN_METHOD
#define SKIN_METHOD 1
#endif
#ifndef SKIN_PALETTE_BASE
#define SKIN_PALETTE_BASE 0u
#endif

layout(std430, binding = SSBO_PALETTE) readonly buffer skin_palette_block {
    vec4 skin_palette[];
};

#ifdef SKIN_INFLUENCES
/* A variant compiled for one influence count (Cebenoyan's binning in
 * shaders/skin_bench.vert): the loops below get constant bounds. Without the
 * define nothing changes: the count is a uniform, as in the game. */
const int u_influences = SKIN_INFLUENCES;
#else
uniform int u_influences;
#endif
uniform int u_joint_count;

struct skin_out {
    vec3 position;
    vec3 normal;
    vec3 tangent;
};

vec4 skin_weights(vec4 w)
{
    if (u_influences >= 4)
        return w;
    float sum = w.x;
    for (int i = 1; i < u_influences; i++)
        sum += w[i];
    float inv = 1.0 / sum;
    vec4 o = vec4(0.0);
    for (int i = 0; i < u_influences; i++)
        o[i] = w[i] * inv;
    return o;
}

#if SKIN_METHOD == 2
vec3 skin_qrot(vec4 r, vec3 v)
{
    vec3 c = cross(r.xyz, v) + r.w * v;
    return v + 2.0 * cross(r.xyz, c);
}
#endif

skin_out skin_vertex(vec3 p, vec3 n, vec3 t, uvec4 joints, vec4 weights)
{
    vec4 w = skin_weights(weights);
    skin_out o;
#if SKIN_METHOD == 0
    vec3 op = vec3(0.0), on = vec3(0.0), ot = vec3(0.0);
    for (int i = 0; i < u_influences; i++) {
        uint j = joints[i];
        if (j >= uint(u_joint_count))
            continue;
        uint b = SKIN_PALETTE_BASE + 3u * j;
        vec4 r0 = skin_palette[b], r1 = skin_palette[b + 1u], r2 = skin_palette[b + 2u];
        op += w[i] * vec3(dot(r0, vec4(p, 1.0)), dot(r1, vec4(p, 1.0)), dot(r2, vec4(p, 1.0)));
        on += w[i] * vec3(dot(r0.xyz, n), dot(r1.xyz, n), dot(r2.xyz, n));
        ot += w[i] * vec3(dot(r0.xyz, t), dot(r1.xyz, t), dot(r2.xyz, t));
    }
    o.position = op;
    o.normal = normalize(on);
    o.tangent = normalize(ot);
#elif SKIN_METHOD == 1
    vec4 b0 = vec4(0.0), b1 = vec4(0.0), b2 = vec4(0.0);
    for (int i = 0; i < u_influences; i++) {
        uint j = joints[i];
        if (j >= uint(u_joint_count))
            continue;
        uint b = SKIN_PALETTE_BASE + 3u * j;
        b0 += w[i] * skin_palette[b];
        b1 += w[i] * skin_palette[b + 1u];
        b2 += w[i] * skin_palette[b + 2u];
    }
    o.position = vec3(dot(b0, vec4(p, 1.0)), dot(b1, vec4(p, 1.0)), dot(b2, vec4(p, 1.0)));
    o.normal = normalize(vec3(dot(b0.xyz, n), dot(b1.xyz, n), dot(b2.xyz, n)));
    o.tangent = normalize(vec3(dot(b0.xyz, t), dot(b1.xyz, t), dot(b2.xyz, t)));
#else
    vec4 br = vec4(0.0), bd = vec4(0.0), q0 = vec4(0.0);
    for (int i = 0; i < u_influences; i++) {
        uint j = joints[i];
        vec4 qr = vec4(0.0), qd = vec4(0.0);
        if (j < uint(u_joint_count)) {
            qr = skin_palette[SKIN_PALETTE_BASE + 2u * j];
            qd = skin_palette[SKIN_PALETTE_BASE + 2u * j + 1u];
        }
        if (i == 0)
            q0 = qr;
        /* Blend in the hemisphere of the heaviest influence. */
        float ws = dot(q0, qr) < 0.0 ? -w[i] : w[i];
        br += ws * qr;
        bd += ws * qd;
    }
    float inv = 1.0 / length(br);
    vec4 r = br * inv, d = bd * inv;
    vec3 tr = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
    o.position = skin_qrot(r, p) + tr;
    o.normal = skin_qrot(r, n);
    o.tangent = skin_qrot(r, t);
#endif
    return o;
}
