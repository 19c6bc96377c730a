/* tween: vertex tweening (morphing between key meshes) of a vertex-animated
 * clip. Gosselin: the time gives a key index and a fraction (time x fps,
 * wrapped when looping, negative times too, clamped otherwise) and vertices
 * are lerped between two keys. Cebenoyan's Hermite tween: a Catmull-Rom
 * cubic through keys k-1..k+2 (wrapped, or repeating the end key when
 * clamped) with tangents over the real key spacing, so non-uniform (reduced)
 * keys work. Blended normals shrink (and the cubic overshoots), so they are
 * renormalised; an optional AO channel is tweened alike and clamped to
 * 0..1. At a key's own time (within TWEEN_SNAP) the key is copied bit for bit.
 * Call order: tween_timing_check() once at load -> per frame fill a
 * tween_job_t -> tween_run(), or tween_skin_run() (tween the bind pose, then
 * skin it). tween_locate()/tween_weights() expose the key weights to tools.
 * Does NOT: allocate, read files, touch tangents or call GL.
 * Memory: every array is the caller's.
 */
#ifndef STRIDER_ANIM_TWEEN_H
#define STRIDER_ANIM_TWEEN_H

#include "anim/skin.h"

#include <stdbool.h>
#include <stdint.h>

enum { TWEEN_MAX_KEYS = 65536, TWEEN_SPAN_KEYS = 4 };

/* A fraction this close to a key (in key units) counts as the key itself,
 * so k / fps lands on key k despite rounding in time * fps. */
#define TWEEN_SNAP 1e-6

typedef enum tween_mode_t { TWEEN_LINEAR = 0, TWEEN_HERMITE = 1, TWEEN_MODE_COUNT } tween_mode_t;

/* When the keys are. */
typedef struct tween_timing_t {
    int key_count;          /* 1..TWEEN_MAX_KEYS */
    float fps;              /* uniform keys (key_times NULL): key k at k / fps s; loop period key_count / fps */
    const float *key_times; /* or key_count times in s: [0] = 0, strictly increasing */
    float duration_s;       /* with key_times and loop: the period (> last time; key 0 repeats there) */
    bool loop;              /* wrap the time; otherwise clamp to the first/last key */
} tween_timing_t;

/* Where a time falls: the segment key[1] -> key[2] at fraction frac in
 * [0, 1), with neighbours key[0] (before) and key[3] (after), already
 * wrapped or clamped to valid key indices. time[] are the four keys' times
 * unwrapped around the segment (so time[0] <= time[1] < time[2] <= time[3],
 * equal where a clamped end repeats a key). */
typedef struct tween_span_t {
    int key[TWEEN_SPAN_KEYS];
    double time[TWEEN_SPAN_KEYS];
    double frac;
} tween_span_t;

typedef struct tween_job_t {
    tween_mode_t mode;
    tween_timing_t timing;
    double time_s;          /* any finite time; wrapped or clamped per timing.loop */
    int vertex_count;       /* vertices per key, >= 1 */
    const float *positions; /* key_count x vertex_count x 3, cm */
    const float *normals;   /* key_count x vertex_count x 3 (unit), or NULL */
    const float *ao;        /* key_count x vertex_count (0..1), or NULL */
    /* NULL: key vertex i is output vertex i. Otherwise vertex_count output
     * indices (the caller guarantees they fit the output arrays): key
     * vertex i goes to output vertex out_vertex[i], the rest is untouched. */
    const uint32_t *out_vertex;
    float *out_positions; /* 3 per output vertex; must not alias the keys */
    float *out_normals;   /* 3 per output vertex, when normals */
    float *out_ao;        /* 1 per output vertex, when ao */
} tween_job_t;

/* O(keys): counts, fps/duration finite and > 0 where used, key times
 * finite, starting at 0, strictly increasing, below the loop period. */
bool tween_timing_check(const tween_timing_t *t);
/* The segment and neighbours at TIME_S (TIME_S finite; T already checked). */
void tween_locate(const tween_timing_t *t, double time_s, tween_span_t *out);
/* Weights of the span's four keys (they sum to 1): LINEAR puts 1 - frac and
 * frac on key[1] and key[2]; HERMITE is the cubic Hermite with Catmull-Rom
 * tangents (p[k+1] - p[k-1]) / (t[k+1] - t[k-1]), one-sided at clamped ends. */
void tween_weights(tween_mode_t mode, const tween_span_t *span, float out_w[TWEEN_SPAN_KEYS]);

/* O(1) checks of pointers, counts and mode; one logged line on failure. */
bool tween_validate(const tween_job_t *job);
/* Validates, then writes every output vertex the job names. */
bool tween_run(const tween_job_t *job);
/* Tween the bind pose, then skin it: SKIN's positions must be TWEEN's
 * out_positions (and its normals TWEEN's out_normals when the tween has
 * normals), so the skinning reads the tweened keys. */
bool tween_skin_run(const tween_job_t *tween, const skin_job_t *skin);

const char *tween_mode_name(tween_mode_t mode);

#endif
