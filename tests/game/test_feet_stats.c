/* Unit tests of game/feet_stats: the shown character's slide per contact,
 * sinking, head top and ceiling room, on synthetic poses over a flat level
 * with a crouch area. Mutations that fail it: counting a contact's slide
 * without the lock weight, ending contacts at the report without the still
 * running ones, or measuring sink from the controller's rest heights. */
#include "check.h"
#include "game/feet_stats.h"

#include <math.h>
#include <string.h>

static level_t lvl;

/* The controller flagging every heel and toe in contact (FLAG) with lock
 * weight WEIGHT; its own points at rest heights 4 (heel) and 0.5 (toe) cm. */
static void controller(ctrl_stats_t *st, float contact[CTRL_CONTACTS][3], bool flag, float weight, float x)
{
    memset(st, 0, sizeof *st);
    for (int c = 0; c < CTRL_CONTACTS; c++) {
        st->contact[c] = flag;
        st->lock_weight[c] = weight;
        contact[c][0] = x;
        contact[c][1] = c % 2 == 0 ? 4.0f : 0.5f;
        contact[c][2] = (c / 2) * 20.0f;
    }
}

/* Ankles 8 cm and toes 2 cm up (their rest heights) at X, or lower by SINK. */
static void shown(feet_shown_t *sh, float x, float sink, float head_x, float head_z, float head_y)
{
    memset(sh, 0, sizeof *sh);
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            sh->has_point[side][k] = true;
            sh->rest_height_cm[side][k] = k == 0 ? 8.0f : 2.0f;
            sh->ctrl_rest_height_cm[side][k] = k == 0 ? 4.0f : 0.5f;
            sh->point[side][k][0] = x;
            sh->point[side][k][1] = sh->rest_height_cm[side][k] - sink;
            sh->point[side][k][2] = side * 20.0f;
        }
    sh->has_head = true;
    sh->head_top[0] = head_x;
    sh->head_top[1] = head_y;
    sh->head_top[2] = head_z;
}

int main(void)
{
    static const char level_text[] = "strider-level 1\nname t\nflat 101 101 cell 20 height 0\nspawn 0 0 0\n"
                                     "crouch -100 400 100 600 100\n";
    if (!level_parse(&lvl, level_text, sizeof level_text - 1, "test.lvl", NULL)) {
        CHECK(!"fixture level");
        return check_summary();
    }
    feet_stats_t fs;
    memset(&fs, 0, sizeof fs);
    ctrl_stats_t st;
    float contact[CTRL_CONTACTS][3];
    feet_shown_t sh;

    /* 10 steps held, the shown feet sliding 0.5 cm a step while the
     * controller's stay; then 5 steps flagged but not locked (weight 0.2:
     * not held, a new place), then 10 held
     * still at 1 cm below the rest height, the last contact still running. */
    for (int i = 0; i < 10; i++) {
        controller(&st, contact, true, 1.0f, 0.0f);
        shown(&sh, 0.5f * (float)i, 0.0f, 0.0f, 0.0f, 150.0f);
        feet_stats_add(&fs, &sh, &st, (const float(*)[3])contact, &lvl);
    }
    for (int i = 0; i < 5; i++) {
        controller(&st, contact, true, 0.2f, 30.0f);
        shown(&sh, 30.0f, 0.0f, 0.0f, 0.0f, 150.0f);
        feet_stats_add(&fs, &sh, &st, (const float(*)[3])contact, &lvl);
    }
    for (int i = 0; i < 10; i++) {
        controller(&st, contact, true, 1.0f, 30.0f);
        shown(&sh, 30.0f, 1.0f, 0.0f, 500.0f, 90.0f); /* the head under the 100 cm ceiling */
        feet_stats_add(&fs, &sh, &st, (const float(*)[3])contact, &lvl);
    }
    CHECK(fs.frames == 25 && fs.finite);
    /* The ankles' step slides: 9 steps of 0.5 cm per side while held. */
    CHECK_NEAR(fs.slide_cm[0] + fs.slide_cm[1], 9.0f, 1e-4f);
    CHECK_NEAR(fs.slide_max_cm, 0.5f, 1e-5f);
    CHECK_NEAR(fs.ctrl_slide_cm[0] + fs.ctrl_slide_cm[1], 0.0f, 1e-6f);
    /* Per contact: the first 4 (2 sides x heel, toe) slid 4.5 cm each, the
     * second 4, still running at the end, 0. */
    CHECK(fs.contacts == 4);
    CHECK_NEAR(fs.contact_slide_max_cm, 4.5f, 1e-4f);
    feet_stats_t copy = fs;
    float p95, ctrl_p95;
    feet_stats_contact_p95(&copy, &p95, &ctrl_p95);
    CHECK(copy.contacts == 8);
    CHECK_NEAR(p95, 4.5f, 1e-4f);
    CHECK_NEAR(ctrl_p95, 0.0f, 1e-6f);
    /* Sinking: 1 cm below the shown rest heights; the controller's points
     * stood at theirs. */
    CHECK_NEAR(fs.sink_max_cm, 1.0f, 1e-5f);
    CHECK_NEAR(fs.ctrl_sink_max_cm, 0.0f, 1e-5f);
    /* Head: 150 cm at most; under the ceiling 10 cm of room, 10 frames. */
    CHECK_NEAR(fs.head_top_max_cm, 150.0f, 1e-4f);
    CHECK(fs.ceiling_frames == 10);
    CHECK_NEAR(fs.ceiling_clearance_min_cm, 10.0f, 1e-4f);

    /* A non-finite ankle is caught. */
    controller(&st, contact, true, 1.0f, 30.0f);
    shown(&sh, 30.0f, 0.0f, 0.0f, 0.0f, 150.0f);
    sh.point[1][0][1] = NAN;
    feet_stats_add(&fs, &sh, &st, (const float(*)[3])contact, &lvl);
    CHECK(!fs.finite);
    level_free(&lvl);
    return check_summary();
}
