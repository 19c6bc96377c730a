/* Unit tests of game/loop: the fixed-step clock (steps due, clamped frames, alpha). */
#include "check.h"
#include "core/log.h"
#include "game/camera.h"
#include "game/intent.h"
#include "game/loop.h"
#include "game/script.h"
#include "game/sim.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

static void test_clock(void)
{
    loop_clock_t c;
    loop_clock_init(&c);
    int total = 0;
    /* 1 s of 144 Hz frames gives 60 steps (within one step of rounding). */
    for (int i = 0; i < 144; i++) {
        int n = loop_clock_advance(&c, 1.0 / 144.0);
        for (int k = 0; k < n; k++)
            loop_clock_step_done(&c);
        total += n;
    }
    CHECK(total == 60);
    /* A 5 s stall is clamped: no spiral of death. */
    int n = loop_clock_advance(&c, 5.0);
    CHECK(n <= (int)(LOOP_MAX_FRAME_S * LOOP_STEP_HZ) + 1);
    for (int k = 0; k < n; k++)
        loop_clock_step_done(&c);
    CHECK(loop_clock_alpha(&c) >= 0.0f && loop_clock_alpha(&c) <= 1.0f);
    /* Negative or NaN frame times are ignored. */
    CHECK(loop_clock_advance(&c, -1.0) == 0);
    CHECK(loop_clock_advance(&c, NAN) == 0);
}

int main(void)
{
    test_clock();
    return check_summary();
}
