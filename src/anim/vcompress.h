/* vcompress: the compressed skinned-vertex stream (Gosselin, "Compressed
 * vertex formats"): 24 bytes per vertex instead of 64.
 *   position  3 x unorm16 of (p - bias) / extent, per-mesh bias and extent
 *             (the 4th uint16 is padding, always 0)          8 bytes
 *   normal    octahedral, 2 x snorm16                        4 bytes
 *   tangent   xyz snorm10 + handedness in the signed 2-bit w
 *             (GL_INT_2_10_10_10_REV layout)                 4 bytes
 *   joints    4 x uint8 (so at most 256 joints)              4 bytes
 *   weights   4 x unorm8, summing to exactly 255             4 bytes
 * The uncompressed stream it replaces: float3 position, float3 normal,
 * float4 tangent, uint16x4 joints, float4 weights (64 bytes).
 * Every field maps onto a GL vertex format (unsigned short / short / 2_10_10_10
 * normalized, unsigned byte integer / normalized), so the vertex fetch does the
 * scaling; shaders/skin_bench.vert does the rest of the decode, with exactly
 * the formulas of vcompress_unpack().
 * Call order: vcompress_pack() -> upload or vcompress_unpack() ->
 * vcompress_measure() for the error against the source.
 * Does NOT: allocate, call GL, or compress indices or blend shapes.
 * Memory: every array belongs to the caller.
 */
#ifndef STRIDER_ANIM_VCOMPRESS_H
#define STRIDER_ANIM_VCOMPRESS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    VCOMPRESS_MAX_JOINTS = 256,         /* uint8 joint indices */
    VCOMPRESS_WEIGHT_SUM = 255,         /* unorm8 weights of a vertex add up to this */
    VCOMPRESS_RAW_BYTES_PER_VERTEX = 64 /* 12 + 12 + 16 + 8 + 16 */
};

/* The layout the GPU reads (24 bytes, no padding between fields). */
typedef struct vcompress_vertex_t {
    uint16_t pos[4];   /* unorm16 xyz; [3] = 0 */
    int16_t normal[2]; /* octahedral, snorm16 */
    uint32_t tangent;  /* x bits 0-9, y 10-19, z 20-29 (snorm10), w 30-31 (+1 / -1) */
    uint8_t joints[4];
    uint8_t weights[4]; /* unorm8, sorted descending like the source */
} vcompress_vertex_t;

/* Decode of positions: p = bias + extent * (q / 65535). */
typedef struct vcompress_params_t {
    float pos_bias[3];   /* cm: the mesh's bounding-box minimum */
    float pos_extent[3]; /* cm: the box size per axis (> 0) */
} vcompress_params_t;

typedef struct vcompress_pack_job_t {
    int vertex_count;
    const float *positions;           /* 3 per vertex, cm */
    const float *normals;             /* 3 per vertex, unit */
    const float *tangents;            /* 4 per vertex (xyz unit, w = +-1), or NULL: packed as (1, 0, 0, +1) */
    const uint16_t *joints;           /* 4 per vertex, each < joint_count */
    const float *weights;             /* 4 per vertex, >= 0, sorted descending, summing to 1 */
    int joint_count;                  /* 1..VCOMPRESS_MAX_JOINTS */
    vcompress_vertex_t *out_vertices; /* vertex_count */
    vcompress_params_t *out_params;
} vcompress_pack_job_t;

/* What packing lost, measured against the source arrays. */
typedef struct vcompress_error_t {
    double max_pos_cm;     /* largest |unpacked - source| over all position coordinates */
    double pos_bound_cm;   /* half a quantisation step of the largest axis: max_pos_cm must stay below */
    double height_cm;      /* Y extent of the mesh, for relative figures */
    double max_normal_deg; /* largest angle between unpacked and source normal */
    double max_tangent_deg;
    int handedness_flips;          /* tangent w that changed sign (must be 0) */
    double max_weight;             /* largest |unpacked - source| weight */
    int joint_mismatches;          /* joint indices of non-zero weights that changed (must be 0) */
    int bytes_before, bytes_after; /* per vertex */
} vcompress_error_t;

/* Checks counts and pointers (one logged line), then packs. False also when a
 * joint index is out of range or the positions are not finite. */
bool vcompress_pack(const vcompress_pack_job_t *job);
/* Decodes N vertices; any output pointer may be NULL. Outputs: 3 floats
 * position, 3 normal (unit), 4 tangent (unit xyz, w +-1), 4 uint16 joints,
 * 4 float weights (each q/255). */
void vcompress_unpack(const vcompress_params_t *params, const vcompress_vertex_t *v, int n, float *out_pos,
                      float *out_nrm, float *out_tan, uint16_t *out_joints, float *out_weights);
/* Packs nothing: compares the packed stream with the source of JOB. */
void vcompress_measure(const vcompress_pack_job_t *job, vcompress_error_t *out);

/* Octahedral map of a unit vector to 2 snorm16 and back (exposed for tests). */
void vcompress_oct_encode(const float n[3], int16_t out[2]);
void vcompress_oct_decode(const int16_t e[2], float out[3]);

#endif
