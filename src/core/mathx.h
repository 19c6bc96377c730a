/* mathx: the scalar helpers C's math.h lacks, written once: clamps.
 * clampf(v, lo, hi) keeps a NaN a NaN (every comparison with it is false),
 * so a bad value still shows downstream instead of turning into a bound.
 * Vector and matrix maths is cglm's (destination last).
 * Does NOT: check lo <= hi.
 */
#ifndef STRIDER_CORE_MATHX_H
#define STRIDER_CORE_MATHX_H

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
static inline float clamp01f(float v) { return clampf(v, 0.0f, 1.0f); }
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

#endif
