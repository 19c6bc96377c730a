/* morph.glsl: GPU blend shapes (morph targets) read from shader storage
 * buffers, indexed by gl_VertexID (GPU Gems 3 ch. 3's buffer-template method
 * in GL 4.x SSBOs). The math is that of src/anim/bshape.c, so the GPU
 * matches the CPU job to rounding:
 *   p  = base + sum w*dp
 *   n  = normalize(base_n + sum w*dn)  (bind normal if that is degenerate)
 *   t  = morphed tangent Gram-Schmidt against n (bind tangent, then an axis,
 *        if degenerate), w (handedness) copied
 *   ao = clamp(base_ao + sum w*dao, 0, 1)  (Dawn 4.3.2: AO rides in .w, so
 *        occlusion changes as the face moves)
 * with the deltas summed in ascending target order into MORPH_SLICES (4)
 * interleaved partial sums, combined pairwise (bshape.c sums in one run:
 * the same terms, another rounding); weights need not sum to
 * 1; a vertex whose summed normal and tangent deltas are exactly zero keeps
 * its bind normal and tangent bit for bit. Deltas live in bind space: blend
 * shapes are applied before skinning.
 *
 * Delta record (struct morph_delta, std430, 48 bytes = MORPH_DELTA_VEC4S
 * vec4s), the same in both layouts:
 *   vec4 pos_ao   dpos.xyz (cm), dao
 *   vec3 nrm      dnormal.xyz      uint target  (sparse: the target index)
 *   vec3 tan      dtangent.xyz     float pad
 * Layouts (MORPH_LAYOUT, defined before the include; values in
 * shader_interface.h, equal to bshape_layout_t):
 *   MORPH_LAYOUT_DENSE   SSBO_BLEND_DELTAS holds target_count x vertex_count
 *       records, target-major (record t * vertex_count + v, zeros included);
 *       SSBO_BLEND_WEIGHTS holds the frame's active list: uint count, uint
 *       pad (MORPH_ACTIVE_HEADER_BYTES), then count (target, weight)
 *       entries with unique targets in ascending order.
 *   MORPH_LAYOUT_SPARSE  SSBO_BLEND_OFFSETS holds vertex_count + 1 uints:
 *       vertex v's pairs are records [off[v], off[v+1]) of SSBO_BLEND_DELTAS,
 *       vertex-major, ascending target per vertex (bshape's sparse layout),
 *       then one uint per pair: its target. A vertex reads 4 bytes per pair
 *       to learn its target and the 48-byte record only when the target is
 *       active: with 50 of 256 shapes on, a fifth of the pairs' bytes.
 *       SSBO_BLEND_WEIGHTS holds one summed weight per target (zero when
 *       inactive).
 * Each block is bound (glBindBufferRange) to one mesh's range. Uniforms:
 *   u_morph_first_vertex  gl_VertexID of the mesh's vertex 0 (base vertex)
 *   u_morph_vertex_count  vertices of the mesh (dense stride, bounds)
 *   u_morph_target_count  targets of the mesh (bounds of every index read)
 * Every index read from a buffer is checked against these and against the
 * bound ranges (.length()), so a bad buffer gives wrong vertices, never
 * out-of-range reads.
 * Entry points: morph_vertex() (everything) and morph_position() (shadow
 * and depth passes: the same position, without normals); a compute pass
 * sums the slices of the parts apart (morph_accumulate_slice(), a thread
 * each), combines them (morph_combine()) and ends with morph_finish().
 * Does NOT: skin (skin.glsl does, afterwards), or write any buffer.
 */
#include "shader_interface.h"

#ifndef MORPH_LAYOUT
#define MORPH_LAYOUT MORPH_LAYOUT_DENSE
#endif

/* Below this squared length a morphed normal or tangent is degenerate
 * (BSHAPE_DEGENERATE_SQ in bshape.c). */
#define MORPH_DEGENERATE_SQ 1e-12

/* The records as vec4s, three a record (struct morph_delta of the header:
 * pos_ao, nrm + target bits, tan + pad): one accessor for every part. */
layout(std430, binding = SSBO_BLEND_DELTAS) readonly buffer morph_delta_block {
    vec4 morph_delta_vec4s[];
};
/* Parts of a record and of the sums: position + AO, normal, tangent. */
#define MORPH_PARTS MORPH_DELTA_VEC4S

#if MORPH_LAYOUT == MORPH_LAYOUT_DENSE
struct morph_entry {
    uint target;
    float weight;
};
layout(std430, binding = SSBO_BLEND_WEIGHTS) readonly buffer morph_active_block {
    uint morph_active_count;
    uint morph_active_pad;
    morph_entry morph_active[];
};
#else
layout(std430, binding = SSBO_BLEND_WEIGHTS) readonly buffer morph_weight_block {
    float morph_weight[];
};
layout(std430, binding = SSBO_BLEND_OFFSETS) readonly buffer morph_offset_block {
    uint morph_offset[];
};
#endif

uniform int u_morph_first_vertex;
uniform uint u_morph_vertex_count;
uniform uint u_morph_target_count;

struct morph_out {
    vec3 position;
    vec3 normal;
    vec4 tangent; /* xyz unit, w handedness */
    float ao;
};

