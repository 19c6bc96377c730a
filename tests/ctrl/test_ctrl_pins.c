/* Unit tests for ctrl_pins (src/ctrl/ctrl_pins.h), on stats and retarget
 * jobs filled by hand (no controller, no retargeting run): a point counts as
 * held above half its lock's weight; the ankle offsets ease by the
 * controller's steps since the last call (all of it in the air, only the
 * height while the heel is down, none while the toe is pinned), at most
 * PINS_EASE_MAX_STEPS' worth; a toe is pinned only while down without its
 * heel, after having been down; after the job, a pinned ankle keeps where the
 * job put it as its offset, and a toe down with its heel (or just down)
 * pins where the job put it; and one stance from heel strike to lift-off.
 * Usage: test_ctrl_pins TEST
 * TEST: held reset ease pin after stance.
 */
#include "ctrl/ctrl_pins.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What remains of an unheld offset per step, and the most steps counted
 * (ctrl_pins.c). */
#define EASE 0.75f
#define EASE_MAX_STEPS 60

#define TOL 1e-5f

enum { L_HEEL = 0, L_TOE = 1, R_HEEL = 2, R_TOE = 3 };

/* Stats at controller step STEPS with the heel and toe of each foot held
 * (weight 1) or not (0). */
static ctrl_stats_t stats_at(uint64_t steps, bool lheel, bool ltoe, bool rheel, bool rtoe)
{
    ctrl_stats_t st;
    memset(&st, 0, sizeof st);
    st.steps = steps;
    st.lock_weight[L_HEEL] = lheel ? 1.0f : 0.0f;
    st.lock_weight[L_TOE] = ltoe ? 1.0f : 0.0f;
    st.lock_weight[R_HEEL] = rheel ? 1.0f : 0.0f;
    st.lock_weight[R_TOE] = rtoe ? 1.0f : 0.0f;
    return st;
}

static retarget_job_t blank_job(void)
{
    retarget_job_t job;
    memset(&job, 0, sizeof job);
    return job;
}

static void set3(float v[3], float x, float y, float z)
{
    v[0] = x;
    v[1] = y;
    v[2] = z;
}

static bool near3(const float a[3], float x, float y, float z, float tol)
{
    return fabsf(a[0] - x) <= tol && fabsf(a[1] - y) <= tol && fabsf(a[2] - z) <= tol;
}

/* Pins reset at controller step STEP, both ankle offsets (4, -8, 12). */
static ctrl_pins_t pins_with_offsets(uint64_t step)
{
    ctrl_pins_t p;
    ctrl_pins_reset(&p);
    p.step = step;
    for (int side = 0; side < 2; side++)
        set3(p.ankle_offset[side], 4.0f, -8.0f, 12.0f);
    return p;
}

/* ---- ctrl_point_held --------------------------------------------------------- */

static void test_held(void)
{
    const float weights[] = {0.0f, 0.25f, 0.5f, 0.5001f, 0.75f, 1.0f};
    const bool want[] = {false, false, false, true, true, true};
    for (int c = 0; c < CTRL_CONTACTS; c++)
        for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
            ctrl_stats_t st;
            memset(&st, 0, sizeof st);
            st.lock_weight[c] = weights[i];
            CHECKF(ctrl_point_held(&st, c) == want[i], "point %d at weight %.4f", c, (double)weights[i]);
            /* Only that point. */
            for (int o = 0; o < CTRL_CONTACTS; o++)
                if (o != c)
                    CHECKF(!ctrl_point_held(&st, o), "point %d held by point %d's weight", o, c);
        }
}

static void test_reset(void)
{
    ctrl_pins_t p, zero;
    memset(&p, 0x5a, sizeof p);
    memset(&zero, 0, sizeof zero);
    ctrl_pins_reset(&p);
    CHECK(memcmp(&p, &zero, sizeof p) == 0);
}

/* ---- ctrl_pins_before: easing -------------------------------------------------- */

