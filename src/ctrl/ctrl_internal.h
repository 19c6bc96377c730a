/* ctrl_internal: the controller's state and the helpers every file of the
 * controller shares. Not part of the public interface: only src/ctrl/
 * includes it (and tests of one concern). The concerns, one file each:
 *   ctrl.c        create, reset, the order of one step, accessors;
 *   ctrl_traj.c   intent and trajectory (ctrl_traj.h);
 *   ctrl_world.c  where the character may be: ground, gaps, ceilings,
 *                 level edges, walls (ctrl_world.h);
 *   ctrl_net.c    the network's input and output (ctrl_net.h);
 *   ctrl_foot.c   foot contacts and leg IK (ctrl_foot.h), with
 *                 ctrl_foot_place.c (where a foot goes) and ctrl_foot_leg.c
 *                 (reach and IK), sharing ctrl_foot_internal.h;
 *   ctrl_debug.c  debug lines.
 */
#ifndef STRIDER_CTRL_INTERNAL_H
#define STRIDER_CTRL_INTERNAL_H

#include "core/mathx.h"
#include "ctrl/ctrl.h"

#include <math.h>

#define CTRL_PI 3.14159265358979323846f
#define CTRL_TWO_PI (2.0f * CTRL_PI)

/* Network frame rate: root motion and velocities are per 1/60 s. */
#define CTRL_NET_FPS 60.0f

/* Below this target speed the gait is 'stand' (the labels use 20 cm/s on the
 * smoothed hip speed). */
#define CTRL_STAND_SPEED_CM_S 10.0f
/* A crouch-area ceiling lower than this forces a crouch (the standing
 * character's head top is ~170 cm). */
#define CTRL_CROUCH_CLEARANCE_CM 175.0f

/* Collision radii: the root, and trajectory points (original: wall + 10). */
#define CTRL_ROOT_RADIUS_CM CTRL_BODY_RADIUS_CM
#define CTRL_TRAJ_RADIUS_CM 30.0f
/* Push-out passes among other characters' capsules. */
#define CTRL_OBSTACLE_PASSES 3

/* Output layout offsets (docs/FORMATS_PFNN.md section 3). */
enum {
    OY_RVEL_X = 0,
    OY_RVEL_Z = 1,
    OY_RANG = 2,
    OY_DPHASE = 3,
    OY_TPOS_X = 8,
    OY_TPOS_Z = 14,
    OY_TDIR_X = 20,
    OY_TDIR_Z = 26,
    OY_FUTURE = 6,
    OY_JPOS = 32,
    OY_JVEL = 95,
    OY_JROT = 158
};
/* Input layout offsets (section 2). */
enum {
    IX_POS_X = 0,
    IX_POS_Z = 12,
    IX_DIR_X = 24,
    IX_DIR_Z = 36,
    IX_GAIT = 48,
    IX_H_L = 120,
    IX_H_C = 132,
    IX_H_R = 144,
    IX_JPOS = 156,
    IX_JVEL = 219
};

static inline float lerpf(float a, float b, float t) { return a + (b - a) * t; }
static inline float finite_or0(float v) { return isfinite(v) ? v : 0.0f; }

/* Fraction of the way to a target after dt with time constant tau. */
static inline float smooth_alpha(float dt_s, float tau_s) { return 1.0f - expf(-dt_s / tau_s); }

/* A critically damped spring (Holden, "Spring-It-On"; the Motion-Matching
 * demo's inertialization) takes the N offsets X, with velocities V (per
 * second), towards zero: x(t) = (x0 + (v0 + y x0) t) e^(-y t) with
 * y = 2 ln 2 / HALFLIFE_S, exactly over DT_S. Half the offset is gone after
 * about the half-life, it never overshoots from rest, and position and
 * velocity stay continuous: what lets a foot hand over from one target to
 * another without a jump. */
