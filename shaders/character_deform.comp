/* character_deform.comp: the character's deformation once per frame in a
 * compute pass (render/gfx_character_once.c): every vertex of a range of
 * meshes is morphed (STRIDER_GPU_MORPH: morph.glsl, dense or sparse by
 * MORPH_LAYOUT) and skinned (skin.glsl, SKIN_METHOD) exactly as
 * character.vert does per pass, and written to the frame's buffer of
 * deformed vertices, which both passes then draw with the plain programs.
 * Transform feedback did this job before; on NVIDIA it streams out about
 * 0.2 G vertices/s whatever the shader does, a compute pass writes at
 * memory speed.
 * Inputs (SSBOs; morphing, DEFORM_MORPH_LANES threads a vertex, else one;
 * vertex index = u_deform_first + its number in the range: the character's
 * global numbering):
 *   SSBO_DEFORM_SOURCE  the bind pose laid out as a stream slot: positions
 *       (3 floats a vertex) at 0, normals (3) at u_source_normal, tangents
 *       (4) at u_source_tangent, AO (1) at u_source_ao (offsets in floats);
 *   SSBO_DEFORM_SKIN    per vertex 6 uints: joints 0,1 and 2,3 as 16-bit
 *       halves (low first), then the 4 weights' float bits;
 *   SSBO_PALETTE, and the blend-shape blocks of morph.glsl.
 * Output: SSBO_DEFORM_OUT, per vertex 3 vec4 (SKIN_FEEDBACK_VEC4S):
 * position + AO, normal + 0, tangent xyz + handedness.
 * Does NOT: draw, or read past the bound ranges (.length() checks). */
#include "shader_interface.h"

layout(local_size_x = DEFORM_GROUP_SIZE) in;

#ifdef STRIDER_GPU_MORPH
#include "morph.glsl"
#endif
#include "skin.glsl"

layout(std430, binding = SSBO_DEFORM_SOURCE) readonly buffer deform_source_block {
    float deform_source[];
};
layout(std430, binding = SSBO_DEFORM_SKIN) readonly buffer deform_skin_block {
    uint deform_skin[];
};
layout(std430, binding = SSBO_DEFORM_OUT) writeonly buffer deform_out_block {
    vec4 deform_out[];
};

uniform uint u_deform_first;
uniform uint u_deform_count;
uniform uint u_source_normal;
uniform uint u_source_tangent;
uniform uint u_source_ao;

#ifdef STRIDER_GPU_MORPH
/* Threads of a vertex and vertices of a group. */
#define LANES DEFORM_MORPH_LANES
#define GROUP_VERTICES DEFORM_MORPH_GROUP_VERTICES
/* Each thread's slice of a blend-shape sum, for the vertex's first thread. */
shared vec4 deform_slices[DEFORM_GROUP_SIZE];
#else
#define LANES 1
#define GROUP_VERTICES DEFORM_GROUP_SIZE
#endif

void main()
{
    /* Morphing, twelve threads a vertex: thread (part, slice) sums one slice
     * of one part of the blend-shape deltas (morph_accumulate_slice: a
     * twelfth of the loads, twelve times the loads in flight), then the
     * vertex's first thread combines them, finishes the morph, skins and
     * writes. Skinning alone, a thread a vertex. */
    uint l = gl_LocalInvocationID.x, slot = l / uint(LANES), lane = l - slot * uint(LANES);
    uint i = gl_WorkGroupID.x * uint(GROUP_VERTICES) + slot;
    uint v = u_deform_first + i;
    bool live = slot < uint(GROUP_VERTICES) && i < u_deform_count &&
                u_source_ao + v < uint(deform_source.length()) && 6u * v + 5u < uint(deform_skin.length()) &&
                3u * v + 2u < uint(deform_out.length());
#ifdef STRIDER_GPU_MORPH
    uint part = lane / uint(MORPH_SLICES), slice = lane - part * uint(MORPH_SLICES);
    deform_slices[l] = live ? morph_accumulate_slice(uint(int(v) - u_morph_first_vertex), part, slice) : vec4(0.0);
    memoryBarrierShared();
    barrier();
#endif
    if (!live || lane != 0u)
        return;
    vec3 position = vec3(deform_source[3u * v], deform_source[3u * v + 1u], deform_source[3u * v + 2u]);
    uint n0 = u_source_normal + 3u * v, t0 = u_source_tangent + 4u * v;
    vec3 normal = vec3(deform_source[n0], deform_source[n0 + 1u], deform_source[n0 + 2u]);
    vec4 tangent = vec4(deform_source[t0], deform_source[t0 + 1u], deform_source[t0 + 2u], deform_source[t0 + 3u]);
    float ao = deform_source[u_source_ao + v];
#ifdef STRIDER_GPU_MORPH
    vec4 sums[MORPH_PARTS];
    for (uint p = 0u; p < uint(MORPH_PARTS); p++) {
        uint at = l + p * uint(MORPH_SLICES);
        sums[p] = morph_combine(deform_slices[at], deform_slices[at + 1u], deform_slices[at + 2u], deform_slices[at + 3u]);
    }
    morph_out mo = morph_finish(position, normal, tangent, ao, sums[0], sums[1].xyz, sums[2].xyz);
    position = mo.position;
    normal = mo.normal;
    tangent = mo.tangent;
    ao = mo.ao;
#endif
    uint j01 = deform_skin[6u * v], j23 = deform_skin[6u * v + 1u];
    uvec4 joints = uvec4(j01 & 0xffffu, j01 >> 16, j23 & 0xffffu, j23 >> 16);
    vec4 weights = uintBitsToFloat(uvec4(deform_skin[6u * v + 2u], deform_skin[6u * v + 3u], deform_skin[6u * v + 4u],
                                         deform_skin[6u * v + 5u]));
    skin_out s = skin_vertex(position, normal, tangent.xyz, joints, weights);
    deform_out[3u * v] = vec4(s.position, ao);
    deform_out[3u * v + 1u] = vec4(s.normal, 0.0);
    deform_out[3u * v + 2u] = vec4(s.tangent, tangent.w);
}