static void test_ease(void)
{
    /* Nothing held, 3 steps since: every component eased by 0.75^3; the job
     * reads the pins' own arrays; no toe pinned. */
    ctrl_pins_t p = pins_with_offsets(10);
    ctrl_stats_t st = stats_at(13, false, false, false, false);
    retarget_job_t job = blank_job();
    ctrl_pins_before(&p, &st, &job);
    float e3 = EASE * EASE * EASE;
    for (int side = 0; side < 2; side++) {
        CHECKF(near3(p.ankle_offset[side], 4.0f * e3, -8.0f * e3, 12.0f * e3, TOL), "side %d: (%g, %g, %g)", side,
               (double)p.ankle_offset[side][0], (double)p.ankle_offset[side][1], (double)p.ankle_offset[side][2]);
        CHECK(!job.toe_pinned[side]);
    }
    CHECK(p.step == 13);
    CHECK(job.ankle_offset == (const float(*)[3])p.ankle_offset);
    CHECK(job.toe_pin == (const float(*)[3])p.toe_pin);

    /* Called again at the same step (another drawn frame): no easing. */
    float kept[2][3];
    memcpy(kept, p.ankle_offset, sizeof kept);
    ctrl_pins_before(&p, &st, &job);
    CHECK(memcmp(kept, p.ankle_offset, sizeof kept) == 0);

    /* A long gap counts as EASE_MAX_STEPS steps, not more. */
    p = pins_with_offsets(0);
    st = stats_at(1000, false, false, false, false);
    ctrl_pins_before(&p, &st, &job);
    float most = powf(EASE, (float)EASE_MAX_STEPS);
    CHECKF(fabsf(p.ankle_offset[0][2] / 12.0f - most) <= 1e-3f * most,
           "eased to %g of the offset over 1000 steps, want %g", (double)(p.ankle_offset[0][2] / 12.0f), (double)most);
    CHECK(p.step == 1000);

    /* The heel down (left): its offset along the ground is held, only its
     * height eases; the other foot, in the air, eases all of it. */
    p = pins_with_offsets(20);
    st = stats_at(21, true, false, false, false);
    ctrl_pins_before(&p, &st, &job);
    CHECK(near3(p.ankle_offset[0], 4.0f, -8.0f * EASE, 12.0f, TOL));
    CHECK(near3(p.ankle_offset[1], 4.0f * EASE, -8.0f * EASE, 12.0f * EASE, TOL));
    /* The same on the right, and both heels with their toes. */
    p = pins_with_offsets(20);
    st = stats_at(22, true, true, true, true);
    ctrl_pins_before(&p, &st, &job);
    for (int side = 0; side < 2; side++)
        CHECK(near3(p.ankle_offset[side], 4.0f, -8.0f * EASE * EASE, 12.0f, TOL));
    /* A toe down alone that was never pinned: not pinned, and eased as a
     * foot in the air. */
    p = pins_with_offsets(20);
    st = stats_at(21, false, true, false, true);
    ctrl_pins_before(&p, &st, &job);
    for (int side = 0; side < 2; side++) {
        CHECK(!job.toe_pinned[side]);
        CHECK(near3(p.ankle_offset[side], 4.0f * EASE, -8.0f * EASE, 12.0f * EASE, TOL));
    }
}

/* ---- ctrl_pins_before: pinning ------------------------------------------------- */

