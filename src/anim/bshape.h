/* bshape: CPU blend shapes (morph targets) of one mesh, in two layouts.
 *
 * A bshape_set_t gathers the targets of one mesh (asset/chr_bshape.h builds
 * it from a chr: its shapes, then its correctives). Each target delta carries position, normal, tangent and AO (10 floats).
 *   dense:  target-major, target_count x vertex_count deltas (zeros included);
 *   sparse: vertex-major, per vertex an offset+count into (target, delta)
 *           pairs, built at load from the shape-major sparse file data.
 * Call order: chr_bshape_set_build() once at load (all allocation happens
 * there, or in chr_bshape_set_add_layouts() for a layout wanted later)
 * -> per frame bshape_run() with an active list (target indices + weights;
 * weights need not sum to 1; duplicates add) -> bshape_set_free().
 * Result: p = base + sum w*dp; n = normalize(base_n + sum w*dn); t = the
 * morphed tangent made orthonormal to n (Gram-Schmidt), w copied; ao =
 * clamp(base_ao + sum w*dao, 0, 1). Deltas are summed in ascending target
 * order in both layouts, so dense and sparse give identical results; a
 * vertex no active target moves is copied bit for bit.
 * Does NOT: skin, allocate per call, or touch GL. Not reentrant per set
 * (bshape_run() uses the set's weight scratch).
 * Memory: the set owns its arrays; the job's spans are the caller's.
 */
#ifndef STRIDER_ANIM_BSHAPE_H
#define STRIDER_ANIM_BSHAPE_H

#include "anim/pose.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    BSHAPE_DELTA_FLOATS = 10,      /* dpos xyz, dnormal xyz, dtangent xyz, dao */
    BSHAPE_MAX_ACTIVE = 4096 + 256 /* chr: every shape and corrective (asset/chr_bshape.h checks) */
};

typedef enum bshape_layout_t { BSHAPE_SPARSE = 0, BSHAPE_DENSE = 1 } bshape_layout_t;

/* Which layouts chr_bshape_set_build() makes. */
enum { BSHAPE_BUILD_SPARSE = 1u << 0, BSHAPE_BUILD_DENSE = 1u << 1 };

typedef struct bshape_set_t {
    uint32_t mesh; /* chr mesh index */
    uint32_t vertex_count;
    uint32_t shape_count;      /* targets [0, shape_count) are chr shapes */
    uint32_t corrective_count; /* targets [shape_count, target_count) are correctives */
    uint32_t target_count;
    uint32_t *target_source; /* chr shape index, or chr corrective index */
    float *dense;            /* target_count x vertex_count x 10, or NULL */
    uint32_t *vertex_offset; /* vertex_count + 1 entries into the pairs, or NULL */
    uint32_t *pair_target;   /* pair_count target indices (ascending per vertex) */
    float *pair_delta;       /* pair_count x 10 */
    uint32_t pair_count;
    float *weight_scratch; /* target_count summed weights, used by bshape_run() */
} bshape_set_t;

typedef struct bshape_job_t {
    bshape_set_t *set;
    bshape_layout_t layout;        /* must have been built */
    int active_count;              /* 0..BSHAPE_MAX_ACTIVE */
    const uint32_t *active_target; /* < set->target_count */
    const float *active_weight;    /* finite */
    /* Bind-pose input, vertex_count entries each. */
    const float *positions; /* 3 per vertex, cm */
    const float *normals;   /* 3 per vertex, unit */
    const float *tangents;  /* 4 per vertex, xyz unit, w = +-1 */
    const float *ao;        /* 1 per vertex, 0..1 */
    /* Outputs, same sizes; must not alias the inputs. */
    float *out_positions;
    float *out_normals;
    float *out_tangents;
    float *out_ao;
} bshape_job_t;

void bshape_set_free(bshape_set_t *set);

/* Target index of chr shape SHAPE in SET, or -1 when it targets another mesh. */
int bshape_set_find_shape(const bshape_set_t *set, uint32_t shape);
/* Target index of chr corrective CORRECTIVE in SET, or -1 likewise. */
int bshape_set_find_corrective(const bshape_set_t *set, uint32_t corrective);
/* O(1) checks of pointers, counts and layout; O(active) checks of the list. */
bool bshape_validate(const bshape_job_t *job);
/* Validates, then writes every output vertex. */
bool bshape_run(const bshape_job_t *job);

/* Angle in degrees of the rotation Q about the unit AXIS, as chr defines it:
 * 2 * atan2(dot(q.xyz, axis), q.w) with q flipped to q.w >= 0. */
float bshape_twist_angle_deg(const float q[4], const float axis[3]);

#endif