static inline void ctrl_spring_decay(float *x, float *v, int n, float halflife_s, float dt_s)
{
    float y = 2.0f * 0.69314718f / halflife_s, e = expf(-y * dt_s);
    for (int i = 0; i < n; i++) {
        float j1 = v[i] + x[i] * y;
        x[i] = e * (x[i] + j1 * dt_s);
        v[i] = e * (v[i] - j1 * y * dt_s);
    }
}

/* Unit quaternion (x y z w) <-> rotation vector (axis x angle, rad): the
 * space a rotation offset decays in. */
static inline void ctrl_quat_to_rotvec(const float q[4], float out[3])
{
    float s = q[3] < 0.0f ? -1.0f : 1.0f;
    float x = s * q[0], y = s * q[1], z = s * q[2], w = s * q[3];
    float sn = sqrtf(x * x + y * y + z * z);
    float k = sn > 1e-7f ? 2.0f * atan2f(sn, w) / sn : 2.0f;
    out[0] = x * k;
    out[1] = y * k;
    out[2] = z * k;
}

static inline void ctrl_rotvec_to_quat(const float v[3], float out[4])
{
    float a = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    float k = a > 1e-7f ? sinf(0.5f * a) / a : 0.5f;
    out[0] = v[0] * k;
    out[1] = v[1] * k;
    out[2] = v[2] * k;
    out[3] = cosf(0.5f * a);
}

static inline float wrap_2pi(float a)
{
    a = fmodf(a, CTRL_TWO_PI);
    if (a < 0.0f)
        a += CTRL_TWO_PI;
    return a >= CTRL_TWO_PI ? 0.0f : a;
}

static inline float wrap_pi(float a)
{
    a = fmodf(a + CTRL_PI, CTRL_TWO_PI);
    if (a < 0.0f)
        a += CTRL_TWO_PI;
    return a - CTRL_PI;
}

static inline float yaw_of(const float d[2]) { return atan2f(d[0], d[1]); }

/* Root frame <-> world for ground-plane vectors. R(yaw) maps +Z to
 * (sin yaw, cos yaw); features.py's _rot2 is its inverse. */
static inline void to_world(float yaw, float lx, float lz, float *wx, float *wz)
{
    float c = cosf(yaw), s = sinf(yaw);
    *wx = c * lx + s * lz;
    *wz = -s * lx + c * lz;
}

static inline void to_root(float yaw, float wx, float wz, float *lx, float *lz)
{
    float c = cosf(yaw), s = sinf(yaw);
    *lx = c * wx - s * wz;
    *lz = s * wx + c * wz;
}

/* Direction interpolation by angle (shortest way), robust to opposites. */
static inline void mix_dir(const float a[2], const float b[2], float t, float out[2])
{
    float ya = yaw_of(a), yb = yaw_of(b);
    float y = ya + wrap_pi(yb - ya) * t;
    out[0] = sinf(y);
    out[1] = cosf(y);
}

static inline void quat_yaw(float yaw, float out[4])
{
    out[0] = 0.0f;
    out[1] = sinf(0.5f * yaw);
    out[2] = 0.0f;
    out[3] = cosf(0.5f * yaw);
}

/* The highest step up or down a leg takes (cm): ground that rises or falls
 * more than that within CTRL_LEDGE_SPAN_CM is a ledge that blocks walking
 * (32 cm: the 30 cm terraces of 'steps' are walked, the 35 and 45 cm
 * obstacles of 'gaps' are jumped onto, not stepped up in a stride). Ground
 * more than CTRL_GAP_DEPTH_CM below the root is a gap (a trench) that only
 * a jump crosses; feet over a gap being jumped stand at the root's height. */
#define CTRL_STEP_MAX_CM 32.0f
#define CTRL_GAP_DEPTH_CM 50.0f
/* Fastest descent of the root's height off a step (cm/s): a step down of
 * 20-30 cm takes a few frames instead of one (ctrl_support_height). */
#define CTRL_ROOT_FALL_CM_S 240.0f

