/* motion_eval: `strider eval motion`, a headless suite of named scenarios
 * that plays the character through the game's own path (a script ->
 * input_frame_t -> sim_step() -> the PFNN controller, at the fixed 60 Hz step;
 * no window, no GL) and measures the displayed pose with motion_metrics
 * against the goals of docs/MOTION_EVAL.md.
 *
 * Every scenario is played twice in lockstep from the same inputs: as the
 * options ask (foot IK on), and by the network alone (IK off), the
 * reference the smoothness goals are measured against. The runner compares
 * the two controllers' network inputs every step and counts the steps where
 * they differ (the IK feeds back into the network's state only through the
 * wall pushes, which move the root out of walls by the shown legs).
 * Call order: eval_motion_main(argc, argv) with argv[0] = "motion"; or, from
 * tests, eval_open() -> eval_run_scenario() per scenario -> eval_close().
 * Output: an aligned table with a row per scenario, a table of the goals
 * (worst value, where, met or not), and --csv / --json / --svg files.
 * Exit codes: 0 every goal met, 1 a goal missed or a runtime failure,
 * 2 usage error.
 * Does NOT: draw, read clocks for the simulation, or change the controller.
 */
#ifndef STRIDER_EVAL_MOTION_EVAL_H
#define STRIDER_EVAL_MOTION_EVAL_H

#include "game/motion_metrics.h"
#include "pfnn/network.h"

#include <stdbool.h>
#include <stdint.h>

enum { EVAL_LEVELS = 6, EVAL_FAIL_TEXT = 640 };

/* What a scenario is judged on beyond the invariants every one has. */
enum {
    EVAL_FLAT = 1u << 0,   /* straight on flat ground: the tighter slide goal */
    EVAL_SPEED = 1u << 1,  /* mean speed over the window within 20 % of the request */
    EVAL_CROUCH = 1u << 2, /* head at least 25 % lower under the ceilings */
    EVAL_SOAK = 1u << 3,   /* seeded random intents, as long as --soak-steps */
    /* A crowd (game/crowd) of 20 or 100 wanderers seeded by --seed, every
     * member measured against the goals, plus: no two capsules overlap. */
    EVAL_CROWD20 = 1u << 4,
    EVAL_CROWD100 = 1u << 5
};

typedef struct eval_scenario_t {
    const char *name;
    const char *group; /* straight, start-stop, turns, slopes, jumps, crouch, walls, edges, soak */
    const char *level;
    bool spawn; /* x, z, heading_deg replace the level's spawn */
    float x, z, heading_deg;
    const char *script; /* script text (the --script format); NULL for a soak */
    float seconds;      /* length, unless a 'quit' comes first */
    unsigned flags;
    float speed_from_s, speed_to_s; /* EVAL_SPEED window */
} eval_scenario_t;

/* Members of a crowd scenario (0: one character played by its script). */
int eval_crowd_count(const eval_scenario_t *s);

/* The built-in suite; *count receives its length. */
const eval_scenario_t *eval_scenarios(int *count);

/* A joint turning more than this (degrees) relative to its parent in one
 * step has flipped (a knee folding over the hip, a limb turning inside out):
 * an invariant at any length for the shipped network, where the smoothness
 * goals are not. */
#define EVAL_FLIP_DEG_DEFAULT 90.0

typedef struct eval_options_t {
    const char *network; /* NULL = assets/network/pfnn.bin */
    pfnn_mode_t mode;
    bool no_ik;
    int soak_steps;       /* steps of each soak scenario */
    uint32_t seed;        /* soak intents */
    const char *dump_dir; /* a pose CSV per scenario (and NAME_ik_off.csv), NULL = none */
    int dump_member;      /* in a crowd scenario, the member dump_dir gets (0-based; past the last: an error) */
    bool no_reference;    /* skip the lockstep IK-off run (the invariants need none) */
    double flip_deg;      /* a joint turning more than this in a step is a flip; 0 = not checked */
} eval_options_t;

/* What one scenario gave. */
typedef struct eval_result_t {
    mm_result_t on;  /* as played (IK on unless no_ik) */
    mm_result_t off; /* the network alone (IK off), same inputs, in lockstep */
    bool have_off;
    int net_diff_steps; /* steps whose network input differed between the two runs */
    int net_diff_first; /* the first of them (1-based), 0 when none */
    /* Crowd scenarios: on/off above are the member missing most goals
     * (its index: crowd_worst); per eval_level_t, how many members miss
     * a goal and what the first of them missed; the closest two capsules
     * came (surface to surface, cm) and the steps after which some overlapped;
     * the largest local joint turn in a step of any member (who, which
     * joint, at which step: --dump-member shows it). */
    int crowd_members, crowd_worst;
    int crowd_turn_member, crowd_turn_joint, crowd_turn_step;
    float crowd_turn_deg;
    int crowd_failing[3];
    char crowd_text[3][EVAL_FAIL_TEXT];
    float crowd_min_gap_cm;
    unsigned long long crowd_overlap_steps;
} eval_result_t;

/* Per-step values of the first CAPACITY steps of a scenario, both runs
 * ([0] as played, [1] IK off), for plots: the phase, each joint's local
 * rotation change and each hinge's flexion. The caller owns the arrays. */
typedef struct eval_trace_t {
    int capacity, count;
    float *phase_rad;                      /* capacity */
    float (*rot_change_deg)[2][MM_JOINTS]; /* capacity */
    float (*flex_deg)[2][MM_HINGES];       /* capacity */
} eval_trace_t;

typedef struct eval_t eval_t;

/* Loads the skeleton, the network and the levels, makes the controller and
 * measures the idle calibration. NULL (one logged line) on failure. */
eval_t *eval_open(const eval_options_t *opt);
void eval_close(eval_t *e);
const mm_calibration_t *eval_calibration(const eval_t *e);
/* Plays scenario S (TRACE may be NULL); false (one logged line) on a
 * runtime failure. */
bool eval_run_scenario(eval_t *e, const eval_scenario_t *s, eval_result_t *out, eval_trace_t *trace);
/* The skeleton's joint names (MM_JOINTS of them). */
const char *eval_joint_name(const eval_t *e, int joint);
/* What eval_check() holds a run to: every goal of docs/MOTION_EVAL.md;
 * every goal but the smoothness ones (placement: slides, sinking, flights,
 * ceilings, edges, walls, speed, crouch, bones, NaN); or only the
 * invariants that must hold however long the run (finite values, no NaN
 * resets, bone lengths, ceilings, level edges, walls, jump flights, a held
 * foot within a step of the body's ground). */
typedef enum eval_level_t { EVAL_GOALS = 0, EVAL_PLACEMENT, EVAL_INVARIANTS } eval_level_t;

/* Writes what S missed with R into TEXT ("" when all is met); returns how
 * many were missed. The smoothness goals need R's IK-off run. */
int eval_check(const eval_t *e, const eval_scenario_t *s, const eval_result_t *r, eval_level_t level, char *text,
               int text_size);

int eval_main(int argc, char **argv);

#endif
