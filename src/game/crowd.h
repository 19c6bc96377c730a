/* crowd: many PFNN characters on one level, stepped together.
 *
 * Every member has its own controller (ctrl_t) on one shared view of the
 * level (ctrl_level_t) and one shared network and skeleton. Member 0 may
 * be the player's (it takes the intent handed to the step); the others
 * wander on seeded intents: they walk, run, stop, turn, crouch now and
 * then (and under every low ceiling, as the controller does), and jump
 * where a jump area lies ahead or, running, now and then anywhere. They
 * turn away from walls, ledges and the level's edges ahead, give way to
 * one another (each steps to its right of those ahead), and turn round
 * when stuck. A step:
 *   intents -> each controller's first half (ctrl_step_begin) with the
 *   other members' capsules as obstacles -> ONE network evaluation for all
 *   members (crowd_net_t: pfnn batched, or one inference each) -> each
 *   controller's second half (ctrl_step_finish).
 * The halves run in parallel over fixed blocks of members on a core/pool,
 * and each member reads only the capsules of the step's start: the same
 * seed and count give the same bytes on any thread count.
 * Capsules: upright, CTRL_BODY_RADIUS_CM around each root. A controller
 * keeps its root CTRL_BODY_RADIUS_CM + CROWD_MOVE_MARGIN_CM + the other's
 * radius from the other's root as it was at the step's start; the other
 * moves less than CROWD_MOVE_MARGIN_CM in a step, so after the step no
 * two capsules overlap (crowd_stats_t counts any that do).
 * Call order: crowd_create(desc) -> crowd_reset(level, count, seed) -> per
 * fixed step crowd_step() (or begin/network/finish when the caller times
 * the parts) -> read crowd_ctrl()/crowd_member() -> crowd_destroy().
 * Does NOT: read clocks or devices, draw, load files, or allocate after
 * crowd_create() (crowd_reset() builds the level view once per level).
 */
#ifndef STRIDER_GAME_CROWD_H
#define STRIDER_GAME_CROWD_H

#include "anim/skin.h"
#include "ctrl/ctrl.h"
#include "world/level.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    CROWD_MAX = 4096,
    /* Nearest other capsules a controller is handed as obstacles. */
    CROWD_NEIGHBOURS = 12,
    /* Members per block of the parallel loops. */
    CROWD_BLOCK = 8
};

/* More than any root moves in one 60 Hz step (a run is 4.2 cm a step). */
#define CROWD_MOVE_MARGIN_CM 8.0f
/* Others within this distance are obstacles and are given way to. */
#define CROWD_NEAR_CM 400.0f

typedef struct crowd_desc_t {
    const pfnn_network_t *net; /* borrowed; shipped dims */
    const skel_t *skel;        /* borrowed; the controller's skeleton */
    pfnn_mode_t mode;          /* phase mode of every member */
    bool ik_off;               /* foot IK off for every member */
    int max_count;             /* 1..CROWD_MAX members */
    int threads;               /* 0: every CPU; 1: the caller only */
    bool single_inference;     /* one network inference per member instead of one batch */
} crowd_desc_t;

/* A wandering member's plan (plain data; the seeded RNG lives here). */
typedef struct crowd_wander_t {
    uint32_t rng;      /* xorshift32 */
    float heading_rad; /* where it wants to go */
    float speed;       /* 0 walk .. 1 run */
    bool stop, crouch;
    int steps_left; /* of this plan */
    int jump_steps; /* the jump button held this many more steps */
    int stuck_steps;
    float turn_sign; /* which way it turns from what blocks it */
} crowd_wander_t;

typedef struct crowd_member_t {
    ctrl_t *ctrl;
    crowd_wander_t wander;
    ctrl_input_t intent; /* of the last step */
    /* The local pose (the controller's 21 joints) of the step before the
     * last, to draw between steps. */
    float prev_rot[CTRL_JOINTS][4];
    float prev_trans[CTRL_JOINTS][3];
    float min_gap_cm; /* to the nearest other capsule after the last step */
} crowd_member_t;

typedef struct crowd_stats_t {
    int count;
    uint64_t steps;
    float min_gap_cm;       /* between two capsules' surfaces after the last step; < 0 overlap */
    float min_gap_ever_cm;  /* since the reset */
    uint64_t overlap_steps; /* steps after which some two capsules overlapped */
    int spawn_shortfall;    /* members crowd_reset() found no free place for */
} crowd_stats_t;

