#include "asset/facemap.h"

#include <string.h>

static const char *const MODIFIER_NAME[FACEMAP_MODIFIER_COUNT] = {
    "browUp_L",   "browUp_R",     "browDown_L",  "browDown_R",  "browInnerUp", "blink_L",
    "blink_R",    "eyeWide_L",    "eyeWide_R",   "squint_L",    "squint_R",    "smile_L",
    "smile_R",    "frown_L",      "frown_R",     "smirk_L",     "smirk_R",     "jawOpen",
    "pucker",     "mouthStretch", "cheekPuff_L", "cheekPuff_R", "noseSneer_L", "noseSneer_R",
    "lipUpperUp", "lipLowerDown", "mouthLeft",   "mouthRight",  "lipsPress",   "mouthFunnel",
};

/* Emotions: weighted mixes of modifiers ("BOTH" means both sides). */
#define ONE(a, w)                                                                                                      \
    {                                                                                                                  \
        FACEMAP_##a, w                                                                                                 \
    }
#define BOTH(a, w)                                                                                                     \
    {FACEMAP_##a##_L, w}, { FACEMAP_##a##_R, w }
static const facemap_emotion_t EMOTIONS[] = {
    {"happy", {BOTH(SMILE, 1.0f), BOTH(SQUINT, 0.3f), ONE(BROW_INNER_UP, 0.15f)}},
    {"joyful", {BOTH(SMILE, 1.0f), ONE(JAW_OPEN, 0.5f), BOTH(SQUINT, 0.6f), ONE(LIP_UPPER_UP, 0.3f)}},
    {"content", {BOTH(SMILE, 0.5f), BOTH(BLINK, 0.25f)}},
    {"sad", {BOTH(FROWN, 1.0f), ONE(BROW_INNER_UP, 1.0f), BOTH(BLINK, 0.2f), ONE(LIPS_PRESS, 0.3f)}},
    {"grief",
     {BOTH(FROWN, 1.0f), ONE(BROW_INNER_UP, 1.0f), ONE(JAW_OPEN, 0.25f), BOTH(SQUINT, 0.5f), ONE(MOUTH_STRETCH, 0.4f)}},
    {"angry",
     {BOTH(BROW_DOWN, 1.0f), BOTH(SQUINT, 0.5f), BOTH(NOSE_SNEER, 0.4f), ONE(LIPS_PRESS, 0.6f), BOTH(FROWN, 0.3f)}},
    {"furious",
     {BOTH(BROW_DOWN, 1.0f), BOTH(NOSE_SNEER, 0.8f), ONE(LIP_UPPER_UP, 0.7f), ONE(JAW_OPEN, 0.35f),
      ONE(MOUTH_STRETCH, 0.6f), BOTH(EYE_WIDE, 0.3f)}},
    {"surprised",
     {BOTH(BROW_UP, 1.0f), ONE(BROW_INNER_UP, 0.5f), BOTH(EYE_WIDE, 1.0f), ONE(JAW_OPEN, 0.6f),
      ONE(MOUTH_FUNNEL, 0.3f)}},
    {"shocked", {BOTH(BROW_UP, 1.0f), BOTH(EYE_WIDE, 1.0f), ONE(JAW_OPEN, 1.0f), ONE(MOUTH_STRETCH, 0.4f)}},
    {"thoughtful",
     {ONE(BROW_DOWN_L, 0.5f), ONE(BROW_UP_R, 0.6f), ONE(MOUTH_LEFT, 0.6f), ONE(LIPS_PRESS, 0.5f), BOTH(SQUINT, 0.25f),
      ONE(SMIRK_L, 0.2f)}},
    {"disgusted",
     {BOTH(NOSE_SNEER, 1.0f), ONE(LIP_UPPER_UP, 0.8f), BOTH(BROW_DOWN, 0.6f), BOTH(SQUINT, 0.5f), BOTH(FROWN, 0.4f)}},
    {"afraid",
     {ONE(BROW_INNER_UP, 1.0f), BOTH(BROW_UP, 0.5f), BOTH(EYE_WIDE, 0.8f), ONE(MOUTH_STRETCH, 0.7f),
      ONE(JAW_OPEN, 0.2f)}},
    {"terrified",
     {ONE(BROW_INNER_UP, 1.0f), BOTH(BROW_UP, 0.7f), BOTH(EYE_WIDE, 1.0f), ONE(MOUTH_STRETCH, 1.0f),
      ONE(JAW_OPEN, 0.55f)}},
    {"contempt", {ONE(SMIRK_R, 1.0f), ONE(SQUINT_R, 0.3f), ONE(BROW_UP_L, 0.2f), ONE(LIPS_PRESS, 0.3f)}},
    {"confused", {ONE(BROW_DOWN_L, 0.7f), ONE(BROW_UP_R, 0.8f), ONE(MOUTH_RIGHT, 0.3f), ONE(FROWN_L, 0.3f)}},
    {"skeptical", {ONE(BROW_UP_L, 1.0f), ONE(BROW_DOWN_R, 0.6f), ONE(SQUINT_R, 0.4f), ONE(SMIRK_L, 0.3f)}},
    {"sleepy", {BOTH(BLINK, 0.7f), ONE(JAW_OPEN, 0.1f), BOTH(BROW_UP, 0.2f)}},
    {"bored", {BOTH(BLINK, 0.45f), BOTH(FROWN, 0.3f), ONE(MOUTH_LEFT, 0.25f)}},
    {"excited", {BOTH(SMILE, 1.0f), BOTH(EYE_WIDE, 0.6f), BOTH(BROW_UP, 0.7f), ONE(JAW_OPEN, 0.4f)}},
    {"worried", {ONE(BROW_INNER_UP, 1.0f), BOTH(FROWN, 0.4f), ONE(LIPS_PRESS, 0.5f), ONE(MOUTH_STRETCH, 0.25f)}},
    {"embarrassed",
     {BOTH(SMILE, 0.4f), BOTH(SQUINT, 0.5f), ONE(BROW_INNER_UP, 0.5f), ONE(MOUTH_LEFT, 0.3f), BOTH(BLINK, 0.3f)}},
    {"proud", {BOTH(SMIRK, 0.4f), BOTH(SMILE, 0.25f), BOTH(BLINK, 0.2f), ONE(LIPS_PRESS, 0.3f)}},
    {"determined", {BOTH(BROW_DOWN, 0.6f), ONE(LIPS_PRESS, 0.9f), BOTH(SQUINT, 0.4f)}},
    {"pain",
     {BOTH(BROW_DOWN, 0.8f), ONE(BROW_INNER_UP, 0.5f), BOTH(SQUINT, 1.0f), ONE(MOUTH_STRETCH, 0.7f),
      ONE(LIP_UPPER_UP, 0.4f)}},
    {"relieved", {BOTH(SMILE, 0.4f), ONE(BROW_INNER_UP, 0.4f), BOTH(BLINK, 0.4f), ONE(MOUTH_FUNNEL, 0.2f)}},
    {"amused", {ONE(SMIRK_L, 0.7f), ONE(SMILE_R, 0.4f), BOTH(SQUINT, 0.3f), ONE(BROW_UP_L, 0.3f)}},
    {"suspicious", {BOTH(SQUINT, 0.9f), BOTH(BROW_DOWN, 0.5f), ONE(MOUTH_LEFT, 0.3f), ONE(LIPS_PRESS, 0.3f)}},
    {"sulky", {ONE(PUCKER, 0.5f), BOTH(FROWN, 0.6f), BOTH(BROW_DOWN, 0.3f), ONE(LIP_LOWER_DOWN, 0.2f)}},
    {"awe", {BOTH(BROW_UP, 0.8f), BOTH(EYE_WIDE, 0.5f), ONE(JAW_OPEN, 0.35f), ONE(MOUTH_FUNNEL, 0.2f)}},
    {"yawn", {ONE(JAW_OPEN, 1.0f), BOTH(BLINK, 0.8f), BOTH(BROW_UP, 0.5f), ONE(MOUTH_FUNNEL, 0.3f)}},
    {"kiss", {ONE(PUCKER, 1.0f), BOTH(BLINK, 0.5f)}},
};
#undef BOTH
#undef ONE
enum { EMOTION_COUNT = (int)(sizeof EMOTIONS / sizeof EMOTIONS[0]) };

/* The ARKit blend shapes (Apple's 52 face units, as in the MakeHuman
 * characters' targets) that each modifier stands for. "Left" is the
 * character's left, as in our "_L". */
enum { ARKIT_PER_MODIFIER = 2 };
typedef struct arkit_term_t {
    const char *name;
    float weight;
} arkit_term_t;
static const arkit_term_t ARKIT[FACEMAP_MODIFIER_COUNT][ARKIT_PER_MODIFIER] = {
    [FACEMAP_BROW_UP_L] = {{"browOuterUpLeft", 1.0f}, {"browInnerUp", 0.3f}},
    [FACEMAP_BROW_UP_R] = {{"browOuterUpRight", 1.0f}, {"browInnerUp", 0.3f}},
    [FACEMAP_BROW_DOWN_L] = {{"browDownLeft", 1.0f}},
    [FACEMAP_BROW_DOWN_R] = {{"browDownRight", 1.0f}},
    [FACEMAP_BROW_INNER_UP] = {{"browInnerUp", 1.0f}},
    [FACEMAP_BLINK_L] = {{"eyeBlinkLeft", 1.0f}},
    [FACEMAP_BLINK_R] = {{"eyeBlinkRight", 1.0f}},
    [FACEMAP_EYE_WIDE_L] = {{"eyeWideLeft", 1.0f}},
    [FACEMAP_EYE_WIDE_R] = {{"eyeWideRight", 1.0f}},
    [FACEMAP_SQUINT_L] = {{"eyeSquintLeft", 1.0f}, {"cheekSquintLeft", 0.5f}},
    [FACEMAP_SQUINT_R] = {{"eyeSquintRight", 1.0f}, {"cheekSquintRight", 0.5f}},
    [FACEMAP_SMILE_L] = {{"mouthSmileLeft", 1.0f}},
    [FACEMAP_SMILE_R] = {{"mouthSmileRight", 1.0f}},
    [FACEMAP_FROWN_L] = {{"mouthFrownLeft", 1.0f}},
    [FACEMAP_FROWN_R] = {{"mouthFrownRight", 1.0f}},
    [FACEMAP_SMIRK_L] = {{"mouthSmileLeft", 0.5f}, {"mouthDimpleLeft", 0.8f}},
    [FACEMAP_SMIRK_R] = {{"mouthSmileRight", 0.5f}, {"mouthDimpleRight", 0.8f}},
    [FACEMAP_JAW_OPEN] = {{"jawOpen", 1.0f}},
    [FACEMAP_PUCKER] = {{"mouthPucker", 1.0f}},
    [FACEMAP_MOUTH_STRETCH] = {{"mouthStretchLeft", 1.0f}, {"mouthStretchRight", 1.0f}},
    [FACEMAP_CHEEK_PUFF_L] = {{"cheekPuff", 0.5f}},
    [FACEMAP_CHEEK_PUFF_R] = {{"cheekPuff", 0.5f}},
    [FACEMAP_NOSE_SNEER_L] = {{"noseSneerLeft", 1.0f}},
    [FACEMAP_NOSE_SNEER_R] = {{"noseSneerRight", 1.0f}},
    [FACEMAP_LIP_UPPER_UP] = {{"mouthUpperUpLeft", 1.0f}, {"mouthUpperUpRight", 1.0f}},
    [FACEMAP_LIP_LOWER_DOWN] = {{"mouthLowerDownLeft", 1.0f}, {"mouthLowerDownRight", 1.0f}},
    [FACEMAP_MOUTH_LEFT] = {{"mouthLeft", 1.0f}},
    [FACEMAP_MOUTH_RIGHT] = {{"mouthRight", 1.0f}},
    [FACEMAP_LIPS_PRESS] = {{"mouthPressLeft", 1.0f}, {"mouthPressRight", 1.0f}},
    [FACEMAP_MOUTH_FUNNEL] = {{"mouthFunnel", 1.0f}},
};

const char *facemap_modifier_name(facemap_modifier_t m)
{
    return (int)m >= 0 && m < FACEMAP_MODIFIER_COUNT ? MODIFIER_NAME[m] : "?";
}

int facemap_emotion_count(void) { return EMOTION_COUNT; }

const facemap_emotion_t *facemap_emotion_get(int index)
{
    return index >= 0 && index < EMOTION_COUNT ? &EMOTIONS[index] : NULL;
}

/* Adds SHAPE at WEIGHT to the N terms of OUT (merging), within MAX. */
static int add_term(facemap_term_t *out, int n, int max, int shape, float weight)
{
    for (int i = 0; i < n; i++)
        if (out[i].shape == shape) {
            out[i].weight += weight;
            return n;
        }
    if (n >= max)
        return n;
    out[n].shape = shape;
    out[n].weight = weight;
    return n + 1;
}

/* MODIFIER at WEIGHT on C: its own shape, else its ARKit shapes. */
static int add_modifier(const chr_character_t *c, facemap_modifier_t m, float weight, facemap_term_t *out, int n,
                        int max)
{
    int s = chr_find_shape(c, MODIFIER_NAME[m]);
    if (s >= 0)
        return add_term(out, n, max, s, weight);
    for (int k = 0; k < ARKIT_PER_MODIFIER && ARKIT[m][k].name; k++) {
        int a = chr_find_shape(c, ARKIT[m][k].name);
        if (a >= 0)
            n = add_term(out, n, max, a, weight * ARKIT[m][k].weight);
    }
    return n;
}

int facemap_resolve(const chr_character_t *c, const char *name, facemap_term_t *out, int max)
{
    int s = chr_find_shape(c, name);
    if (s >= 0)
        return add_term(out, 0, max, s, 1.0f);
    for (int m = 0; m < FACEMAP_MODIFIER_COUNT; m++)
        if (strcmp(MODIFIER_NAME[m], name) == 0)
            return add_modifier(c, (facemap_modifier_t)m, 1.0f, out, 0, max);
    for (int e = 0; e < EMOTION_COUNT; e++) {
        if (strcmp(EMOTIONS[e].name, name) != 0)
            continue;
        int n = 0;
        for (int k = 0; k < FACEMAP_MIX_MAX && EMOTIONS[e].mix[k].weight > 0.0f; k++)
            n = add_modifier(c, EMOTIONS[e].mix[k].id, EMOTIONS[e].mix[k].weight, out, n, max);
        return n;
    }
    return 0;
}
