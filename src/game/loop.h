/* loop: the one place that owns time. A fixed 60 Hz simulation step driven
 * by an accumulator, with the frame time clamped so a stall (breakpoint,
 * window drag) never triggers a spiral of catch-up steps.
 *
 * Call order: loop_clock_init() -> each frame loop_clock_advance(frame_s)
 * returns how many fixed steps to run -> loop_clock_alpha() tells how far
 * the render time lies between the last two steps (for interpolation).
 * Does NOT: read the wall clock itself; the platform measures frame_s.
 */
#ifndef STRIDER_GAME_LOOP_H
#define STRIDER_GAME_LOOP_H

#include <stdint.h>

#define LOOP_STEP_HZ 60
#define LOOP_STEP_S (1.0 / LOOP_STEP_HZ)
/* At most this much real time is simulated per rendered frame. */
#define LOOP_MAX_FRAME_S 0.25

typedef struct loop_clock_t {
    double accumulator_s;
    uint64_t step_count; /* fixed steps taken since init */
} loop_clock_t;

void loop_clock_init(loop_clock_t *c);
/* Adds a frame's real duration; returns the number of fixed steps due. */
int loop_clock_advance(loop_clock_t *c, double frame_s);
/* Call once per step actually run. */
void loop_clock_step_done(loop_clock_t *c);
float loop_clock_alpha(const loop_clock_t *c);

#endif
