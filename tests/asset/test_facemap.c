/* facemap: the demo's face names on three faces: ours (every name is a
 * shape of its own), an ARKit face (modifiers become their ARKit shapes,
 * emotions their modifiers' shapes, shared shapes merged), and a face with
 * no shapes at all (nothing resolves). Also: the emotion table's mixes
 * name modifiers that exist and have positive weights.
 *   usage: test_facemap OUR_CHARACTER.chr */
#include "asset/facemap.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ARKIT[] = {"eyeBlinkLeft",     "eyeBlinkRight", "jawOpen",        "mouthSmileLeft",
                                    "mouthSmileRight",  "eyeSquintLeft", "eyeSquintRight", "cheekSquintLeft",
                                    "cheekSquintRight", "browInnerUp",   "mouthPressLeft", "mouthPressRight",
                                    "browDownLeft",     "browDownRight"};
enum { ARKIT_N = sizeof ARKIT / sizeof ARKIT[0] };

static float weight_of(const chr_character_t *c, const facemap_term_t *t, int n, const char *shape)
{
    int s = chr_find_shape(c, shape);
    for (int i = 0; i < n; i++)
        if (t[i].shape == s)
            return t[i].weight;
    return 0.0f;
}

int main(int argc, char **argv)
{
    facemap_term_t t[FACEMAP_TERMS_MAX];
    for (int e = 0; e < facemap_emotion_count(); e++) {
        const facemap_emotion_t *em = facemap_emotion_get(e);
        CHECK(em && em->name && em->mix[0].weight > 0.0f);
        for (int k = 0; k < FACEMAP_MIX_MAX && em->mix[k].weight > 0.0f; k++)
            CHECK(em->mix[k].id >= 0 && em->mix[k].id < FACEMAP_MODIFIER_COUNT);
    }
    CHECK(strcmp(facemap_modifier_name(FACEMAP_BLINK_L), "blink_L") == 0);

    /* Ours: names resolve to themselves. */
    if (argc > 1) {
        static chr_character_t ours;
        if (chr_load(&ours, argv[1])) {
            int n = facemap_resolve(&ours, "blink_L", t, FACEMAP_TERMS_MAX);
            CHECK(n == 1 && t[0].shape == chr_find_shape(&ours, "blink_L") && t[0].weight == 1.0f);
            n = facemap_resolve(&ours, "determined", t, FACEMAP_TERMS_MAX);
            CHECK(n == 1 && t[0].shape == chr_find_shape(&ours, "determined"));
            chr_free(&ours);
        } else {
            CHECK(!"our character loads");
        }
    }

    /* An ARKit face: shapes only, no meshes needed for name lookups. */
    static chr_character_t ark;
    static chr_shape_t shapes[ARKIT_N];
    memset(&ark, 0, sizeof ark);
    for (int i = 0; i < ARKIT_N; i++)
        snprintf(shapes[i].name, CHR_NAME_MAX, "%s", ARKIT[i]);
    ark.shapes = shapes;
    ark.shape_count = ARKIT_N;
    int n = facemap_resolve(&ark, "blink_R", t, FACEMAP_TERMS_MAX);
    CHECK(n == 1 && t[0].shape == chr_find_shape(&ark, "eyeBlinkRight") && t[0].weight == 1.0f);
    n = facemap_resolve(&ark, "squint_L", t, FACEMAP_TERMS_MAX);
    CHECK(n == 2);
    CHECK_NEAR(weight_of(&ark, t, n, "cheekSquintLeft"), 0.5f, 1e-6);
    /* happy = smile both sides 1, squint both 0.3, browInnerUp 0.15. */
    n = facemap_resolve(&ark, "happy", t, FACEMAP_TERMS_MAX);
    CHECK(n == 7);
    CHECK_NEAR(weight_of(&ark, t, n, "mouthSmileLeft"), 1.0f, 1e-6);
    CHECK_NEAR(weight_of(&ark, t, n, "eyeSquintRight"), 0.3f, 1e-6);
    CHECK_NEAR(weight_of(&ark, t, n, "cheekSquintRight"), 0.15f, 1e-6);
    CHECK_NEAR(weight_of(&ark, t, n, "browInnerUp"), 0.15f, 1e-6);
    /* determined = browDown both 0.6, lipsPress 0.9 (two ARKit shapes), squint 0.4. */
    n = facemap_resolve(&ark, "determined", t, FACEMAP_TERMS_MAX);
    CHECK_NEAR(weight_of(&ark, t, n, "mouthPressLeft"), 0.9f, 1e-6);
    CHECK_NEAR(weight_of(&ark, t, n, "browDownRight"), 0.6f, 1e-6);
    /* A direct ARKit name is itself; a name nobody knows is nothing. */
    n = facemap_resolve(&ark, "jawOpen", t, FACEMAP_TERMS_MAX);
    CHECK(n == 1 && t[0].shape == chr_find_shape(&ark, "jawOpen"));
    CHECK(facemap_resolve(&ark, "noSuchShape", t, FACEMAP_TERMS_MAX) == 0);
    /* A modifier whose ARKit shapes the face lacks: nothing. */
    CHECK(facemap_resolve(&ark, "pucker", t, FACEMAP_TERMS_MAX) == 0);
    /* MAX caps the terms. */
    CHECK(facemap_resolve(&ark, "happy", t, 2) == 2);

    /* No shapes at all: no face animation. */
    static chr_character_t none;
    memset(&none, 0, sizeof none);
    CHECK(facemap_resolve(&none, "blink_L", t, FACEMAP_TERMS_MAX) == 0);
    CHECK(facemap_resolve(&none, "happy", t, FACEMAP_TERMS_MAX) == 0);
    return check_summary();
}
