/* ctrl_pins.c: toe pins of a retargeted character (see ctrl_pins.h). */
#include "ctrl/ctrl_pins.h"

#include <math.h>
#include <string.h>

/* What remains of an unheld ankle offset after one controller step. */
#define PINS_EASE_PER_STEP 0.75f
/* Steps after which an offset counts as gone (0.75^60 ~ 3e-8). */
#define PINS_EASE_MAX_STEPS 60

bool ctrl_point_held(const ctrl_stats_t *st, int c) { return st->lock_weight[c] > 0.5f; }

void ctrl_pins_reset(ctrl_pins_t *p) { memset(p, 0, sizeof *p); }

void ctrl_pins_before(ctrl_pins_t *p, const ctrl_stats_t *st, retarget_job_t *job)
{
    uint64_t n = st->steps - p->step;
    float ease = powf(PINS_EASE_PER_STEP, (float)(n < PINS_EASE_MAX_STEPS ? n : PINS_EASE_MAX_STEPS));
    p->step = st->steps;
    for (int side = 0; side < 2; side++) {
        bool heel = ctrl_point_held(st, side * 2), toe = ctrl_point_held(st, side * 2 + 1);
        if (!toe)
            p->toe_pinned[side] = false;
        job->toe_pinned[side] = toe && !heel && p->toe_pinned[side];
        if (!job->toe_pinned[side]) {
            p->ankle_offset[side][1] *= ease;
            if (!heel) {
                p->ankle_offset[side][0] *= ease;
                p->ankle_offset[side][2] *= ease;
            }
        }
    }
    job->toe_pin = (const float(*)[3])p->toe_pin;
    job->ankle_offset = (const float(*)[3])p->ankle_offset;
}

void ctrl_pins_after(ctrl_pins_t *p, const ctrl_stats_t *st, const retarget_job_t *job)
{
    for (int side = 0; side < 2; side++) {
        bool heel = ctrl_point_held(st, side * 2), toe = ctrl_point_held(st, side * 2 + 1);
        if (job->toe_pinned[side])
            for (int k = 0; k < 3; k++)
                p->ankle_offset[side][k] = job->ankle_target[side][k] - job->ankle_mapped[side][k];
        if (toe && (heel || !p->toe_pinned[side])) {
            memcpy(p->toe_pin[side], job->toe[side], sizeof p->toe_pin[side]);
            p->toe_pinned[side] = true;
        }
    }
}
