/* skel: the rest skeleton (joint names, parents, rest offsets), read from the
 * text file assets/skeleton/cmu21.skel that the character generator, the
 * runtime and the training tools all share.
 *
 * Call order: skel_load() or skel_parse() -> use -> (nothing to free; fixed size).
 * Joints are stored parents-first, so a single forward pass evaluates FK.
 * End sites (head top, finger tips, toe tips) are stored apart from joints:
 * they carry no rotation and are not skinned.
 * Does NOT: allocate, or hold poses (see pose.h).
 */
#ifndef STRIDER_ANIM_SKEL_H
#define STRIDER_ANIM_SKEL_H

#include <stdbool.h>
#include <stddef.h>

enum { SKEL_MAX_JOINTS = 256, SKEL_MAX_ENDS = 32, SKEL_NAME_MAX = 32 };

typedef struct skel_t {
    int joint_count;
    int end_count;
    char joint_name[SKEL_MAX_JOINTS][SKEL_NAME_MAX];
    int joint_parent[SKEL_MAX_JOINTS];      /* -1 for the root; always < own index */
    float joint_offset[SKEL_MAX_JOINTS][3]; /* parent-relative rest offset, cm */
    char end_name[SKEL_MAX_ENDS][SKEL_NAME_MAX];
    int end_parent[SKEL_MAX_ENDS]; /* joint index */
    float end_offset[SKEL_MAX_ENDS][3];
} skel_t;

bool skel_load(skel_t *s, const char *path);
bool skel_parse(skel_t *s, const char *text, size_t len, const char *source);
/* Index of the joint called NAME, or -1. */
int skel_find(const skel_t *s, const char *name);
int skel_find_end(const skel_t *s, const char *name);
/* Model-space rest positions of every joint (out: joint_count x 3). */
void skel_rest_positions(const skel_t *s, float (*out)[3]);
/* Model-space rest positions of every end site, given the joint rest
 * positions from skel_rest_positions() (out: end_count x 3). */
void skel_rest_end_positions(const skel_t *s, const float (*joint_pos)[3], float (*out)[3]);

#endif
