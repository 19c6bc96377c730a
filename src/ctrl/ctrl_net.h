/* ctrl_net: the network's input and output, exactly as
 * tools/train/features.py built the training data (docs/FORMATS_PFNN.md
 * sections 2-3): the trajectory, gaits and terrain heights in the root frame
 * and the previous pose in; the fed pose and momentum steered so that the
 * requested speed and the gait's posture come out; joint positions,
 * velocities and rotations out, turned into the local pose (bone lengths
 * exact) and the smoothed joints fed back next step.
 * Does NOT: move the root, decide gaits, or plant feet.
 */
#ifndef STRIDER_CTRL_NET_H
#define STRIDER_CTRL_NET_H

#include "ctrl/ctrl_internal.h"

/* Fills c->x from the trajectory and the previous joints. */
void ctrl_net_input(ctrl_t *c);
/* The pose of the current frame from c->y. */
void ctrl_net_pose(ctrl_t *c);

#endif
