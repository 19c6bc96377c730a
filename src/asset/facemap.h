/* facemap: the demo's facial vocabulary and what it means on any face. The
 * vocabulary is the generated character's: 30 modifiers (blink_L, jawOpen,
 * smile_R, ...) and 31 emotions mixed from them (happy, determined, ...).
 * On a character that has a blend shape of the asked name, that shape is
 * used; otherwise a modifier stands for the ARKit blend shapes it matches
 * (blink_L -> eyeBlinkLeft, lipsPress -> mouthPressLeft + mouthPressRight,
 * ...) and an emotion for its modifiers' ARKit shapes, so the game's blinks
 * and effort, the viewer's --expression and expression curves drive an
 * imported ARKit face. A character with neither has no face animation.
 * Call order: facemap_resolve() once per name (at load) -> set each term's
 * shape weight to w * term weight (add, where several names share a shape).
 * tools/chargen builds its shapes from the same tables.
 * Does NOT: allocate, set weights itself, or know meshes.
 */
#ifndef STRIDER_ASSET_FACEMAP_H
#define STRIDER_ASSET_FACEMAP_H

#include "asset/character.h"

typedef enum facemap_modifier_t {
    FACEMAP_BROW_UP_L,
    FACEMAP_BROW_UP_R,
    FACEMAP_BROW_DOWN_L,
    FACEMAP_BROW_DOWN_R,
    FACEMAP_BROW_INNER_UP,
    FACEMAP_BLINK_L,
    FACEMAP_BLINK_R,
    FACEMAP_EYE_WIDE_L,
    FACEMAP_EYE_WIDE_R,
    FACEMAP_SQUINT_L,
    FACEMAP_SQUINT_R,
    FACEMAP_SMILE_L,
    FACEMAP_SMILE_R,
    FACEMAP_FROWN_L,
    FACEMAP_FROWN_R,
    FACEMAP_SMIRK_L,
    FACEMAP_SMIRK_R,
    FACEMAP_JAW_OPEN,
    FACEMAP_PUCKER,
    FACEMAP_MOUTH_STRETCH,
    FACEMAP_CHEEK_PUFF_L,
    FACEMAP_CHEEK_PUFF_R,
    FACEMAP_NOSE_SNEER_L,
    FACEMAP_NOSE_SNEER_R,
    FACEMAP_LIP_UPPER_UP,
    FACEMAP_LIP_LOWER_DOWN,
    FACEMAP_MOUTH_LEFT,
    FACEMAP_MOUTH_RIGHT,
    FACEMAP_LIPS_PRESS,
    FACEMAP_MOUTH_FUNNEL,
    FACEMAP_MODIFIER_COUNT
} facemap_modifier_t;

enum { FACEMAP_MIX_MAX = 10, FACEMAP_TERMS_MAX = 32 };

/* One modifier of an emotion's mix. */
typedef struct facemap_mix_t {
    facemap_modifier_t id;
    float weight; /* > 0; entries after the last have weight 0 */
} facemap_mix_t;

typedef struct facemap_emotion_t {
    const char *name;
    facemap_mix_t mix[FACEMAP_MIX_MAX];
} facemap_emotion_t;

/* One blend shape of a resolved name and its share of the name's weight. */
typedef struct facemap_term_t {
    int shape; /* chr shape index */
    float weight;
} facemap_term_t;

const char *facemap_modifier_name(facemap_modifier_t m);
int facemap_emotion_count(void);
const facemap_emotion_t *facemap_emotion_get(int index);

/* The shapes of C that show NAME (see the header), duplicates merged, at
 * most MAX; returns how many (0: C cannot show NAME). */
int facemap_resolve(const chr_character_t *c, const char *name, facemap_term_t *out, int max);

#endif
