/* motion_metrics: measures how a run of the character holds up in play, from
 * the pose that is displayed at each fixed step. The definitions are those
 * of docs/MOTION_EVAL.md; in short, per run:
 *   slide   horizontal path of a heel or toe over each of its contacts, where
 *           a contact is (a) a run of steps the controller flags (contact or
 *           lock weight > 0.5) while the point stays within 2 cm of its
 *           touch-down height, or (b) a run of 10+ steps where the point stays
 *           within 1 cm of its idle height above the ground, whatever the flags;
 *   sink    how far a heel or toe goes below its idle height above the ground;
 *   stand   how far above or below the root's ground a held heel or toe stands
 *           (outside jumps): a foot up on a cliff the body stands below;
 *   flight  runs of steps with every foot point more than 3 cm above its idle
 *           height (jump flights: the jump gait passed 0.3 during the run);
 *   ceiling how far a joint or the head top rises above a crouch area's ceiling;
 *   edge    the root's distance to the terrain's edge;
 *   wall    how far a joint (below the wall's top) reaches into a wall;
 *   smooth  per step: every joint's rotation relative to its parent (local),
 *           knee and elbow flexion, and each heel and toe's displacement and
 *           acceleration; flexion split by whether the step is within 0.3 s
 *           of a take-off, landing, wall push or crouch change;
 *   speed, crouch head height, bone lengths and non-finite values.
 * Call order: mm_calibration_t from an idle stand (mm_calibrate_*) ->
 * mm_begin(acc, level, calibration, capacity) -> mm_add(acc, frame) per step
 * -> mm_finish(acc, &result) -> mm_free(acc).
 * Does NOT: run the controller or read files; it only looks at frames.
 * Memory: mm_begin() allocates the per-step record for CAPACITY steps
 * (about 120 bytes a step) and the rotation histograms (0.8 MB); mm_add()
 * never allocates.
 */
#ifndef STRIDER_GAME_MOTION_METRICS_H
#define STRIDER_GAME_MOTION_METRICS_H

#include "ctrl/ctrl.h"
#include "world/level.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    MM_POINTS = CTRL_CONTACTS, /* left heel, left toe, right heel, right toe */
    MM_JOINTS = CTRL_JOINTS,
    MM_HEEL = 0,
    MM_TOE = 1,
    /* Hinges whose flexion is measured: the knees (lShin, rShin) and the
     * elbows (lForeArm, rForeArm), by name; the flexion at a hinge is the
     * angle between its parent's bone and its own. */
    MM_HINGES = 4,
    /* Flexion contexts: steady play, and near an event (MM_EVENT_NEAR_S). */
    MM_STEADY = 0,
    MM_NEAR_EVENT = 1
};

/* The hinges' joint names, in MM_HINGES order. */
extern const char *const MM_HINGE_NAMES[MM_HINGES];

/* Thresholds of the definitions (docs/MOTION_EVAL.md). */
#define MM_TOUCHDOWN_BAND_CM 2.0f /* (a): within this of the touch-down height */
#define MM_LOCK_COUNTS 0.5f       /* (a): a lock weight above this is a contact */
#define MM_GROUND_BAND_CM 1.0f    /* (b): within this of the idle height */
#define MM_GROUND_MIN_STEPS 10    /* (b): for at least this many steps */
#define MM_FLIGHT_LIFT_CM 3.0f    /* flight: every point this far above idle */
#define MM_JUMP_GAIT 0.3f         /* a flight with this much jump gait is a jump */
#define MM_EVENT_NEAR_S 0.3f      /* flexion near a take-off, landing, wall push or crouch change */
#define MM_CROUCH_GAIT 0.5f       /* a crouch change: the crouch gait crossing this */
/* Local rotation changes are kept in a histogram of this bin width (deg) up
 * to this angle (the last bin takes everything above), for exact enough
 * percentiles over runs of any length without per-step storage. */
#define MM_ROT_BIN_DEG 0.01f
#define MM_ROT_BINS 9000

/* One fixed step as displayed: world space, cm. */
typedef struct mm_frame_t {
    float root[3]; /* the root on the ground plane, y = its support height */
    float joint[MM_JOINTS][3];
    float joint_rot[MM_JOINTS][4];   /* world rotations, x y z w */
    float joint_local[MM_JOINTS][4]; /* rotations relative to the parent (the root's: world) */
    float point[MM_POINTS][3];       /* heels (foot joints) and toe tips */
    float head_top[3];
    float head_height_cm; /* head joint above the terrain under the root */
    bool flag[MM_POINTS]; /* the controller's contact state */
    float lock_weight[MM_POINTS];
    float gait[CTRL_GAITS];
    float want_speed_cm_s; /* requested ground speed, 0 standing */
    int nan_resets;        /* the controller's count so far */
    int wall_pushes;       /* the controller's count of root moves a wall changed, so far */
} mm_frame_t;

/* Heights of the foot points above the ground when the character stands
 * idle on flat ground, and its head height there. */
