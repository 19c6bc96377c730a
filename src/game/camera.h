/* camera: a third-person orbit camera that follows a focus point.
 *
 * Yaw, pitch and distance are driven by the input_frame_t's camera requests;
 * the focus point follows its target with exponential smoothing, and the eye
 * is kept above the terrain along the whole focus->eye segment, so the
 * camera never looks from under the ground.
 * Call order: camera_init() -> every fixed step camera_update() ->
 * camera_matrices() when drawing.
 * Does NOT: read devices or clocks; dt comes from the fixed step.
 */
#ifndef STRIDER_GAME_CAMERA_H
#define STRIDER_GAME_CAMERA_H

#include "game/intent.h"
#include "world/terrain.h"

typedef struct camera_config_t {
    float min_pitch_rad, max_pitch_rad;
    float min_distance_cm, max_distance_cm;
    float follow_time_s;   /* time constant of the focus smoothing */
    float focus_height_cm; /* look at this height above the target's feet */
    float ground_clearance_cm;
    float fov_y_rad, near_cm, far_cm;
} camera_config_t;

typedef struct camera_t {
    camera_config_t config;
    float yaw_rad;   /* looking direction on the ground: (sin yaw, 0, cos yaw) */
    float pitch_rad; /* > 0 looks down from above */
    float distance_cm;
    float focus[3]; /* smoothed point the camera looks at */
    float eye[3];
} camera_t;

void camera_config_default(camera_config_t *cfg);
void camera_init(camera_t *cam, const float target[3], float yaw_rad);
/* apply_impulses: true on the first fixed step of a rendered frame. */
void camera_update(camera_t *cam, const input_frame_t *in, bool apply_impulses, const float target[3],
                   const terrain_t *terrain, float dt_s);
/* Snap the focus onto the target (level change, teleport). */
void camera_snap(camera_t *cam, const float target[3], const terrain_t *terrain);
/* Column-major 4x4 matrices (cglm layout). */
void camera_matrices(const camera_t *cam, float aspect, float view[16], float proj[16]);
/* Blend two camera states for drawing between fixed steps. */
void camera_lerp(const camera_t *a, const camera_t *b, float t, camera_t *out);

#endif
