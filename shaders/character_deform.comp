/* character_deform.comp: the character's deformation once per frame in a
 * compute pass (render/gfx_character_once.c): every vertex of a range of
 * meshes is morphed (STRIDER_GPU_MORPH: morph.glsl, dense or sparse by
 * MORPH_LAYOUT) and skinned (skin.glsl, SKIN_METHOD) exactly as
 * character.vert does per pass, and written to the frame's buffer of
 * deformed vertices, which both passes then draw with the plain programs.
 * Transform feedback did this job before; on NVIDIA it streams out about
 * 0.2 G vertices/s whatever the shader does, a compute pass writes at
 * memory speed.
 * Inputs (SSBOs; three threads a vertex, DEFORM_GROUP_VERTICES vertices a
 * work group, vertex index = u_deform_first + its number in the range: the
 * character's global numbering):
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
/* Each thread's blend-shape sum, for the vertex's first thread. */
shared vec4 deform_parts[DEFORM_GROUP_SIZE];
#endif

void main()
{
    /* Three threads a vertex: thread `part` sums the vertex's part of the
     * blend-shape deltas (morph_accumulate_part: a third of the loads, three
     * times the threads in flight), then the vertex's first thread finishes
     * the morph, skins and writes. */
    uint l = gl_LocalInvocationID.x, slot = l / uint(MORPH_DELTA_VEC4S), part = l - slot * uint(MORPH_DELTA_VEC4S);
    uint i = gl_WorkGroupID.x * uint(DEFORM_GROUP_VERTICES) + slot;
    uint v = u_deform_first + i;
    bool live = slot < uint(DEFORM_GROUP_VERTICES) && i < u_deform_count &&
                u_source_ao + v < uint(deform_source.length()) && 6u * v + 5u < uint(deform_skin.length()) &&
                3u * v + 2u < uint(deform_out.length());
#ifdef STRIDER_GPU_MORPH
    deform_parts[l] = live ? morph_accumulate_part(uint(int(v) - u_morph_first_vertex), part) : vec4(0.0);
    memoryBarrierShared();
    barrier();
#endif
    if (!live || part != 0u)
        return;
    vec3 position = vec3(deform_source[3u * v], deform_source[3u * v + 1u], deform_source[3u * v + 2u]);
    uint n0 = u_source_normal + 3u * v, t0 = u_source_tangent + 4u * v;
    vec3 normal = vec3(deform_source[n0], deform_source[n0 + 1u], deform_source[n0 + 2u]);
    vec4 tangent = vec4(deform_source[t0], deform_source[t0 + 1u], deform_source[t0 + 2u], deform_source[t0 + 3u]);
    float ao = deform_source[u_source_ao + v];
#ifdef STRIDER_GPU_MORPH
    morph_out mo = morph_finish(position, normal, tangent, ao, deform_parts[l], deform_parts[l + 1u].xyz,
                                deform_parts[l + 2u].xyz);
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
