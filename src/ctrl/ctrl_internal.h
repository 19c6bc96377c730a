/* ctrl_internal: the controller's state, shared by ctrl.c (trajectory,
 * network, pose), ctrl_foot.c (contacts, foot IK) and ctrl_debug.c (lines).
 * Not part of the public interface: only src/ctrl/ includes it.
 */
#ifndef STRIDER_CTRL_INTERNAL_H
#define STRIDER_CTRL_INTERNAL_H

#include "ctrl/ctrl.h"

/* Terrain this far below the root's height is a gap (a trench), not a step
 * down: no leg reaches it (thigh to ankle is ~82 cm and the foot IK lowers
 * the hip by at most 25 cm). Feet over a gap stand at the root's height, and
 * after a jump the root keeps its height over one. */
#define CTRL_GAP_DEPTH_CM 50.0f

/* Joint and end-site indices the controller needs, found by name at create. */
typedef struct ctrl_joints {
    int hip, head;
    int thigh[2], shin[2], foot[2]; /* [0] left, [1] right */
    int toe_end[2];                 /* end-site index of each foot's toe */
} ctrl_joints;

typedef struct ctrl_foot_state {
    bool on[CTRL_CONTACTS];        /* hysteresis state */
    float weight[CTRL_CONTACTS];   /* lock weight: 1 in contact, fades to 0 after */
    float lock[CTRL_CONTACTS][3];  /* locked world position */
    float hip_drop;                /* cm the hip is lowered so locked feet stay in reach */
} ctrl_foot_state;

struct ctrl_t {
    const pfnn_network *net;
    const skel_t *skel;
    const level_t *level;
    pfnn_workspace ws;
    pfnn_mode mode;
    bool ik_on;
    ctrl_joints j;
    float leg_len[2];                  /* thigh-to-ankle rest length, cm */
    float stand_hip_cm;                /* hip height standing on straight rest legs */
    float stand_pose[CTRL_JOINTS][3];  /* that pose in the root frame (the reset seed) */
    float fed_speed;                   /* root speed the last input showed, cm/s */
    float speed_ratio;                 /* smoothed achieved / fed root speed */
    bool ground_held;                  /* the root's height is held over a gap (support_height) */
    bool posture_steer;                /* steer_posture() is scaling the fed pose */

    /* Trajectory: full rate, world space. */
    ctrl_traj_view traj;

    /* Smoothed user targets. */
    float target_vel[2];   /* cm/s world x, z */
    float target_dir[2];   /* unit */
    float strafe_amount;   /* 0..1 */
    /* Current gait in factored form: base stand/walk/run (sum 1), then the
     * crouch and jump amounts that take over from it. */
    float base[3];
    float crouch, jump;
    /* A jump requested by the button: a temporary jump area. */
    bool jump_held;
    float jump_req_time_s; /* remaining; <= 0: none */
    float jump_req_x, jump_req_z;

    float phase;
    float last_phase; /* the phase of the last network run */

    /* Previous frame's joints for the next input: smoothed world positions,
     * world velocities (cm/frame), and the root frame they were made in. */
    float joint_world[CTRL_JOINTS][3];
    float joint_vel_world[CTRL_JOINTS][3];
    float prev_root[3];
    float prev_yaw;

    float x[PFNN_N_IN];
    float y[PFNN_N_OUT];

    /* Output pose. */
    pose_t pose;
    pose_t rest;
    float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float model_rot[SKEL_MAX_JOINTS][4];
    float joint_pos[SKEL_MAX_JOINTS][3];

    ctrl_foot_state foot;
    ctrl_stats stats;
    bool nan_logged;
};

/* ctrl.c helpers shared with the other files. */
void ctrl_quat_conj(const float q[4], float out[4]);
void ctrl_update_model(ctrl_t *c);
float ctrl_ground(const ctrl_t *c, float x, float z);

/* ctrl_foot.c */
void ctrl_foot_reset(ctrl_t *c);
/* Updates contacts from y[4..7] and, when IK is on, edits c->pose and
 * recomputes the model. yaw: the character's facing (knee pole). */
void ctrl_foot_run(ctrl_t *c, float dt_s, float yaw);

#endif
