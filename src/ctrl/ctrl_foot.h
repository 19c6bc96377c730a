/* ctrl_foot: foot contacts and leg IK. The network's contact outputs (with
 * hysteresis) lock heels and toes where they touch down; the two-joint IK
 * (anim/ik.h) moves each thigh-shin-foot chain so the locked points stay put
 * and free feet stay above the ground, lowering the hip when a locked foot is
 * out of reach.
 * Does NOT: move the root, run the network, or decide where the ground is
 * (ctrl_world.h does).
 */
#ifndef STRIDER_CTRL_FOOT_H
#define STRIDER_CTRL_FOOT_H

#include "ctrl/ctrl_internal.h"

void ctrl_foot_reset(ctrl_t *c);
/* Updates contacts from y[4..7] and, when IK is on, edits c->pose and
 * recomputes the model. yaw: the character's facing (knee pole). */
void ctrl_foot_run(ctrl_t *c, float dt_s, float yaw);
/* After the body was moved by (DX, DZ) following ctrl_foot_run(): free feet
 * move with it, planted feet stay, and the legs are solved again. */
void ctrl_foot_shift(ctrl_t *c, float dx, float dz, float yaw);

#endif
