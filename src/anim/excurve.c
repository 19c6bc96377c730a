#include "anim/excurve.h"

#include "core/log.h"

#include <math.h>
#include <string.h>

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define TRACK(shape, keys)                                                                                             \
    {                                                                                                                  \
        shape, COUNT_OF(keys), keys                                                                                    \
    }

/* ------------------------------------------------------------------ talk
 * 3.2 s, looping, mouth only (smile and blinks come from other curves): a
 * 2 s phrase, syllables opening the jaw, an "oo" rounding the lips, "m"/"p"
 * pressing them, an "ee" stretching them, then a 1.2 s pause where the
 * slightly open mouth breathes. Times in s. */
static const excurve_key_t TALK_JAW[] = {{0.00f, 0.04f}, {0.16f, 0.45f}, {0.30f, 0.10f}, {0.48f, 0.60f},
                                         {0.64f, 0.12f}, {0.80f, 0.35f}, {0.95f, 0.02f}, {1.16f, 0.50f},
                                         {1.32f, 0.18f}, {1.52f, 0.55f}, {1.72f, 0.08f}, {1.86f, 0.25f},
                                         {2.05f, 0.03f}, {2.55f, 0.10f}, {3.05f, 0.04f}};
static const excurve_key_t TALK_FUNNEL[] = {{0.00f, 0.0f},  {0.28f, 0.0f},  {0.40f, 0.55f}, {0.56f, 0.10f},
                                            {1.28f, 0.00f}, {1.42f, 0.45f}, {1.60f, 0.0f}};
static const excurve_key_t TALK_PUCKER[] = {{0.00f, 0.0f}, {0.30f, 0.0f},  {0.42f, 0.35f}, {0.58f, 0.0f},
                                            {1.70f, 0.0f}, {1.84f, 0.40f}, {2.00f, 0.0f}};
static const excurve_key_t TALK_PRESS[] = {{0.00f, 0.0f}, {0.86f, 0.0f},  {0.95f, 0.65f}, {1.05f, 0.0f},
                                           {1.95f, 0.0f}, {2.05f, 0.50f}, {2.30f, 0.0f}};
static const excurve_key_t TALK_STRETCH[] = {{0.00f, 0.0f}, {0.68f, 0.0f},  {0.80f, 0.50f}, {0.92f, 0.0f},
                                             {1.60f, 0.0f}, {1.76f, 0.40f}, {1.88f, 0.0f}};
static const excurve_key_t TALK_LIP_UP[] = {{0.00f, 0.0f}, {0.44f, 0.0f},  {0.52f, 0.30f}, {0.70f, 0.0f},
                                            {1.45f, 0.0f}, {1.55f, 0.25f}, {1.70f, 0.0f}};
static const excurve_key_t TALK_LIP_DOWN[] = {{0.00f, 0.0f}, {0.12f, 0.0f},  {0.18f, 0.35f}, {0.32f, 0.0f},
                                              {1.10f, 0.0f}, {1.18f, 0.30f}, {1.34f, 0.0f}};
static const excurve_track_t TALK_TRACKS[] = {
    TRACK("jawOpen", TALK_JAW),           TRACK("mouthFunnel", TALK_FUNNEL),   TRACK("pucker", TALK_PUCKER),
    TRACK("lipsPress", TALK_PRESS),       TRACK("mouthStretch", TALK_STRETCH), TRACK("lipUpperUp", TALK_LIP_UP),
    TRACK("lipLowerDown", TALK_LIP_DOWN),
};

/* ------------------------------------------------- smile-surprise-blink
 * 6 s, looping: neutral -> smile -> surprise -> a double blink -> neutral. */
static const excurve_key_t SSB_HAPPY[] = {{0.0f, 0.0f}, {0.4f, 0.0f}, {1.2f, 1.0f}, {2.2f, 1.0f}, {2.8f, 0.0f}};
static const excurve_key_t SSB_SURPRISED[] = {{0.0f, 0.0f}, {2.4f, 0.0f}, {2.9f, 1.0f}, {3.8f, 0.9f}, {4.4f, 0.0f}};
static const excurve_key_t SSB_BLINK[] = {{0.0f, 0.0f}, {4.6f, 0.0f}, {4.7f, 1.0f}, {4.8f, 0.0f},
                                          {5.0f, 0.0f}, {5.1f, 1.0f}, {5.2f, 0.0f}};
