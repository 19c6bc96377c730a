/* skin_hybrid: Cebenoyan's CPU-key / GPU-interpolate skinning. The CPU
 * skins a key pose every N frames; for the frames in between, the vertex
 * shader blends the two bracketing keys linearly (positions lerped,
 * normals lerped and renormalised), so the GPU does a lerp per vertex
 * instead of the palette blend. The CPU must run one key ahead: what the
 * screen shows lags the animation by up to N frames (not counted here).
 *
 * Call order: skin_hybrid_run() per in-between frame (the shader's math, on
 * the CPU, for measurement); skin_hybrid_measure() once over a whole clip:
 * it skins every frame exactly (skin_run) and every N-th frame as a key,
 * and reports how far the interpolated frames stray.
 * Does NOT: pose, read clips or call GL; the caller gives one palette per
 * frame. skin_hybrid_measure() allocates its scratch once per call (it is a
 * measurement, not a per-frame path) and frees it before returning.
 */
#ifndef STRIDER_ANIM_SKIN_HYBRID_H
#define STRIDER_ANIM_SKIN_HYBRID_H

#include "anim/bvh.h"
#include "anim/skin.h"

#include <stdbool.h>

/* One interpolated frame: out = lerp(key0, key1, t), normals renormalised. */
typedef struct skin_hybrid_job_t {
    int vertex_count;
    float t;                          /* 0 at key0, 1 at key1 */
    const float *key0_pos, *key1_pos; /* 3 per vertex, cm */
    const float *key0_nrm, *key1_nrm; /* 3 per vertex, unit; both NULL: positions only */
    float *out_pos;
    float *out_nrm; /* when the key normals are given */
} skin_hybrid_job_t;

bool skin_hybrid_run(const skin_hybrid_job_t *job);

typedef struct skin_hybrid_desc_t {
    skin_job_t mesh;          /* inputs, method and influences; palette / dq_palette and outputs ignored */
    int frame_count;          /* >= 2 */
    const float *palettes;    /* frame_count x mesh.joint_count x 12 (LBS methods) */
    const float *dq_palettes; /* frame_count x mesh.joint_count x 8 (SKIN_DQS) */
    int key_every;            /* N >= 1: keys at frames 0, N, 2N, ...; frames after the last key are not measured */
} skin_hybrid_desc_t;

typedef struct skin_hybrid_error_t {
    int frames; /* frames measured (0 .. last key) */
    int keys;
    double max_cm;         /* largest |interpolated - exact| position over every vertex and frame */
    double mean_cm;        /* mean over every vertex of every in-between frame */
    double max_key_cm;     /* the same at the key frames (0 by construction) */
    double max_normal_deg; /* largest angle between interpolated and exact normals */
    int worst_frame;       /* frame of max_cm */
} skin_hybrid_error_t;

bool skin_hybrid_measure(const skin_hybrid_desc_t *desc, skin_hybrid_error_t *out);

/* Skinning palettes of COUNT frames of CLIP from FIRST on, posed on SKEL:
 * joints are matched by name (rotations, plus the root's position channels
 * relative to the clip's rest), joints the clip lacks stay at rest, and
 * the bind pose is SKEL's rest; a skeleton with none of the clip's names
 * but the CMU 31-joint names (an imported MakeHuman character) gets the
 * clip retargeted (anim/retarget.h). out_palettes: COUNT x joint_count x 12,
 * out_dq: COUNT x joint_count x 8 (either may be NULL). False (one logged
 * line) when neither fits or the frames are out of range. */
bool skin_hybrid_clip_palettes(const bvh_t *clip, const skel_t *skel, int first, int count, float *out_palettes,
                               float *out_dq);

#endif