static void test_pin(void)
{
    retarget_job_t job = blank_job();
    /* Both toes pinned before, down now without their heels: pinned, and
     * the offsets not eased (the pin places the ankle). */
    ctrl_pins_t p = pins_with_offsets(5);
    p.toe_pinned[0] = p.toe_pinned[1] = true;
    ctrl_stats_t st = stats_at(9, false, true, false, true);
    ctrl_pins_before(&p, &st, &job);
    for (int side = 0; side < 2; side++) {
        CHECK(job.toe_pinned[side]);
        CHECK(p.toe_pinned[side]);
        CHECK(near3(p.ankle_offset[side], 4.0f, -8.0f, 12.0f, 0.0f));
    }
    /* The heel down with it (left): not pinned in the job (the heel holds
     * the foot), still pinned in the state; its height eases. */
    p = pins_with_offsets(5);
    p.toe_pinned[0] = p.toe_pinned[1] = true;
    st = stats_at(6, true, true, false, true);
    ctrl_pins_before(&p, &st, &job);
    CHECK(!job.toe_pinned[0] && p.toe_pinned[0]);
    CHECK(near3(p.ankle_offset[0], 4.0f, -8.0f * EASE, 12.0f, TOL));
    CHECK(job.toe_pinned[1]);
    /* The toe up (right): the pin is let go, in the job and the state. */
    p = pins_with_offsets(5);
    p.toe_pinned[0] = p.toe_pinned[1] = true;
    st = stats_at(6, false, true, false, false);
    ctrl_pins_before(&p, &st, &job);
    CHECK(job.toe_pinned[0] && p.toe_pinned[0]);
    CHECK(!job.toe_pinned[1] && !p.toe_pinned[1]);
    CHECK(near3(p.ankle_offset[1], 4.0f * EASE, -8.0f * EASE, 12.0f * EASE, TOL));
    /* ... and stays let go when it comes down again alone. */
    st = stats_at(7, false, true, false, true);
    ctrl_pins_before(&p, &st, &job);
    CHECK(!job.toe_pinned[1] && !p.toe_pinned[1]);
}

/* ---- ctrl_pins_after ----------------------------------------------------------- */

static void test_after(void)
{
    ctrl_pins_t p;
    ctrl_pins_reset(&p);
    retarget_job_t job = blank_job();
    set3(job.toe[0], 10.0f, 1.0f, 20.0f);
    set3(job.toe[1], -10.0f, 2.0f, 25.0f);
    set3(job.ankle_target[0], 3.0f, 9.0f, 5.0f);
    set3(job.ankle_mapped[0], 1.0f, 10.0f, 2.0f);
    set3(job.ankle_target[1], 7.0f, 8.0f, 6.0f);
    set3(job.ankle_mapped[1], 6.0f, 8.5f, 9.0f);
    set3(p.ankle_offset[1], 0.5f, 0.5f, 0.5f);

    /* Left: heel and toe down; right: nothing. The left toe pins where the
     * job put it; the right keeps no pin and its offset (not pinned). */
    ctrl_stats_t st = stats_at(1, true, true, false, false);
    ctrl_pins_after(&p, &st, &job);
    CHECK(p.toe_pinned[0] && near3(p.toe_pin[0], 10.0f, 1.0f, 20.0f, 0.0f));
    CHECK(!p.toe_pinned[1] && near3(p.toe_pin[1], 0.0f, 0.0f, 0.0f, 0.0f));
    CHECK(near3(p.ankle_offset[0], 0.0f, 0.0f, 0.0f, 0.0f));
    CHECK(near3(p.ankle_offset[1], 0.5f, 0.5f, 0.5f, 0.0f));

    /* Still down with the heel: the pin follows the toe. */
    set3(job.toe[0], 11.0f, 1.0f, 21.0f);
    ctrl_pins_after(&p, &st, &job);
    CHECK(near3(p.toe_pin[0], 11.0f, 1.0f, 21.0f, 0.0f));

    /* The heel up, the toe pinned by the job: the pin stays where it was
     * (the job put the toe on it); the ankle keeps where the job put it, as
     * its offset from the mapped one. */
    job.toe_pinned[0] = true;
    set3(job.toe[0], 11.5f, 1.0f, 21.5f);
    st = stats_at(2, false, true, false, false);
    ctrl_pins_after(&p, &st, &job);
    CHECK(near3(p.toe_pin[0], 11.0f, 1.0f, 21.0f, 0.0f));
    CHECK(near3(p.ankle_offset[0], 2.0f, -1.0f, 3.0f, TOL));

    /* The right toe comes down alone, not pinned before: it pins where the
     * job put it. */
    st = stats_at(3, false, true, false, true);
    ctrl_pins_after(&p, &st, &job);
    CHECK(p.toe_pinned[1] && near3(p.toe_pin[1], -10.0f, 2.0f, 25.0f, 0.0f));
    /* Then it stays there. */
    set3(job.toe[1], -12.0f, 2.0f, 27.0f);
    ctrl_pins_after(&p, &st, &job);
    CHECK(near3(p.toe_pin[1], -10.0f, 2.0f, 25.0f, 0.0f));

    /* A toe up: its pin is not touched (ctrl_pins_before lets it go). */
    st = stats_at(4, false, false, false, false);
    job.toe_pinned[0] = false;
    ctrl_pins_after(&p, &st, &job);
    CHECK(near3(p.toe_pin[0], 11.0f, 1.0f, 21.0f, 0.0f) && near3(p.toe_pin[1], -10.0f, 2.0f, 25.0f, 0.0f));
}