/* Joint and end-site indices the controller needs, found by name at create. */
typedef struct ctrl_joints_t {
    int hip, head;
    int thigh[2], shin[2], foot[2]; /* [0] left, [1] right */
    int toe_end[2];                 /* end-site index of each foot's toe */
} ctrl_joints_t;

/* Sole heights (cm): the heel (ankle joint) and the toe tip above the ground
 * when the foot stands flat; no foot point is shown lower than these. */
#define CTRL_HEEL_SOLE_CM 4.0f
#define CTRL_TOE_SOLE_CM 0.5f

typedef struct ctrl_foot_state_t {
    bool net_on[CTRL_CONTACTS];            /* the network's flag after hysteresis */
    bool on[CTRL_CONTACTS];                /* locked: flagged, or on the ground and still */
    int off_steps[CTRL_CONTACTS];          /* steps the contact has not been wanted */
    float weight[CTRL_CONTACTS];           /* 1 while locked, else 0 (stats and debug lines) */
    float lock[CTRL_CONTACTS][3];          /* locked world position */
    float shown[CTRL_CONTACTS][3];         /* the points as shown after the last step */
    float prev_anim[CTRL_CONTACTS][3];     /* the animated points of the last step */
    float speed[CTRL_CONTACTS];            /* ground-plane speed of the animated points, cm/s */
    float touch_above[CTRL_CONTACTS];      /* the animated point's height above its sole at touch-down, cm */
    bool lift_block[CTRL_CONTACTS];        /* let go while wanted: no lock until it is down (let_go) */
    float free_path[CTRL_CONTACTS];        /* ground (x, z) a point has covered since it let go, cm */
    float lock_vel[CTRL_CONTACTS];         /* a lock's vertical speed settling onto the ground, cm/s */
    float prev_shown_pt[CTRL_CONTACTS][3]; /* the points as shown the step before */
    int flag_off_steps[CTRL_CONTACTS];     /* steps the network's flag has been off */
    /* Per foot: */
    uint8_t held_pts[2];                /* the points held as the foot was shown last step: 1 heel, 2 toe */
    float warp[2][2], warp_vel[2][2];   /* stride warp (world x, z, cm) following its goal by a spring */
    float warp_goal[2][2];              /* CTRL_WARP_AHEAD of the stance drift, world x, z */
    float ioff[2][3], ioff_vel[2][3];   /* free foot: inertialized offset from its target, cm, cm/s */
    float iroff[2][3], iroff_vel[2][3]; /* and its rotation's (world rotation vector, rad, rad/s) */
    float span[2];                      /* how far (x, z) the offset had to go when the foot let go, cm (the arc) */
    float ledge_push[2][2], ledge_push_vel[2][2]; /* free foot: pushed (x, z, cm) off ground a step above the root's */
    float bank_hold[2][2], bank_hold_vel[2][2];   /* free foot: held back (x, z, cm) from ground rising too fast */
    float ground_lift[2], ground_lift_vel[2]; /* free foot: raised over the ground by this much (cm), easing, cm/s */
    float lift_free_y[2];                     /* the free foot's height before that lift, last step (cm) */
    bool anchor_toe[2];                       /* the offset is held at the toe (a push-off), else at the ankle */
    int replant_steps[2];                     /* steps left of a standing re-plant: no landing until it ends */
    float shown_rot[2][4];                    /* foot's world rotation as shown after the last step */
    float prev_shown_rot[2][4];               /* and the step before */
    float prev_anim_rot[2][4];                /* the animated feet's world rotations of the last step */
    float drift[2][2];                        /* stance drift of the animated foot, root frame x, z, cm */
    float touch_anim[2][3];                   /* animated heel at the last touch-down */
    float target[2][3];                       /* where the ankles were placed this step */
    float target_rot[2][4];                   /* and the feet's world rotations */
    float hip_drop, hip_drop_vel;             /* cm the hip is lowered so planted feet stay in reach, cm/s */
    float reach[2], reach_vel[2];             /* a held foot's allowed leg extension (allowed_reach), per s */
    float ground_drop;                        /* cm the body is lowered so a foot reaches the ground */
    float gap_floor, gap_floor_vel;           /* weight of the floor over a gap under the feet (ctrl_over_gap), per s */
    float air_s;                              /* how long both feet have been off the ground without a jump */
    bool fresh;                               /* reset: the next step takes the feet from the network */
} ctrl_foot_state_t;

