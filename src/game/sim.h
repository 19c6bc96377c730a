/* sim: the fixed-step simulation of the playable world.
 *
 * With a controller attached (sim_t.ctrl, the game's default) every step
 * resolves the camera-relative intent and steps the PFNN controller with it;
 * `marker` then mirrors the controller's root (position, heading, head
 * height), the last two steps' local poses are kept for drawing in between,
 * and the face state (periodic blinks from a seeded RNG, effort following
 * the run/jump gait) advances. Without one (--marker), a simple marker
 * stands in: it accelerates towards the intent, turns to face its motion (or
 * the camera when strafing), follows the terrain, crouches under crouch-area
 * ceilings, hops in jump areas or on the jump button, and is pushed out of
 * walls. The orbit camera follows the root either way, so a --script run is
 * deterministic at the fixed step.
 * Call order: set ctrl/seed -> sim_reset() on a level (resets the
 * controller too) -> per fixed step sim_step(), or sim_begin_step() +
 * ctrl_step() + sim_end_step() when the caller times the controller ->
 * sim_lerp_marker()/sim_lerp_pose()/sim_lerp_face()/camera_lerp() to draw.
 * Does NOT: read clocks or devices, draw, or allocate. The controller is
 * borrowed.
 */
#ifndef STRIDER_GAME_SIM_H
#define STRIDER_GAME_SIM_H

#include "anim/pose.h"
#include "core/debug_lines.h"
#include "ctrl/ctrl.h"
#include "game/camera.h"
#include "game/intent.h"
#include "world/level.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_marker_t {
    float pos[3];      /* feet position, cm */
    float heading_rad; /* facing: (sin h, 0, cos h) */
    float vel[2];      /* ground velocity x/z, cm/s */
    float height_cm;   /* current standing height (crouch lowers it) */
    float hop_cm;      /* height of the feet above the terrain while hopping */
    float hop_vel_cm_s;
    bool airborne;
} sim_marker_t;

typedef struct sim_config_t {
    float walk_cm_s, run_cm_s, crouch_cm_s;
    float accel_time_s; /* time constant of speed changes */
    float turn_rad_s;   /* maximum turning rate */
    float stand_height_cm, crouch_height_cm;
    float radius_cm; /* body radius against walls */
    float hop_speed_cm_s, gravity_cm_s2;
} sim_config_t;

/* The character's face, advanced at the fixed step (deterministic). */
typedef struct sim_face_t {
    float blink;          /* 0 open .. 1 closed, both lids */
    float effort;         /* 0 .. 1, follows the run and jump gait weights */
    uint64_t blink_start; /* step the last blink began */
    uint64_t next_blink;  /* step the next blink begins */
    uint32_t blinks;      /* begun since the reset */
    uint32_t rng;         /* xorshift32 state, from the seed */
} sim_face_t;

typedef struct sim_t {
    sim_config_t config;
    const level_t *level;
    ctrl_t *ctrl;  /* borrowed; NULL = marker mode. Kept by sim_reset */
    uint32_t seed; /* --seed; kept by sim_reset */
    sim_marker_t marker, prev_marker;
    camera_t camera, prev_camera;
    ctrl_input_t intent; /* last resolved intent */
    uint64_t step;
    bool jump_latched; /* the button must be released before the next hop */
    /* Controller mode only: */
    ctrl_stats_t stats;     /* of the last step */
    pose_t pose, prev_pose; /* local poses after the last two steps */
    /* The controller's contact points (heels = ankles, toes) after its IK,
     * world cm, after the last two steps: the feet an imported character's
     * own legs are solved to. */
    float contact[CTRL_CONTACTS][3], prev_contact[CTRL_CONTACTS][3];
    sim_face_t face, prev_face;
    /* The camera follows this point (world cm) instead of the character
     * when follow_on (another character of a crowd); cleared by sim_reset. */
    float follow[3];
    bool follow_on;
} sim_t;

void sim_config_default(sim_config_t *cfg);
void sim_reset(sim_t *s, const level_t *level);
void sim_step(sim_t *s, const input_frame_t *in, bool first_step_of_frame, float dt_s);
/* sim_step() in controller mode, split so the caller can time ctrl_step()
 * in between: begin resolves the intent into OUT; end reads the controller. */
void sim_begin_step(sim_t *s, const input_frame_t *in, ctrl_input_t *out);
void sim_end_step(sim_t *s, const input_frame_t *in, bool first_step_of_frame, float dt_s);
void sim_lerp_marker(const sim_marker_t *a, const sim_marker_t *b, float t, sim_marker_t *out);
/* Per joint: translations lerped, rotations nlerped along the short arc. */
void sim_lerp_pose(const pose_t *a, const pose_t *b, float t, pose_t *out);
void sim_lerp_face(const sim_face_t *a, const sim_face_t *b, float t, sim_face_t *out);
/* Simulation-side debug drawing into LINES (cleared first): where the
 * player asks to go and where marker M is going, then the controller's own
 * lines (CTRL_DRAW_* bits of CTRL_DRAW). */
void sim_debug_lines(const sim_t *s, const sim_marker_t *m, unsigned ctrl_draw, debug_lines_t *lines);
void sim_lerp_contacts(const float (*a)[3], const float (*b)[3], float t, float (*out)[3]);

#endif