/* ---- one stance ---------------------------------------------------------------- */

/* The left foot from heel strike through the push-off to the air, as the
 * app calls the pins around each retargeting (the job's toe and ankles
 * given as the retargeting would leave them). */
static void test_stance(void)
{
    ctrl_pins_t p;
    ctrl_pins_reset(&p);
    retarget_job_t job = blank_job();
    uint64_t step = 0;
    /* Heel strike, then flat: not pinned; the pin follows the toe. */
    for (int i = 0; i < 5; i++) {
        ctrl_stats_t st = stats_at(++step, true, i > 0, false, false);
        ctrl_pins_before(&p, &st, &job);
        CHECK(!job.toe_pinned[0]);
        set3(job.toe[0], 30.0f + 0.1f * (float)i, 0.5f, 50.0f);
        ctrl_pins_after(&p, &st, &job);
    }
    CHECK(p.toe_pinned[0] && near3(p.toe_pin[0], 30.4f, 0.5f, 50.0f, TOL));
    /* The heel rises: the toe is pinned where it last was; the job puts the
     * ankle 2 cm up and 1 back of its mapped target, kept as the offset. */
    for (int i = 0; i < 6; i++) {
        ctrl_stats_t st = stats_at(++step, false, true, false, false);
        ctrl_pins_before(&p, &st, &job);
        CHECK(job.toe_pinned[0]);
        CHECK(near3(job.toe_pin[0], 30.4f, 0.5f, 50.0f, TOL));
        if (i > 0)
            CHECK(near3(job.ankle_offset[0], 0.0f, 2.0f, -1.0f, TOL));
        set3(job.ankle_mapped[0], 30.0f, 10.0f, 40.0f + (float)i);
        set3(job.ankle_target[0], 30.0f, 12.0f, 39.0f + (float)i);
        set3(job.toe[0], 30.4f, 0.5f, 50.0f);
        ctrl_pins_after(&p, &st, &job);
    }
    /* The toe lifts: unpinned, the offset eases out a quarter a step and is
     * all but gone in half a second. */
    job.toe_pinned[0] = false;
    for (int i = 0; i < 30; i++) {
        ctrl_stats_t st = stats_at(++step, false, false, false, false);
        float before = p.ankle_offset[0][1];
        ctrl_pins_before(&p, &st, &job);
        CHECK(!job.toe_pinned[0] && !p.toe_pinned[0]);
        CHECK_NEAR(p.ankle_offset[0][1], before * EASE, TOL);
        ctrl_pins_after(&p, &st, &job);
    }
    CHECKF(fabsf(p.ankle_offset[0][1]) < 1e-3f && fabsf(p.ankle_offset[0][2]) < 1e-3f,
           "the offset still (%g, %g, %g) half a second after lift-off", (double)p.ankle_offset[0][0],
           (double)p.ankle_offset[0][1], (double)p.ankle_offset[0][2]);
}

/* ---- main ---------------------------------------------------------------------- */

typedef struct pins_group_t {
    const char *name;
    void (*run)(void);
} pins_group_t;

static const pins_group_t groups[] = {
    {"held", test_held}, {"reset", test_reset}, {"ease", test_ease},
    {"pin", test_pin},   {"after", test_after}, {"stance", test_stance},
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_ctrl_pins TEST\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(groups[i].name, argv[1]) == 0) {
            groups[i].run();
            return check_summary();
        }
    fprintf(stderr, "test_ctrl_pins: unknown test '%s'\n", argv[1]);
    return 2;
}