/* Slice SLICE of part PART (0 position + AO, 1 normal in xyz, 2 tangent in
 * xyz) of the summed weighted deltas of vertex V: the active entries
 * (dense) or the vertex's pairs (sparse) i with i mod MORPH_SLICES == SLICE,
 * in order. A part is its slices combined pairwise (morph_combine). The
 * slices and parts are independent sums, so a compute pass gives each its
 * own thread (twelve a vertex: more loads in flight at once, each thread a
 * twelfth of them) and gets the bits one thread summing everything gets.
 * `precise`: no contraction into fused multiply-adds, which a compiler may
 * choose differently in a vertex and a compute shader. */
vec4 morph_accumulate_slice(uint v, uint part, uint slice)
{
    precise vec4 sum = vec4(0.0);
    if (v >= u_morph_vertex_count || part >= uint(MORPH_PARTS))
        return sum;
    uint records = uint(morph_delta_vec4s.length()) / uint(MORPH_PARTS);
#if MORPH_LAYOUT == MORPH_LAYOUT_DENSE
    uint count = min(morph_active_count, u_morph_target_count);
    for (uint i = slice; i < count; i += uint(MORPH_SLICES)) {
        uint t = morph_active[i].target;
        float w = morph_active[i].weight;
        if (t >= u_morph_target_count || w == 0.0)
            continue;
        uint r = t * u_morph_vertex_count + v;
        if (r < records)
            sum += w * morph_delta_vec4s[MORPH_PARTS * r + part];
    }
#else
    /* The pairs' targets follow the offsets in the same block. */
    uint targets = u_morph_vertex_count + 1u;
    uint first = morph_offset[v], last = morph_offset[v + 1u];
    last = min(last, min(records, uint(morph_offset.length()) - targets));
    for (uint i = first + slice; i < last; i += uint(MORPH_SLICES)) {
        uint t = morph_offset[targets + i];
        if (t >= u_morph_target_count)
            continue;
        float w = morph_weight[t];
        if (w == 0.0)
            continue;
        sum += w * morph_delta_vec4s[MORPH_PARTS * i + part];
    }
#endif
    if (part != 0u)
        sum.w = 0.0; /* the record's target bits and pad, not a sum */
    return sum;
}

/* A part from its MORPH_SLICES (4) slices: (s0 + s1) + (s2 + s3). */
vec4 morph_combine(vec4 s0, vec4 s1, vec4 s2, vec4 s3)
{
    precise vec4 a = s0 + s1;
    precise vec4 b = s2 + s3;
    precise vec4 r = a + b;
    return r;
}

/* Part PART of vertex V's summed deltas, its slices summed in one thread. */
vec4 morph_accumulate_part(uint v, uint part)
{
    return morph_combine(morph_accumulate_slice(v, part, 0u), morph_accumulate_slice(v, part, 1u),
                         morph_accumulate_slice(v, part, 2u), morph_accumulate_slice(v, part, 3u));
}

/* Summed weighted deltas of vertex V: xyz position + w AO in POS_AO. */
void morph_accumulate(uint v, bool directions, out vec4 pos_ao, out vec3 nrm, out vec3 tan)
{
    pos_ao = morph_accumulate_part(v, 0u);
    nrm = directions ? morph_accumulate_part(v, 1u).xyz : vec3(0.0);
    tan = directions ? morph_accumulate_part(v, 2u).xyz : vec3(0.0);
}

/* The morphed position of the vertex drawn as VERTEX_ID (gl_VertexID). */
vec3 morph_position(int vertex_id, vec3 p)
{
    vec4 pa;
    vec3 n, t;
    morph_accumulate(uint(vertex_id - u_morph_first_vertex), false, pa, n, t);
    return p + pa.xyz;
}

/* The morphed vertex from its bind-pose values and its summed deltas. */
morph_out morph_finish(vec3 p, vec3 n, vec4 t, float ao, vec4 pa, vec3 dn, vec3 dt)
{
    morph_out o;
    o.position = p + pa.xyz;
    o.ao = clamp(ao + pa.w, 0.0, 1.0);
    if (all(equal(dn, vec3(0.0))) && all(equal(dt, vec3(0.0)))) {
        o.normal = n;
        o.tangent = t;
        return o;
    }
    vec3 nn = n + dn;
    float len2 = dot(nn, nn);
    if (len2 < MORPH_DEGENERATE_SQ) {
        nn = n;
        len2 = dot(nn, nn);
    }
    o.normal = nn * (1.0 / sqrt(len2));
    /* Gram-Schmidt; a morphed tangent parallel to the normal retries with
     * the bind tangent, then with an axis (as bshape.c). */
    vec3 tt = t.xyz + dt;
    for (int attempt = 0; attempt < 2; attempt++) {
        vec3 g = tt - o.normal * dot(tt, o.normal);
        float g2 = dot(g, g);
        if (g2 >= MORPH_DEGENERATE_SQ) {
            o.tangent = vec4(g * (1.0 / sqrt(g2)), t.w);
            return o;
        }
        tt = t.xyz;
    }
    vec3 ax = abs(o.normal.x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    vec3 g = ax - o.normal * dot(ax, o.normal);
    o.tangent = vec4(g * (1.0 / sqrt(dot(g, g))), t.w);
    return o;
}

/* The morphed vertex drawn as VERTEX_ID from its bind-pose values. */
morph_out morph_vertex(int vertex_id, vec3 p, vec3 n, vec4 t, float ao)
{
    vec4 pa;
    vec3 dn, dt;
    morph_accumulate(uint(vertex_id - u_morph_first_vertex), true, pa, dn, dt);
    return morph_finish(p, n, t, ao, pa, dn, dt);
}
