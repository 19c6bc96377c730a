/* ctrl: the PFNN character controller. Every fixed 60 Hz step it turns a
 * world-space movement request into a trajectory (12 samples over +-1 s, gait
 * weights, terrain heights), runs the phase-functioned network on it exactly
 * as tools/train/features.py built the training inputs (docs/FORMATS_PFNN.md),
 * moves the root by the predicted root motion, and rebuilds a local pose_t
 * from the predicted rotations and the rest offsets (so bone lengths are
 * exact), then plants the feet with contact locking and two-joint IK.
 * Call order: ctrl_create(desc) -> ctrl_reset(ctrl, level, spawn) -> per step
 * ctrl_step(ctrl, &input, 1/60) -> read ctrl_pose()/ctrl_model()/ctrl_stats(),
 * optionally ctrl_debug_draw() -> ctrl_destroy(). ctrl_reset() again after a
 * level change; ctrl_set_mode()/ctrl_set_ik() any time between steps.
 * Does NOT: read clocks (the caller times the step), read devices or the
 * camera (input is world space), load files, call GL, or skin.
 * Memory: ctrl_create() allocates the controller and the network scratch once;
 * ctrl_step() never allocates. The network, skeleton and level are borrowed:
 * they must outlive the controller (or the next ctrl_reset). The step is
 * deterministic: the same create/reset/inputs give bit-identical results.
 */
/* Behaviour notes (details and constants in ctrl.c / ctrl_foot.c):
 * - Future trajectory: the network's prediction blended towards the user's
 *   velocity and direction, more so further ahead (the original demo's
 *   'responsive' exponents). Walls push points out; a point never crosses one.
 * - Speed: the network's root speed follows the momentum it is fed more
 *   than the trajectory, so the root part of the fed joint velocities and
 *   past trajectory is scaled so that the requested walk/run speed comes out
 *   (using the network's recent achieved/fed speed ratio).
 * - Smoothing: gait/velocity/direction targets use time constants; predicted
 *   joint positions are blended 50/50 with previous + predicted velocity (the
 *   original demo) before they are fed back and used for the hip; rotations
 *   are used as predicted.
 * - Root: moves by the predicted root velocity (not while standing), pushed
 *   out of walls; a move whose segment would cross a wall is refused. Its
 *   height follows the terrain up at once and down at a limited rate, and
 *   not down at all while jumping or over a gap (> 50 cm deep) jumped into.
 * - Posture: the network mostly continues the posture it is fed, so when the
 *   fed hip height is far from the training hip height of the current gait
 *   the fed previous pose is steered towards it (standing: towards the
 *   upright rest pose, which is also the reset seed; otherwise a vertical
 *   scale; crouching under a ceiling: low enough to clear it).
 * - Pops: a joint of the network's pose that departs from turning on as it
 *   turned by more than 8 degrees in a step hands the excess to an offset a
 *   spring takes away (inertialization); nothing limits a turn per step.
 * - Feet: heels and toes lock while in contact; every hand-over (a lock
 *   letting go, a foot stepping out) is inertialized, so a foot leaves a
 *   lock at rest and catches up with the animation over a few steps; the
 *   legs are kept out of the last per cent of their reach; the hip lowers a
 *   little when a locked foot is out of reach.
 */
#ifndef STRIDER_CTRL_CTRL_H
#define STRIDER_CTRL_CTRL_H

#include "anim/pose.h"
#include "anim/skel.h"
#include "pfnn/network.h"
#include "core/debug_lines.h"
#include "world/level.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    /* Full-rate trajectory: 60 past frames, the current frame, 59 future. */
    CTRL_TRAJ_FRAMES = 120,
    CTRL_TRAJ_NOW = 60,
    /* Network samples: every 10th frame, point 6 = now (doc section 2). */
    CTRL_TRAJ_STEP = 10,
    CTRL_TRAJ_POINTS = 12,
    CTRL_GAITS = 6,
    CTRL_JOINTS = 21,
    /* Contact points in network order: left heel, left toe, right heel, right toe. */
    CTRL_CONTACTS = 4
};

typedef enum ctrl_gait_t {
    CTRL_GAIT_STAND = 0,
    CTRL_GAIT_WALK,
    CTRL_GAIT_RUN,
    CTRL_GAIT_CROUCH,
    CTRL_GAIT_JUMP,
    CTRL_GAIT_SPARE /* always 0, as in the training data */
} ctrl_gait_t;

/* Target ground speeds: the mean root speed of the training samples labelled
 * walk (83.4 cm/s; the 60 'walk' clips of ../shared/mocap/cmu/manifest.csv
 * average 82.1), run (251.5 cm/s) and crouch (67.8 cm/s), measured on the
 * shipped training set (gait weight > 0.9 at the current point). Speed 0..1
 * of the input blends walk to run. */
