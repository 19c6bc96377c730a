/* ctrl_traj: intent and trajectory. The player's request becomes smoothed
 * targets (velocity, facing, strafe, gaits, jump requests); the future half
 * of the 120-frame trajectory blends the network's last prediction towards
 * them and carries the gaits of the areas it passes (crouch, jump); after the
 * network has run, the root moves by its predicted motion and the future is
 * rebuilt from its output.
 * Does NOT: build the network input, pose the body or touch the feet.
 */
#ifndef STRIDER_CTRL_TRAJ_H
#define STRIDER_CTRL_TRAJ_H

#include "ctrl/ctrl_internal.h"

/* Smoothed velocity, direction, strafe and gait targets from the input. */
void ctrl_traj_targets(ctrl_t *c, const ctrl_input_t *in, float dt_s);
/* The future trajectory from the last prediction and the targets. */
void ctrl_traj_predict(ctrl_t *c);
/* After the network: root motion, the new future, the phase. */
void ctrl_traj_advance(ctrl_t *c);

#endif