static const excurve_track_t SSB_TRACKS[] = {
    TRACK("happy", SSB_HAPPY),
    TRACK("surprised", SSB_SURPRISED),
    TRACK("blink_L", SSB_BLINK),
    TRACK("blink_R", SSB_BLINK),
};

static const excurve_clip_t BUILTIN[] = {
    {"talk", 3.2f, true, COUNT_OF(TALK_TRACKS), TALK_TRACKS},
    {"smile-surprise-blink", 6.0f, true, COUNT_OF(SSB_TRACKS), SSB_TRACKS},
};

int excurve_builtin_count(void) { return COUNT_OF(BUILTIN); }

const excurve_clip_t *excurve_builtin(int index)
{
    return index >= 0 && index < COUNT_OF(BUILTIN) ? &BUILTIN[index] : NULL;
}

const excurve_clip_t *excurve_builtin_find(const char *name)
{
    for (int i = 0; i < COUNT_OF(BUILTIN); i++)
        if (strcmp(BUILTIN[i].name, name) == 0)
            return &BUILTIN[i];
    return NULL;
}

bool excurve_clip_check(const excurve_clip_t *clip)
{
    const char *name = clip && clip->name ? clip->name : "?";
    if (!clip || !(isfinite(clip->duration_s) && clip->duration_s > 0.0f) || clip->track_count < 1 ||
        clip->track_count > EXCURVE_MAX_TRACKS || !clip->tracks) {
        log_error("excurve '%s': duration must be > 0 and tracks 1..%d", name, EXCURVE_MAX_TRACKS);
        return false;
    }
    for (int i = 0; i < clip->track_count; i++) {
        const excurve_track_t *t = &clip->tracks[i];
        if (!t->shape || !t->keys || t->key_count < 1 || t->key_count > EXCURVE_MAX_KEYS) {
            log_error("excurve '%s' track %d: no shape name or key count outside 1..%d", name, i, EXCURVE_MAX_KEYS);
            return false;
        }
        for (int k = 0; k < t->key_count; k++) {
            const excurve_key_t *key = &t->keys[k];
            bool in_loop = !clip->loop || (key->time_s >= 0.0f && key->time_s < clip->duration_s);
            if (!isfinite(key->time_s) || !isfinite(key->weight) || !in_loop ||
                (k > 0 && !(key->time_s > t->keys[k - 1].time_s))) {
                log_error("excurve '%s' track '%s' key %d: time %g s / weight %g not finite, not increasing or "
                          "outside the loop",
                          name, t->shape, k, (double)key->time_s, (double)key->weight);
                return false;
            }
        }
    }
    return true;
}

static float ease(float a, float b, double f)
{
    double s = f * f * (3.0 - 2.0 * f);
    return (float)(a + (b - a) * s);
}

float excurve_track_weight(const excurve_clip_t *clip, const excurve_track_t *track, double time_s)
{
    const excurve_key_t *k = track->keys;
    int n = track->key_count;
    if (n == 1)
        return k[0].weight;
    double x = time_s;
    if (clip->loop) {
        double d = clip->duration_s;
        x -= floor(x / d) * d;
        /* Before the first key: on the way from the last key to the first
         * key of the next period. */
        if (x < k[0].time_s)
            x += d;
    } else if (x <= k[0].time_s) {
        return k[0].weight;
    } else if (x >= k[n - 1].time_s) {
        return k[n - 1].weight;
    }
    int i = 0;
    while (i + 1 < n && k[i + 1].time_s <= x)
        i++;
    double t0 = k[i].time_s, t1;
    float w1;
    if (i + 1 < n) {
        t1 = k[i + 1].time_s;
        w1 = k[i + 1].weight;
    } else {
        t1 = k[0].time_s + (double)clip->duration_s;
        w1 = k[0].weight;
    }
    double f = t1 > t0 ? (x - t0) / (t1 - t0) : 0.0;
    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    return ease(k[i].weight, w1, f);
}