#define CTRL_WALK_SPEED_CM_S 83.0f
#define CTRL_RUN_SPEED_CM_S 250.0f
#define CTRL_CROUCH_SPEED_CM_S 60.0f

/* Top of the head in the head joint's frame (cm): the highest vertex of the
 * shipped character's head above its head joint, in the bind (rest) pose.
 * Ceilings are kept above this point. */
#define CTRL_HEAD_TOP_X_CM 0.5f
#define CTRL_HEAD_TOP_Y_CM 19.2f
#define CTRL_HEAD_TOP_Z_CM 1.3f

/* What the controller needs from the player this step, world space on the
 * ground plane: the intent (game/intent.h resolves a device's input_frame_t
 * into it with the camera's yaw). */
typedef struct ctrl_input_t {
    float move_x, move_z; /* desired direction x magnitude, |move| <= 1 */
    float speed;          /* 0 = walk, 1 = run */
    bool strafe;          /* face facing_x/z while moving */
    bool crouch;
    bool jump;                /* held; the rising edge requests one jump */
    float facing_x, facing_z; /* used when strafing; need not be unit */
} ctrl_input_t;

typedef struct ctrl_desc_t {
    const pfnn_network_t *net; /* shipped dims (PFNN_N_IN/OUT/JOINTS...) */
    const skel_t *skel;        /* cmu21: joint order = network joint order */
    pfnn_mode_t mode;          /* phase mode; 0 = constant */
    bool ik_off;               /* start with foot IK disabled */
} ctrl_desc_t;

typedef struct ctrl_spawn_t {
    float x, z, heading_rad; /* heading 0 faces +Z (level_t convention) */
} ctrl_spawn_t;

/* Numbers for the debug menu and the tests (all from the last step). */
typedef struct ctrl_stats_t {
    float gait[CTRL_GAITS];             /* current-frame gait weights, sum 1 */
    float phase_rad;                    /* [0, 2 pi) */
    float root_pos[3];                  /* world cm; y = terrain under the root */
    float heading_rad;                  /* facing, 0 = +Z, pi/2 = +X */
    float root_speed_cm_s;              /* root displacement of the last step x 60 */
    float head_height_cm;               /* head joint above the terrain under the root */
    float hip_height_cm;                /* hip joint above the terrain under the root */
    float contact_value[CTRL_CONTACTS]; /* raw network outputs 4..7 */
    bool contact[CTRL_CONTACTS];        /* after hysteresis */
    float lock_weight[CTRL_CONTACTS];
    int nan_resets;  /* non-finite network outputs caught */
    int wall_pushes; /* root moves changed by a wall (pushed out or refused) */
    int wall_blocks; /* root moves refused because they crossed a wall */
    uint64_t steps;
} ctrl_stats_t;

/* Read-only plain data about the trajectory for drawing and tests. */
typedef struct ctrl_traj_view_t {
    float pos[CTRL_TRAJ_FRAMES][3]; /* world cm, y on the terrain */
    float dir[CTRL_TRAJ_FRAMES][2]; /* unit facing x, z */
    float gait[CTRL_TRAJ_FRAMES][CTRL_GAITS];
} ctrl_traj_view_t;

typedef struct ctrl_t ctrl_t;
/* What the controller derives from a level once (its ledge map): built by
 * ctrl_reset() for its own use, or once per level and shared by many
 * controllers (a crowd) through ctrl_reset_shared(). */
typedef struct ctrl_level_t ctrl_level_t;

/* Other characters, as the controller avoids them: upright capsules seen
 * from above, (x, z, radius) in world cm. The controller keeps its root
 * CTRL_BODY_RADIUS_CM plus a capsule's radius from each centre, and bends
 * its future trajectory around them, as it does around walls. */
enum { CTRL_OBSTACLE_FLOATS = 3 };
#define CTRL_BODY_RADIUS_CM 20.0f

/* NULL + one logged line if the network or skeleton does not match. */
ctrl_t *ctrl_create(const ctrl_desc_t *desc);
void ctrl_destroy(ctrl_t *c);
/* Puts the character at SPAWN on LEVEL (borrowed), standing, phase 0.
 * Builds the controller's own ctrl_level_t of LEVEL (allocates once, then
 * reuses the memory; a few ms for a large level). */
void ctrl_reset(ctrl_t *c, const level_t *level, const ctrl_spawn_t *spawn);
/* Same on a level view built once by ctrl_level_create() (borrowed, and
 * with it its level): what a crowd's controllers share. */
void ctrl_reset_shared(ctrl_t *c, const ctrl_level_t *world, const ctrl_spawn_t *spawn);
/* NULL + one logged line when out of memory. */
ctrl_level_t *ctrl_level_create(const level_t *level);
void ctrl_level_destroy(ctrl_level_t *world);
/* (x, z) lies on a ledge of WORLD's level: ground within a stride of it is
 * more than a step higher or lower (the controller does not walk there). */
