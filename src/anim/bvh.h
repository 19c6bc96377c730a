/* bvh: runtime loader for Biovision BVH motion files (HIERARCHY + MOTION),
 * and the bridge from a BVH frame to a pose_t of a skel_t.
 *
 * Call order: bvh_load() or bvh_parse() -> bvh_map_skel() once per skeleton
 * -> bvh_frame_pose() per frame -> ... -> bvh_free().
 * Any channel order per joint is accepted (3 or 6 channels; every joint has
 * CHANNELS), one frame per line, blank lines ignored; rotations are
 * Euler angles in degrees applied in the listed order (Zrotation Yrotation
 * Xrotation gives R = Rz Ry Rx). A joint's translation is the SKELETON's rest
 * offset plus its position channels (the BVH's own OFFSETs are kept for
 * bvh_to_skel() only), so a clip drives the character's bone lengths.
 * Plausible values (docs/INPUT_LIMITS.md): |OFFSET| <= BVH_MAX_OFFSET,
 * |position channel| <= BVH_MAX_POSITION, |rotation| <= BVH_MAX_ROTATION_DEG;
 * the CMU clips of ../shared stay within 45.2, 411 and 180.
 * Errors: one logged line "FILE:LINE: problem"; the bvh_t is left empty.
 * Memory: bvh_t holds the hierarchy inline and the frame values in one
 * malloc'd array that bvh_free() releases. Does NOT: resample, blend,
 * retarget between different hierarchies, or write BVH files.
 */
#ifndef STRIDER_ANIM_BVH_H
#define STRIDER_ANIM_BVH_H

#include "anim/pose.h"
#include "anim/skel.h"
#include "core/paths.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    BVH_MAX_JOINTS = SKEL_MAX_JOINTS,
    BVH_MAX_ENDS = SKEL_MAX_JOINTS,
    BVH_MAX_JOINT_CHANNELS = 6,
    BVH_SOURCE_MAX = PATHS_MAX
};

/* File units (about cm for the CMU clips) and degrees. */
#define BVH_MAX_OFFSET 1000.0
#define BVH_MAX_POSITION 100000.0
#define BVH_MAX_ROTATION_DEG 36000.0

typedef enum bvh_channel_t { BVH_XPOS = 0, BVH_YPOS, BVH_ZPOS, BVH_XROT, BVH_YROT, BVH_ZROT } bvh_channel_t;

typedef struct bvh_t {
    char source[BVH_SOURCE_MAX]; /* file name for messages */
    int joint_count;
    char joint_name[BVH_MAX_JOINTS][SKEL_NAME_MAX];
    int joint_parent[BVH_MAX_JOINTS];                              /* -1 for the root; < own index */
    float joint_offset[BVH_MAX_JOINTS][3];                         /* OFFSET, file units (about cm) */
    int channel_count[BVH_MAX_JOINTS];                             /* 3 or 6 */
    int channel_first[BVH_MAX_JOINTS];                             /* column of the joint's first channel */
    unsigned char channel[BVH_MAX_JOINTS][BVH_MAX_JOINT_CHANNELS]; /* bvh_channel_t, file order */
    int end_count;
    int end_parent[BVH_MAX_ENDS];
    float end_offset[BVH_MAX_ENDS][3];
    int channels_per_frame;
    int frame_count;
    float frame_time_s;
    float *frames; /* frame_count x channels_per_frame values, owned */
} bvh_t;

/* For each skeleton joint, the BVH joint that drives it. */
typedef struct bvh_map_t {
    int joint_count;
    int bvh_joint[SKEL_MAX_JOINTS];
} bvh_map_t;

bool bvh_load(bvh_t *b, const char *path);
/* TEXT need not be NUL-terminated; SOURCE names it in messages. */
bool bvh_parse(bvh_t *b, const char *text, size_t len, const char *source);
void bvh_free(bvh_t *b);

/* Maps every skeleton joint onto the BVH joint of the same name. Fails with
 * one line when a joint is missing or its parent differs in the BVH. */
bool bvh_map_skel(const bvh_t *b, const skel_t *s, bvh_map_t *out);
/* Local transforms of FRAME (0-based) for the mapped skeleton. */
bool bvh_frame_pose(const bvh_t *b, const skel_t *s, const bvh_map_t *map, int frame, pose_t *out);
/* The BVH's own rest skeleton (End Sites become ends named PARENT_end). */
bool bvh_to_skel(const bvh_t *b, skel_t *out);

#endif
