/* bvh_lite: a minimal BVH reader for the generator's preview only (the
 * runtime has its own loader). Reads the joint names and channel layout of
 * the HIERARCHY and the MOTION frames; rotations must be Z Y X (degrees),
 * the root may add X Y Z position, as in ../shared/mocap/cmu.
 *
 * Call order: bvh_lite_load() -> bvh_lite_pose() per frame -> bvh_lite_free().
 * Does NOT: support other rotation orders, or use the file's offsets (the
 * skeleton file is the authority on rest offsets).
 */
#ifndef STRIDER_CHARGEN_BVH_LITE_H
#define STRIDER_CHARGEN_BVH_LITE_H

#include "anim/skel.h"

#include <stdbool.h>

typedef struct bvh_lite_t {
    int joint_count;
    char name[SKEL_MAX_JOINTS][SKEL_NAME_MAX];
    int channels[SKEL_MAX_JOINTS];   /* 3 or 6 */
    int first_channel[SKEL_MAX_JOINTS];
    int channel_count;
    int frame_count;
    float *frames; /* frame_count x channel_count */
} bvh_lite_t;

bool bvh_lite_load(bvh_lite_t *b, const char *path);
void bvh_lite_free(bvh_lite_t *b);
/* Local rotation quaternions (x, y, z, w) of every joint of S in frame F
 * (joints missing from the file stay at rest) and the root translation. */
bool bvh_lite_pose(const bvh_lite_t *b, const skel_t *s, int frame, float (*local_q)[4],
                   float root_t[3]);

#endif
