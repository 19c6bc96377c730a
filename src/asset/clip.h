/* clip: the vertex-animated clip file (.vac, docs/FORMATS_CLIP.md): key
 * meshes of one character mesh (positions, normals, AO of the vertices that
 * move) with explicit key times, so key-reduced clips with non-uniform keys
 * load alike. Positions are offsets from the bind pose quantised to int8 x
 * pos_step_cm; normals snorm8 xyz, renormalised on decode; AO unorm8.
 * Call order: clip_load() (or clip_parse()) -> clip_keys_absolute() with the
 * mesh's bind pose -> anim/tween with clip_timing() -> clip_free(). Writers:
 * clip_alloc() -> header fields, vertex[], key_time[] -> clip_set_key() per
 * key -> clip_save(). Every count, size, index and float is validated; a bad
 * file fails with ONE line naming the file and the problem.
 * Does NOT: know the character (the caller matches mesh name and vertex
 * count), tween, or touch GL.
 * Memory: the arrays inside the caller's clip_t are malloc'd here; clip_free().
 */
#ifndef STRIDER_ASSET_CLIP_H
#define STRIDER_ASSET_CLIP_H

#include "anim/tween.h"
#include "asset/character.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    CLIP_VERSION = 1,
    CLIP_MAX_KEYS = 4096,
    CLIP_Q_MAX = 127, /* int8 quantisation: -127..127 (-128 is refused) */
};

/* Largest .vac file clip_load() accepts (bytes). */
#define CLIP_FILE_MAX_BYTES ((size_t)1 << 28)
/* Sample rates and quantisation steps a clip may declare. */
#define CLIP_MAX_FPS 1000.0f
#define CLIP_MAX_STEP_CM 1.0f

enum { CLIP_LOOP = 1u << 0 };

typedef struct clip_t {
    char mesh[CHR_NAME_MAX];    /* the character mesh it animates */
    uint32_t mesh_vertex_count; /* that mesh's vertex count */
    uint32_t vertex_count;      /* animated vertices, 1..mesh_vertex_count */
    uint32_t key_count;         /* 1..CLIP_MAX_KEYS */
    uint32_t flags;             /* CLIP_LOOP */
    float fps;                  /* rate the keys were sampled at */
    float duration_s;           /* loop period, or the last key's time when clamped */
    float pos_step_cm;          /* offset = q * pos_step_cm */
    uint32_t *vertex;           /* vertex_count mesh indices, strictly increasing */
    float *key_time;            /* key_count s: [0] = 0, strictly increasing */
    int8_t *q_offset;           /* key_count x vertex_count x 3, as stored */
    int8_t *q_normal;           /* key_count x vertex_count x 3, as stored */
    uint8_t *q_ao;              /* key_count x vertex_count, as stored */
    float *offset;              /* decoded: q_offset * pos_step_cm, cm */
    float *normal;              /* decoded: q_normal / 127, renormalised */
    float *ao;                  /* decoded: q_ao / 255 (self-occlusion, 1 = open) */
} clip_t;

bool clip_load(clip_t *c, const char *path);
/* SOURCE names the bytes in error messages (usually the path). */
bool clip_parse(clip_t *c, const uint8_t *data, size_t size, const char *source);
void clip_free(clip_t *c);

/* Allocates zeroed arrays for VERTEX_COUNT x KEY_COUNT (C zeroed or freed
 * before); the caller fills everything else. False (one line) on bad counts
 * or no memory. */
bool clip_alloc(clip_t *c, uint32_t vertex_count, uint32_t key_count);
/* Quantises key KEY from OFFSET (cm from the bind pose) and NORMAL (unit),
 * vertex_count x 3 each, and AO (vertex_count, 0..1), and stores the decoded
 * values. Offsets beyond +-127 steps are clamped (the writer picks the step
 * from the largest); AO is clamped to 0..1. */
void clip_set_key(clip_t *c, uint32_t key, const float *offset, const float *normal, const float *ao);
/* Recomputes offset[] / normal[] from the quantised arrays. */
void clip_decode(clip_t *c);

/* Checks every invariant clip_parse() enforces on an in-memory clip. */
bool clip_validate(const clip_t *c, const char *source);
/* Encodes C into a malloc'd buffer (caller frees with free()); fails (one
 * line) if C would not pass clip_validate(). */
bool clip_serialize(const clip_t *c, uint8_t **data, size_t *size);
bool clip_save(const clip_t *c, const char *path);

/* The key timing for anim/tween (points into C). */
tween_timing_t clip_timing(const clip_t *c);
/* Absolute key positions: bind_pos[vertex[i]] + offset, for every key:
 * out_pos has key_count x vertex_count x 3 floats; BIND_POS has
 * mesh_vertex_count x 3. */
void clip_keys_absolute(const clip_t *c, const float *bind_pos, float *out_pos);

#endif
