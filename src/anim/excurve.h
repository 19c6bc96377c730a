/* excurve: expression curves, keyframed blend-shape weights over time (a
 * few seconds of smile -> surprise -> blink, a talking mouth), like the
 * facial animation curves of the GPU Gems 3 head demo.
 * A track is one shape's keys (time, weight); between keys the weight eases
 * with smoothstep (zero slope at every key: no overshoot outside the keyed
 * range, C1 at keys). A looping clip wraps time (negative times included)
 * and eases from the last key back to the first key at duration_s + the
 * first key's time; a clamped clip holds the first/last key outside them.
 * Call order: excurve_builtin() or a caller-made excurve_clip_t ->
 * excurve_clip_check() once -> per step excurve_track_weight() per track
 * (shape names are resolved to indices by the caller, once).
 * Does NOT: allocate, know the character, or set weights by itself.
 * Memory: clips and keys are static data or the caller's.
 */
#ifndef STRIDER_ANIM_EXCURVE_H
#define STRIDER_ANIM_EXCURVE_H

#include <stdbool.h>

enum { EXCURVE_MAX_TRACKS = 32, EXCURVE_MAX_KEYS = 256 };

typedef struct excurve_key_t {
    float time_s;
    float weight;
} excurve_key_t;

typedef struct excurve_track_t {
    const char *shape;         /* blend-shape name */
    int key_count;             /* 1..EXCURVE_MAX_KEYS */
    const excurve_key_t *keys; /* times strictly increasing, in [0, duration_s) when looping */
} excurve_track_t;

typedef struct excurve_clip_t {
    const char *name;
    float duration_s; /* > 0: the loop period, or the length when clamped */
    bool loop;
    int track_count; /* 1..EXCURVE_MAX_TRACKS */
    const excurve_track_t *tracks;
} excurve_clip_t;

/* Built-in clips: "talk" (the mouth the shipped vertex clip is sampled
 * from) and "smile-surprise-blink" (the viewer's expression demo). */
int excurve_builtin_count(void);
const excurve_clip_t *excurve_builtin(int index);
const excurve_clip_t *excurve_builtin_find(const char *name);

/* Counts, finite values, key order; one logged line on failure. */
bool excurve_clip_check(const excurve_clip_t *clip);
/* Weight of TRACK at TIME_S (finite) under CLIP's duration and loop mode. */
float excurve_track_weight(const excurve_clip_t *clip, const excurve_track_t *track, double time_s);

#endif
