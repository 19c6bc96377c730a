/* intent: what the player wants this step, independent of the device.
 *
 * Keyboard, mouse, gamepads and --script all write into one input_frame_t
 * (camera-relative, device units removed); intent_resolve() turns it into a
 * world-space intent using the camera yaw: the controller's own ctrl_input_t,
 * which the simulation hands to the controller as it is.
 * Does NOT: read devices (see input.h) or move anything (see sim.h).
 */
#ifndef STRIDER_GAME_INTENT_H
#define STRIDER_GAME_INTENT_H

#include "ctrl/ctrl.h"

#include <stdbool.h>

/* Device-level request, relative to the camera: move_x is to the right of the
 * screen, move_y is into the screen. Magnitudes are in [0, 1]. */
typedef struct input_frame_t {
    float move_x, move_y;
    float speed; /* 0 = walk, 1 = run; blended in between */
    bool strafe; /* keep facing the camera direction while moving */
    bool crouch;
    bool jump;
    /* Camera requests. Rates (keys, sticks) are applied every fixed step;
     * impulses (mouse drag, wheel) once, by the first step of the frame. */
    float orbit_yaw_rate;    /* rad/s, positive turns the view to the right */
    float orbit_pitch_rate;  /* rad/s, positive looks more from above */
    float zoom_rate;         /* 1/s in log-distance, positive zooms in */
    float orbit_yaw_impulse; /* rad */
    float orbit_pitch_impulse;
    float zoom_impulse; /* log-distance steps */
} input_frame_t;

/* camera_yaw_rad: the direction the camera looks along on the ground plane,
 * forward = (sin yaw, 0, cos yaw). */
void intent_resolve(const input_frame_t *in, float camera_yaw_rad, ctrl_input_t *out);

/* Combines two requests: moves add (clamped to unit length), flags OR,
 * speed takes the larger, camera requests add. */
void input_merge(const input_frame_t *a, const input_frame_t *b, input_frame_t *out);

#endif
