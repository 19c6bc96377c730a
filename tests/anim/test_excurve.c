/* Tests of anim/excurve: keys are hit exactly, easing stays within the
 * neighbouring keys' range (no overshoot), a loop eases from the last key
 * back to the first across the period (negative times too), a clamped
 * clip holds its ends, the built-in clips pass the checks, bad clips fail. */
#include "anim/excurve.h"

#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdio.h>

static const excurve_key_t KEYS[] = {{0.5f, 0.2f}, {1.0f, 1.0f}, {2.0f, 0.0f}};
static const excurve_track_t TRACK = {"smile_L", 3, KEYS};

int main(void)
{
    excurve_clip_t loop = {"test", 4.0f, true, 1, &TRACK};
    excurve_clip_t clamp = {"test", 4.0f, false, 1, &TRACK};
    CHECK(excurve_clip_check(&loop) && excurve_clip_check(&clamp));
    for (int k = 0; k < 3; k++) {
        CHECK(excurve_track_weight(&loop, &TRACK, KEYS[k].time_s) == KEYS[k].weight);
        CHECK(excurve_track_weight(&loop, &TRACK, KEYS[k].time_s + 8.0) == KEYS[k].weight);
        CHECK(excurve_track_weight(&clamp, &TRACK, KEYS[k].time_s) == KEYS[k].weight);
    }
    /* Half way between keys: the mean (smoothstep(0.5) = 0.5). */
    CHECK(fabsf(excurve_track_weight(&loop, &TRACK, 0.75) - 0.6f) < 1e-6f);
    /* Loop: from the last key (2 s, 0) to the first key again at 4.5 s (0.2). */
    CHECK(fabsf(excurve_track_weight(&loop, &TRACK, 3.25) - 0.1f) < 1e-6f);
    CHECK(fabsf(excurve_track_weight(&loop, &TRACK, -0.75) - 0.1f) < 1e-6f);
    CHECK(fabsf(excurve_track_weight(&loop, &TRACK, 0.25) - excurve_track_weight(&loop, &TRACK, 4.25)) < 1e-6f);
    /* Clamped: the ends hold. */
    CHECK(excurve_track_weight(&clamp, &TRACK, -3.0) == 0.2f && excurve_track_weight(&clamp, &TRACK, 3.9) == 0.0f);
    /* No overshoot, and continuity across the loop seam. */
    float lo = 1.0f, hi = 0.0f, jump = 0.0f, prev = excurve_track_weight(&loop, &TRACK, -0.001);
    for (int i = 0; i <= 8000; i++) {
        float w = excurve_track_weight(&loop, &TRACK, i * 0.001);
        lo = fminf(lo, w);
        hi = fmaxf(hi, w);
        jump = fmaxf(jump, fabsf(w - prev));
        prev = w;
    }
    CHECK(lo >= 0.0f && hi <= 1.0f && jump < 0.01f);
    for (int b = 0; b < excurve_builtin_count(); b++)
        CHECK(excurve_clip_check(excurve_builtin(b)));
    CHECK(excurve_builtin_find("talk") && excurve_builtin_find("smile-surprise-blink") && !excurve_builtin_find("x"));
    log_set_level(LOG_QUIET);
    static const excurve_key_t BAD[] = {{1.0f, 0.0f}, {0.5f, 1.0f}};
    excurve_track_t bad_track = {"x", 2, BAD};
    excurve_clip_t bad = {"bad", 4.0f, true, 1, &bad_track};
    CHECK(!excurve_clip_check(&bad));
    static const excurve_key_t OUTSIDE[] = {{0.0f, 0.0f}, {5.0f, 1.0f}};
    excurve_track_t out_track = {"x", 2, OUTSIDE};
    excurve_clip_t outside = {"outside", 4.0f, true, 1, &out_track};
    CHECK(!excurve_clip_check(&outside));
    return check_summary();
}