bool ctrl_level_on_ledge(const ctrl_level_t *world, float x, float z);

/* One fixed step. dt_s is the step length (1/60: the network predicts per
 * 1/60 s frame); it scales only the smoothing time constants. Non-finite input
 * values are treated as 0. Equals ctrl_step_begin(), the network run on
 * ctrl_step_input() at its phase, then ctrl_step_finish() with its output. */
void ctrl_step(ctrl_t *c, const ctrl_input_t *in, float dt_s);
/* The step in halves around the network, for a caller that runs many
 * controllers' networks in one batch (game/crowd): begin moves the targets
 * and the trajectory and builds the network's input; ctrl_step_input()
 * returns it (PFNN_N_IN floats, valid until finish) and its phase; finish
 * takes the network's raw output (PFNN_N_OUT floats, copied) and does the
 * rest: pose, walls, ceilings, feet, root motion, phase. */
void ctrl_step_begin(ctrl_t *c, const ctrl_input_t *in, float dt_s);
const float *ctrl_step_input(const ctrl_t *c, float *phase);
void ctrl_step_finish(ctrl_t *c, const float *y);
/* The other characters to avoid from the next step on: COUNT capsules of
 * CTRL_OBSTACLE_FLOATS floats (borrowed until the next call; NULL, 0: none). */
void ctrl_set_obstacles(ctrl_t *c, const float (*obstacle)[CTRL_OBSTACLE_FLOATS], int count);
/* Bytes one controller holds (the struct and its network scratch; not the
 * network, skeleton or a shared level view). */
size_t ctrl_state_bytes(const ctrl_t *c);

void ctrl_set_mode(ctrl_t *c, pfnn_mode_t mode);
pfnn_mode_t ctrl_get_mode(const ctrl_t *c);
void ctrl_set_ik(ctrl_t *c, bool on);
bool ctrl_get_ik(const ctrl_t *c);

/* Local pose (hip translation and rotation are world space, so the model
 * space of pose_model_run() is the world): hand it to the palette job. */
const pose_t *ctrl_pose(const ctrl_t *c);
/* World-space model matrices / positions of every joint after IK. */
const float (*ctrl_model(const ctrl_t *c))[POSE_MAT_FLOATS];
const float (*ctrl_joint_pos(const ctrl_t *c))[3];
/* World position of the four contact points (heels = foot joints, toes =
 * foot end sites) after IK. */
void ctrl_contact_pos(const ctrl_t *c, float out[CTRL_CONTACTS][3]);
const ctrl_traj_view_t *ctrl_trajectory(const ctrl_t *c);

/* World-space points of a local pose on the controller's skeleton (the hip
 * translation in world space, as ctrl_pose() gives it): what the tools that
 * judge the displayed motion measure. */
typedef struct ctrl_sample_t {
    float joint[CTRL_JOINTS][3];
    float rot[CTRL_JOINTS][4];     /* world rotations, x y z w */
    float point[CTRL_CONTACTS][3]; /* heels (foot joints) and toe tips */
    float head_top[3];
} ctrl_sample_t;
void ctrl_sample(const ctrl_t *c, const pose_t *pose, ctrl_sample_t *out);
void ctrl_get_stats(const ctrl_t *c, ctrl_stats_t *out);
/* The last raw network input (n_in floats) and output (n_out), and the phase
 * the input was run at, for tests and tools. */
const float *ctrl_last_input(const ctrl_t *c);
const float *ctrl_last_output(const ctrl_t *c);
float ctrl_last_phase(const ctrl_t *c);
/* ctrl_stats_t's root_speed_cm_s alone (the crowd asks it of every member
 * every step). */
float ctrl_root_speed_cm_s(const ctrl_t *c);

/* Debug draw bits for ctrl_debug_draw(). */
enum {
    CTRL_DRAW_TRAJECTORY = 1u << 0, /* past/future path coloured by gait, sample ticks */
    CTRL_DRAW_CONTACTS = 1u << 1,   /* crosses at the feet, green while locked */
    CTRL_DRAW_JOINTS = 1u << 2,     /* bones */
    CTRL_DRAW_LEVEL = 1u << 3,      /* walls, crouch boxes, jump circles */
    CTRL_DRAW_ALL = 0xFu
};
/* Appends segments for FLAGS to LINES (never clears it). */
void ctrl_debug_draw(const ctrl_t *c, unsigned flags, debug_lines_t *lines);
/* Colour of a gait mix: stand white, walk blue, run red, crouch green, jump yellow. */
uint32_t ctrl_gait_rgba(const float gait[CTRL_GAITS]);

#endif
