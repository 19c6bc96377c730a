/* ctrl_pins: the toe pins of a retargeted character, the part of foot
 * locking that a character with feet of other proportions than the
 * controller's needs (ctrl_foot.h locks the controller's own heels and toes).
 *
 * The controller pivots a foot standing on its toes about its toe tip; the
 * character's toe joint, on a foot of other proportions, would slide about
 * that point. So while a toe is down with its heel, its pin follows the
 * character's toe joint; when the heel lifts, the pin stays and the ankle
 * goes where the foot keeps the toe joint on it (anim/retarget.h does the
 * placing). The ankle's distance from where the controller puts it is kept
 * as an offset: held while the heel is down (a planted heel must not move;
 * only its height eases back), eased out in the air.
 * Call order: ctrl_pins_reset() -> per drawn frame, around retarget_run():
 * ctrl_pins_before() (fills the job's pins and offsets) -> retarget_run()
 * -> ctrl_pins_after() (reads where the job put the toes and ankles).
 * Does NOT: run the retargeting, allocate, or read clocks (the easing counts
 * the controller's steps).
 */
#ifndef STRIDER_CTRL_PINS_H
#define STRIDER_CTRL_PINS_H

#include "anim/retarget.h"
#include "ctrl/ctrl.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ctrl_pins_t {
    float toe_pin[2][3]; /* character space, left and right */
    bool toe_pinned[2];
    float ankle_offset[2][3]; /* ankle's target minus the mapped controller ankle */
    uint64_t step;            /* the controller step the offsets were last eased at */
} ctrl_pins_t;

/* Whether the controller holds foot point C (network order: left heel, left
 * toe, right heel, right toe) on the ground: its lock's weight is over one
 * half, as the motion goals define a contact. */
bool ctrl_point_held(const ctrl_stats_t *st, int c);

void ctrl_pins_reset(ctrl_pins_t *p);
/* Eases the offsets by the steps since the last call and hands JOB the pins
 * and offsets (ST: the controller's stats of the pose being retargeted). */
void ctrl_pins_before(ctrl_pins_t *p, const ctrl_stats_t *st, retarget_job_t *job);
/* After JOB ran: keeps the pinned ankles' offsets and pins the toes that
 * are down with their heels where the job put them. */
void ctrl_pins_after(ctrl_pins_t *p, const ctrl_stats_t *st, const retarget_job_t *job);

#endif