/* The controller's view of one level, shared by every controller on it. */
struct ctrl_level_t {
    const level_t *level;
    uint8_t *ledge;    /* per terrain sample: on a ledge (NULL: out of memory, ledges do not block) */
    float *ledge_dist; /* per sample: cm to the nearest sample off the ledges */
    size_t cap;        /* samples allocated */
};

struct ctrl_t {
    const pfnn_network_t *net;
    const skel_t *skel;
    const level_t *level;
    pfnn_workspace_t ws;
    pfnn_mode_t mode;
    bool ik_on;
    ctrl_joints_t j;
    float leg_len[2];                 /* thigh-to-ankle rest length, cm */
    float stand_hip_cm;               /* hip height standing on straight rest legs */
    float stand_pose[CTRL_JOINTS][3]; /* that pose in the root frame (the reset seed) */
    float fed_speed;                  /* root speed the last input showed, cm/s */
    float speed_ratio;                /* smoothed achieved / fed root speed */
    bool ground_held;                 /* the root's height is held over a gap (ctrl_support_height) */
    float hold_from[3];               /* where the root took off over that gap */
    float hold_dir[2];                /* and the way it was going then (unit x, z) */
    int hold_steps;                   /* steps since then (ctrl_gap_carry) */
    int landing_steps;                /* steps left in which ledges do not block after landing */
    const ctrl_level_t *world;        /* the level's ledge map: own_world, or shared (ctrl_reset_shared) */
    ctrl_level_t *own_world;          /* built by ctrl_reset(), kept across resets */
    /* Other characters' capsules this step (ctrl_set_obstacles; borrowed). */
    const float (*obstacle)[3];
    int obstacle_count;
    bool posture_steer; /* steer_posture() is scaling the fed pose */
    float ceiling_drop; /* cm the body is lowered under a ceiling (ctrl_fit_ceiling) */

    /* Trajectory: full rate, world space. */
    ctrl_traj_view_t traj;

    /* Smoothed user targets. */
    float target_vel[2]; /* cm/s world x, z */
    float target_dir[2]; /* unit */
    float strafe_amount; /* 0..1 */
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

    /* The network's joint rotations (relative to the parent; the hip's in
     * the root frame) of the last step, their turn then, and the offsets
     * that take the network's pops out (ctrl_net.c, take_out_pop). */
    float net_rot[CTRL_JOINTS][4];
    float net_turn[CTRL_JOINTS][3];
    float pop_off[CTRL_JOINTS][3], pop_off_vel[CTRL_JOINTS][3];
    bool have_net_rot;

    float x[PFNN_N_IN];
    float y[PFNN_N_OUT];
    float step_dt_s; /* of the step between ctrl_step_begin and ctrl_step_finish */

    /* Output pose. */
    pose_t pose;
    pose_t rest;
    float model[CTRL_JOINTS][POSE_MAT_FLOATS];
    float model_rot[CTRL_JOINTS][4];
    float joint_pos[CTRL_JOINTS][3];

    ctrl_foot_state_t foot;
    ctrl_stats_t stats;
    bool nan_logged;
};

/* Shared by every file: the model matrices and joint positions from c->pose. */
void ctrl_update_model(ctrl_t *c);
/* The head top (CTRL_HEAD_TOP_*) of the current model, world cm. */
void ctrl_head_top(const ctrl_t *c, float out[3]);
/* The two toe tips of the current model, world cm (left, right). */
void ctrl_contact_points(const ctrl_t *c, float out[2][3]);
/* Joint B is part of a leg (thigh, shin, foot; the buttocks are not). */
bool ctrl_is_leg(const ctrl_t *c, int b);
void ctrl_quat_conj(const float q[4], float out[4]);

#endif