typedef struct mm_calibration_t {
    float idle_height_cm[MM_POINTS];
    float stand_head_cm;
} mm_calibration_t;

typedef struct mm_result_t {
    int steps;
    int contacts[2]; /* heel, toe (both feet) */
    float slide_p50_cm[2], slide_p95_cm[2], slide_max_cm[2];
    int slide_max_step[2];             /* where the longest slide began */
    float sink_max_cm;                 /* deepest below the idle height (<= 0: never below) */
    int sink_steps;                    /* steps with a point more than 1 cm below */
    float stand_off_cm;                /* farthest a held heel or toe stood above or below the root's */
    int stand_off_step;                /*   ground (less its idle height), outside jumps; and where */
    float flight_max_s;                /* longest flight that was not a jump */
    float jump_flight_max_s;           /* longest jump flight */
    int jumps;                         /* jump flights */
    float ceiling_max_cm;              /* highest point above a ceiling; -1e9 if never under one */
    int ceiling_point, ceiling_step;   /* where (as wall_point) */
    int flight_step, jump_flight_step; /* where the longest flights began */
    float edge_min_cm;                 /* closest the root came to the terrain's edge */
    float wall_max_cm;                 /* deepest a joint reached into a wall; < 0: never inside */
    int wall_point, wall_step;         /* where: a joint index, MM_JOINTS = the head top, + 1 + k = foot point k */
    /* Smoothness, per step (deg, cm): */
    float rot_p999_deg[MM_JOINTS]; /* each joint's local rotation change, 99.9th percentile */
    float rot_max_deg[MM_JOINTS];  /* and largest */
    int rot_max_step[MM_JOINTS];
    float flex_max_deg[2];           /* largest hinge flexion change, steady / near an event */
    int flex_hinge[2], flex_step[2]; /* where (an MM_HINGE_NAMES index) */
    float point_step_max_cm;         /* largest heel or toe displacement between two steps */
    int point_step_point, point_step_step;
    float point_accel_max_cm; /* largest |p(i) - 2 p(i-1) + p(i-2)| of a heel or toe */
    int point_accel_point, point_accel_step;
    int events;                        /* take-offs, landings, wall pushes and crouch changes */
    float speed_cm_s, want_speed_cm_s; /* mean root and requested speed in the window */
    float head_crouch_cm;              /* mean head height while under a ceiling; 0 if never */
    float bone_error_max;              /* relative */
    int nonfinite_steps;
    int nan_resets;
} mm_result_t;

/* What the accumulator keeps per step for the contact and flight passes. */
typedef struct mm_step_t {
    float p[MM_POINTS][3];
    float ground[MM_POINTS];
    float flex_change[MM_HINGES]; /* deg since the last step (0 at the first) */
    uint8_t flag;                 /* bit k: point k flagged (contact or lock weight > 0.5) */
    uint8_t jump;                 /* jump gait above MM_JUMP_GAIT */
    uint8_t event;                /* a wall push or a crouch change at this step */
} mm_step_t;

typedef struct mm_acc_t {
    const level_t *level;
    const skel_t *skel;
    mm_calibration_t cal;
    mm_step_t *steps;
    int capacity, count;
    int speed_from, speed_to; /* step window of the speed mean; to <= from: none */
    double speed_path_cm, want_sum;
    int speed_n;
    float prev_root[3];
    double head_sum;
    int head_n;
    float prev_local[MM_JOINTS][4];
    float prev_flex[MM_HINGES];
    float prev_point[2][MM_POINTS][3]; /* the last two steps' heels and toes, [0] the latest */
    int have_prev;                     /* consecutive finite steps before this one, up to 2 */
    int prev_wall_pushes;
    bool prev_crouch;
    int hinge[MM_HINGES][3]; /* parent, hinge, child joint; -1 when the skeleton lacks it */
    uint32_t *rot_hist;      /* MM_JOINTS x MM_ROT_BINS counts of local rotation change */
    uint32_t rot_count;      /* steps counted in each joint's histogram */
    float rest_len[MM_JOINTS];
    mm_result_t r;
} mm_acc_t;

/* SPEED_FROM/SPEED_TO: steps over which the mean speed is taken (none when
 * to <= from). False (one logged line) when out of memory. */
bool mm_begin(mm_acc_t *a, const level_t *level, const skel_t *skel, const mm_calibration_t *cal, int capacity,
              int speed_from, int speed_to);
void mm_add(mm_acc_t *a, const mm_frame_t *f);
void mm_finish(mm_acc_t *a, mm_result_t *out);
void mm_free(mm_acc_t *a);

/* Angle (degrees) of the rotation taking unit quaternion A to B. */
float mm_quat_angle_deg(const float a[4], const float b[4]);
/* Flexion (degrees) at hinge H of JOINT positions: the angle between the
 * parent's bone and the hinge's own; NAN when the skeleton lacks it. */
float mm_hinge_flexion(const mm_acc_t *a, int h, const float (*joint)[3]);

/* Height of (x, y, z) above the terrain under it. */
float mm_height_above_ground(const level_t *level, const float p[3]);

#endif
