/* sim: the fixed-step simulation of the playable world.
 *
 * Until the PFNN character drives it, a simple marker stands in for the
 * character: it accelerates towards the intent, turns to face its motion (or
 * the camera when strafing), follows the terrain, crouches under crouch-area
 * ceilings, hops in jump areas or on the jump button, and is pushed out of
 * walls. The orbit camera is simulated here too, so a --script run is
 * deterministic at the fixed step.
 * Call order: sim_reset() on a level -> sim_step() once per fixed step ->
 * sim_lerp_marker()/camera_lerp() for drawing between steps.
 * Does NOT: read clocks or devices, draw, or allocate.
 */
#ifndef STRIDER_APP_SIM_H
#define STRIDER_APP_SIM_H

#include "app/camera.h"
#include "app/intent.h"
#include "world/level.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_marker {
    float pos[3];          /* feet position, cm */
    float heading_rad;     /* facing: (sin h, 0, cos h) */
    float vel[2];          /* ground velocity x/z, cm/s */
    float height_cm;       /* current standing height (crouch lowers it) */
    float hop_cm;          /* height of the feet above the terrain while hopping */
    float hop_vel_cm_s;
    bool airborne;
} sim_marker;

typedef struct sim_config {
    float walk_cm_s, run_cm_s, crouch_cm_s;
    float accel_time_s;    /* time constant of speed changes */
    float turn_rad_s;      /* maximum turning rate */
    float stand_height_cm, crouch_height_cm;
    float radius_cm;       /* body radius against walls */
    float hop_speed_cm_s, gravity_cm_s2;
} sim_config;

typedef struct sim_t {
    sim_config config;
    const level_t *level;
    sim_marker marker, prev_marker;
    camera_t camera, prev_camera;
    intent_t intent;        /* last resolved intent */
    uint64_t step;
    bool jump_latched;      /* the button must be released before the next hop */
} sim_t;

void sim_config_default(sim_config *cfg);
void sim_reset(sim_t *s, const level_t *level);
void sim_step(sim_t *s, const input_frame *in, bool first_step_of_frame, float dt_s);
void sim_lerp_marker(const sim_marker *a, const sim_marker *b, float t, sim_marker *out);

#endif
