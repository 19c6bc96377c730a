/* kr: greedy key reduction of a vertex-animated clip (asset/clip.h).
 * Repeatedly removes the key whose removal gives the smallest maximum
 * vertex error, where the error is always measured against the ORIGINAL
 * keys (so it accumulates over removals): at every original key time in
 * the stretch the removal changes, the clip rebuilt from the kept keys
 * (anim/tween: linear from the two neighbours, or Hermite from four) is
 * compared with the original key, vertex by vertex (distance in cm). It
 * stops when the best removal would exceed the bound. Key 0 is always kept
 * (clip times start there), and so is the last key of a clamped clip.
 * Call order: kr_reduce() -> use/save the output clip -> clip_free().
 * Does NOT: re-quantise (kept keys keep their bytes), change the vertex set,
 * or read files. Memory: the output clip's arrays are malloc'd (clip_free).
 */
#ifndef STRIDER_TOOLS_KR_H
#define STRIDER_TOOLS_KR_H

#include "anim/tween.h"
#include "asset/clip.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct kr_result_t {
    uint32_t kept, removed;
    float max_error_cm; /* of the reduced clip, over every original key time */
} kr_result_t;

/* Reduces IN into OUT (zeroed or freed before) under BOUND_CM with MODE's
 * reconstruction; false (one line) on bad arguments or no memory. */
bool kr_reduce(const clip_t *in, tween_mode_t mode, float bound_cm, clip_t *out, kr_result_t *res);

#endif
