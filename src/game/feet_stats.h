/* feet_stats: how the shown character's own feet and head hold up in
 * play, for `strider --report`: slide per contact of its ankle and toe
 * joints while the controller holds that heel or toe (the motion goals'
 * definition, docs/MOTION_EVAL.md), the same for the controller's own heel
 * and toe points, sinking below the rest height, the highest head top and
 * the least room under a crouch area's ceiling.
 *
 * A retargeted character's feet are not the controller's: these numbers say
 * whether its own legs (anim/retarget.h, ctrl/ctrl_pins.h) keep the
 * controller's planted feet planted.
 * Call order: memset to 0 -> per drawn pose feet_stats_add() -> for the
 * report, on a copy, feet_stats_contact_p95().
 * Does NOT: draw, allocate, or read the figure: the caller hands in the
 * world positions (plain data).
 */
#ifndef STRIDER_GAME_FEET_STATS_H
#define STRIDER_GAME_FEET_STATS_H

#include "ctrl/ctrl.h"
#include "world/level.h"

#include <stdbool.h>

enum { FEET_CONTACTS_MAX = 2048 };

/* The shown character's own feet and head as drawn (lockstep runs: one
 * per step), for --report: how far planted ankles move, against the
 * controller's own heels in the same frames, and the highest head top. */
typedef struct feet_stats_t {
    int frames, contact_frames;
    bool have_prev;
    float prev_ankle[2][3], prev_heel[2][3];
    bool prev_contact[2];
    double slide_cm[2], ctrl_slide_cm[2];
    float slide_max_cm, ctrl_slide_max_cm;
    /* Per contact of the drawn character's ankle or toe joint (a run of
     * frames where the controller holds that heel or toe: flag and lock
     * weight > 0.5), its horizontal path, as the motion goals count slide;
     * the first FEET_CONTACTS_MAX contacts go into the percentile, the
     * maximum sees all. [side][ankle, toe]. */
    bool point_prev_contact[2][2];
    float point_prev[2][2][3];
    float point_run_cm[2][2];
    float contact_slide_cm[FEET_CONTACTS_MAX];
    int contacts;
    float contact_slide_max_cm;
    /* The same for the controller's own heel and toe-tip points. */
    float ctrl_point_prev[2][2][3];
    float ctrl_point_run_cm[2][2];
    float ctrl_contact_slide_cm[FEET_CONTACTS_MAX];
    float ctrl_contact_slide_max_cm;
    /* Deepest an ankle or toe joint went below its rest height above the
     * terrain under it (> 0: sunk; the motion goals allow 1 cm). */
    float sink_max_cm;
    float ctrl_sink_max_cm;         /* the controller's heel and toe tip, likewise */
    float head_top_max_cm;          /* highest head top above the terrain under the root */
    float ceiling_clearance_min_cm; /* least room between head top and a crouch area's ceiling */
    int ceiling_frames;
    bool finite;
} feet_stats_t;

/* The shown character's pose, world cm, as the caller measured it. */
typedef struct feet_shown_t {
    bool has_point[2][2];            /* [side][ankle, toe]: the joint exists */
    float point[2][2][3];            /* their world positions */
    float rest_height_cm[2][2];      /* above the soles at rest */
    float ctrl_rest_height_cm[2][2]; /* the controller's heel and toe tip, likewise */
    bool has_head;
    float head_top[3]; /* the highest point the head carries */
    float ground_y_cm; /* the terrain under the root */
} feet_shown_t;

/* Adds one drawn pose. ST and CONTACT (the controller's four foot points
 * after its IK, network order: left heel, left toe, right heel, right toe)
 * are the simulation's of the same step. */
void feet_stats_add(feet_stats_t *fs, const feet_shown_t *shown, const ctrl_stats_t *st, const float (*contact)[3],
                    const level_t *level);
/* The 95th percentiles of the slides per contact, the character's and the
 * controller's, contacts still running at the end included (ends them and
 * sorts the stats' arrays: call once, on a copy, for the report). */
void feet_stats_contact_p95(feet_stats_t *fs, float *shown_cm, float *ctrl_cm);

#endif
