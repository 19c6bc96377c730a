#include "game/loop.h"

void loop_clock_init(loop_clock_t *c)
{
    c->accumulator_s = 0.0;
    c->step_count = 0;
}

int loop_clock_advance(loop_clock_t *c, double frame_s)
{
    if (!(frame_s > 0.0))
        frame_s = 0.0;
    if (frame_s > LOOP_MAX_FRAME_S)
        frame_s = LOOP_MAX_FRAME_S;
    c->accumulator_s += frame_s;
    /* The epsilon keeps 1/60 s of accumulated float time from rounding
     * down to zero steps. */
    int steps = (int)(c->accumulator_s / LOOP_STEP_S + 1e-9);
    return steps;
}

void loop_clock_step_done(loop_clock_t *c)
{
    c->accumulator_s -= LOOP_STEP_S;
    if (c->accumulator_s < 0.0)
        c->accumulator_s = 0.0;
    c->step_count++;
}

float loop_clock_alpha(const loop_clock_t *c) { return (float)(c->accumulator_s / LOOP_STEP_S); }
