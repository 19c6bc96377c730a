/* ctrl_world: where the character may be. The terrain under a point, the
 * root's height (the support rule: ground, gaps jumped over, falls), and the
 * collision of the root and the trajectory with walls.
 * Does NOT: move anything by itself, look at the network, or pose the body.
 */
#ifndef STRIDER_CTRL_WORLD_H
#define STRIDER_CTRL_WORLD_H

#include "ctrl/ctrl_internal.h"

float ctrl_ground(const ctrl_t *c, float x, float z);
/* Ground under a foot: the terrain, or the root's height over a gap
 * (CTRL_GAP_DEPTH_CM): the edge it jumps from or lands on. */
float ctrl_foot_ground(const ctrl_t *c, float x, float z);
/* Moves (x, z) from FROM towards the candidate CAND without entering or
 * crossing a wall; CAND receives the result. */
void ctrl_collide_point(const ctrl_t *c, const float from[2], float radius, float cand[2]);
/* The root's height at (x, z) after the last height PREV_H. */
float ctrl_support_height(ctrl_t *c, float x, float z, float prev_h);

#endif