typedef struct crowd_t crowd_t;

/* NULL + one logged line on bad desc values or out of memory. */
crowd_t *crowd_create(const crowd_desc_t *desc);
void crowd_destroy(crowd_t *c);
/* COUNT members (clamped to 1..max_count) on LEVEL (borrowed): member 0 at
 * PLAYER (NULL: the level's spawn), the others on seeded free places
 * around it (off walls, ledges, crouch areas and one another). Builds the
 * level view when LEVEL differs from the last reset's (or REBUILD).
 * false + one logged line when out of memory. */
bool crowd_reset(crowd_t *c, const level_t *level, int count, uint32_t seed, const ctrl_spawn_t *player, bool rebuild);
/* Grows or shrinks the crowd to COUNT (1..max_count) between steps: the
 * members kept go on as they were, new ones are placed as by
 * crowd_reset() (fewer when the level is full). false when out of memory
 * or before the first reset. */
bool crowd_resize(crowd_t *c, int count);
/* One fixed step. PLAYER: member 0's intent (NULL: member 0 wanders too). */
void crowd_step(crowd_t *c, const ctrl_input_t *player, float dt_s);
/* The step in three parts, for callers that time them. */
void crowd_step_begin(crowd_t *c, const ctrl_input_t *player, float dt_s);
void crowd_step_network(crowd_t *c);
void crowd_step_finish(crowd_t *c);

int crowd_count(const crowd_t *c);
int crowd_max_count(const crowd_t *c);
/* Threads its loops run on, counting the caller. */
int crowd_threads(const crowd_t *c);
/* Member I's controller, for any I < max_count (member 0's exists before
 * the first reset: the player's controller); NULL otherwise. */
ctrl_t *crowd_ctrl(crowd_t *c, int i);
/* Every member's phase mode (prepared in the network; else ignored) and foot IK. */
void crowd_set_mode(crowd_t *c, pfnn_mode_t mode);
void crowd_set_ik(crowd_t *c, bool on);
const crowd_member_t *crowd_member(const crowd_t *c, int i);
const crowd_stats_t *crowd_stats(const crowd_t *c);
/* Member I's root (x, y, z, world cm) after the last step. */
void crowd_root(const crowd_t *c, int i, float out[3]);
/* Bytes one more member costs (its controller and its share of the
 * crowd's per-member arrays; not the network, skeleton or level view). */
size_t crowd_member_bytes(const crowd_t *c);
/* What a renderer draws of the members (plain data): each member's pose
 * between its last two steps at ALPHA (rotations nlerped, translations
 * lerped, as sim_lerp_pose), as skinning matrices from BIND's bind pose
 * straight to the world (pose_palette_run on the controller's skeleton),
 * and a sphere around it. Members FIRST .. count - 1, in order; written
 * once each (PALETTE may be write-only mapped GPU memory). BIND must be of
 * the controller's skeleton (a character whose rig is that skeleton). */
#define CROWD_DRAW_RADIUS_CM 110.0f /* about the hip: head, feet and hands of any gait */
typedef struct crowd_draw_job_t {
    const pose_bind_t *bind; /* bind->joint_count == CTRL_JOINTS */
    float alpha;             /* 0: the step before the last, 1: the last */
    int first;               /* first member (1: member 0 is drawn as the player) */
    float *palette;          /* (count - first) x CTRL_JOINTS x POSE_MAT_FLOATS */
    float *bounds;           /* (count - first) x 4: centre xyz, radius (cm) */
} crowd_draw_job_t;
/* On the crowd's threads; false (one logged line) on a bad job. */
bool crowd_draw_run(crowd_t *c, const crowd_draw_job_t *job);

/* The members' CPU skinning (a renderer's CPU deformation mode hands the
 * jobs out: one whole anim/skin job per member drawn, writing disjoint
 * spans): COUNT jobs on the crowd's threads, in fixed blocks of
 * CROWD_SKIN_BLOCK jobs, each with skin_run(). A job's output does not
 * depend on the thread that runs it, so neither does the result on the
 * thread count. False when a job is refused (skin_run() logs why). */
enum { CROWD_SKIN_BLOCK = 1 };
bool crowd_skin_run(crowd_t *c, const skin_job_t *jobs, int count);

/* Switches the network evaluation between one batch and one inference per
 * member (bench crowd compares them on the same crowd). */
void crowd_set_single_inference(crowd_t *c, bool on);

#endif
