/* shader_interface: the one list of vertex attribute locations, buffer binding
 * points and texture units, shared by C (src/render/) and GLSL (shaders/).
 * Only #define lines and comments may live here, so both languages parse it.
 * GLSL uses it through the loader's #include "shader_interface.h";
 * C includes it as "shaders/shader_interface.h".
 * Add new bindings here, never as literals in shaders or C.
 */
#ifndef STRIDER_SHADER_INTERFACE_H
#define STRIDER_SHADER_INTERFACE_H

/* Vertex attribute locations. */
#define ATTR_POSITION 0
#define ATTR_NORMAL 1
#define ATTR_TANGENT 2
#define ATTR_UV 3
#define ATTR_JOINTS 4
#define ATTR_WEIGHTS 5
#define ATTR_AO 6
#define ATTR_COLOR 7

/* Uniform buffer bindings. */
/* Per-frame block (struct frame_block in frame.glsl / gfx_frame_ubo_t in gfx.c). */
#define UBO_FRAME 0

/* Shader storage buffer bindings, reserved for the character. */
/* Skinning palette: one matrix (or dual quaternion) per joint. */
#define SSBO_PALETTE 0
/* Blend-shape deltas and their weights. */
#define SSBO_BLEND_DELTAS 1
#define SSBO_BLEND_WEIGHTS 2
/* GPU-skinned vertices written back by the skinning test's capture draw. */
#define SSBO_SKIN_CAPTURE 3

/* GPU blend shapes (shaders/morph.glsl). Sparse layout: per-vertex offsets
 * (vertex_count + 1 uints) into SSBO_BLEND_DELTAS's (target, delta) records,
 * then each record's target (one uint a record). */
#define SSBO_BLEND_OFFSETS 4
/* MORPH_LAYOUT values; equal to anim/bshape.h's bshape_layout_t. */
#define MORPH_LAYOUT_SPARSE 0
#define MORPH_LAYOUT_DENSE 1
/* One delta record: pos.xyz + dao, normal.xyz + target, tangent.xyz + pad. */
#define MORPH_DELTA_VEC4S 3
/* Dense active list: uint count + uint pad before the (target, weight) pairs. */
#define MORPH_ACTIVE_HEADER_BYTES 8

/* The character's deformation once per frame (shaders/character_deform.comp):
 * its source vertices (a stream slot's layout), joints and weights, and the
 * buffer of deformed vertices both passes draw. */
#define SSBO_DEFORM_SOURCE 5
#define SSBO_DEFORM_SKIN 6
#define SSBO_DEFORM_OUT 7
/* The crowd's CPU-skinned vertices (gfx_crowd_cpu.c, character.vert with
 * STRIDER_CROWD_CPU): per member, positions (3 floats a vertex) then, for a
 * member in view, normals (3) and tangents (4), at the float offset its
 * instance attribute names. */
#define SSBO_CROWD_VERTICES 8
/* morph.glsl sums a vertex's deltas in this many interleaved partial sums
 * per part (position + AO, normal, tangent), so a compute pass can give
 * each its own thread. */
#define MORPH_SLICES 4
/* Threads of one work group of the compute passes that deform (the skin-
 * once pass, the benchmarks'). Blending shapes, a vertex takes a thread per
 * part and slice of its sums (MORPH_DELTA_VEC4S x MORPH_SLICES = 12), so a
 * group deforms 8 vertices; skinning alone, a thread a vertex. */
#define DEFORM_GROUP_SIZE 96
#define DEFORM_MORPH_LANES (MORPH_DELTA_VEC4S * MORPH_SLICES)
#define DEFORM_MORPH_GROUP_VERTICES (DEFORM_GROUP_SIZE / DEFORM_MORPH_LANES)

/* Texture units. */
#define TEX_UNIT_SHADOW 0
#define TEX_UNIT_ALBEDO 1

/* Cebenoyan's hybrid (gfx_character): the older of the two CPU-skinned keys
 * the vertex shader blends; the newer one arrives in ATTR_POSITION,
 * ATTR_NORMAL, ATTR_TANGENT and ATTR_AO. */
#define ATTR_KEY0_POSITION 8
#define ATTR_KEY0_NORMAL 9
#define ATTR_KEY0_TANGENT 10
#define ATTR_KEY0_AO 11
/* Skin once (gfx_character): vec4s per vertex in the transform-feedback
 * buffer of deformed vertices: position + AO, normal + 0, tangent. */
#define SKIN_FEEDBACK_VEC4S 3

/* The crowd (gfx_crowd): the instance a vertex belongs to, an integer
 * attribute with divisor 1 read from the pass's compacted list of visible
 * instances (the draw's base instance picks the list); its palette starts
 * at instance x joints x 3 vec4s of SSBO_PALETTE. */
#define ATTR_INSTANCE 12

#endif
