/* The motion metrics on synthetic frames (no controller): each definition
 * of docs/MOTION_EVAL.md is fed a case with a known answer.
 * Usage: test_metrics (runs from the repository root; prints "metrics: ..." lines). */
#include "game/motion_metrics.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STEPS 200

static level_t lvl;
static skel_t skel;
static const mm_calibration_t cal = {.idle_height_cm = {4.0f, 0.5f, 4.0f, 0.5f}, .stand_head_cm = 140.0f};

/* A frame standing at (x, z) on flat ground (height 0): joints in a column
 * above the root, feet at their idle heights, rotations identity. */
static void stand_frame(mm_frame_t *f, float x, float z)
{
    memset(f, 0, sizeof *f);
    f->root[0] = x;
    f->root[2] = z;
    for (int b = 0; b < MM_JOINTS; b++) {
        f->joint[b][0] = x;
        f->joint[b][1] = 60.0f + (float)b;
        f->joint[b][2] = z;
        f->joint_rot[b][3] = 1.0f;
        f->joint_local[b][3] = 1.0f;
    }
    for (int k = 0; k < MM_POINTS; k++) {
        f->point[k][0] = x + (k < 2 ? -10.0f : 10.0f);
        f->point[k][1] = cal.idle_height_cm[k];
        f->point[k][2] = z + (k & 1 ? 12.0f : 0.0f);
    }
    f->head_top[0] = x;
    f->head_top[1] = 160.0f;
    f->head_top[2] = z;
    f->head_height_cm = 140.0f;
    f->gait[CTRL_GAIT_STAND] = 1.0f;
}

static mm_result_t run(void (*make)(mm_frame_t *f, int i))
{
    mm_acc_t a;
    CHECK(mm_begin(&a, &lvl, &skel, &cal, STEPS, 0, 0));
    for (int i = 0; i < STEPS; i++) {
        mm_frame_t f;
        make(&f, i);
        mm_add(&a, &f);
    }
    mm_result_t r;
    mm_finish(&a, &r);
    mm_free(&a);
    return r;
}

/* Standing still with every point flagged: no slide, no sink, no flight. */
static void still(mm_frame_t *f, int i)
{
    (void)i;
    stand_frame(f, 0.0f, 0.0f);
    for (int k = 0; k < MM_POINTS; k++)
        f->flag[k] = true;
}

/* The left heel flagged and sliding 0.1 cm a step along x for the first 100
 * steps, then still: one contact of 9.9 cm (99 step-to-step moves). */
static void heel_slides(mm_frame_t *f, int i)
{
    still(f, i);
    f->point[0][0] += 0.1f * (float)(i < 100 ? i : 99);
}

/* The right toe dragged 0.2 cm a step along the ground with its flag off:
 * a contact of type (b), whatever the flags say. */
static void toe_dragged(mm_frame_t *f, int i)
{
    still(f, i);
    f->flag[3] = false;
    f->point[3][2] += 0.2f * (float)i;
}

/* Every point 10 cm up for steps 50..79 (30 steps = 0.5 s), no jump gait. */
static void floating(mm_frame_t *f, int i)
{
    still(f, i);
    if (i >= 50 && i < 80)
        for (int k = 0; k < MM_POINTS; k++) {
            f->point[k][1] += 10.0f;
            f->flag[k] = false;
        }
}

/* The same with the jump gait up: a jump flight. */
static void jumping(mm_frame_t *f, int i)
{
    floating(f, i);
    if (i >= 45 && i < 85) {
        f->gait[CTRL_GAIT_STAND] = 0.0f;
        f->gait[CTRL_GAIT_JUMP] = 1.0f;
    }
}

/* The left toe 3 cm into the ground at step 120. */
static void sinking(mm_frame_t *f, int i)
{
    still(f, i);
    if (i == 120)
        f->point[1][1] = cal.idle_height_cm[1] - 3.0f;
}

/* Joint 5 turns 40 degrees about y (relative to its parent) in one step at
 * step 60; joint 3 turns 2 degrees about x every step. */
static void turning(mm_frame_t *f, int i)
{
    still(f, i);
    if (i >= 60) {
        float h = 0.5f * 40.0f * 3.14159265f / 180.0f;
        f->joint_local[5][1] = sinf(h);
        f->joint_local[5][3] = cosf(h);
    }
    float h = 0.5f * 2.0f * (float)i * 3.14159265f / 180.0f;
    f->joint_local[3][0] = sinf(h);
    f->joint_local[3][3] = cosf(h);
}

/* The knee (lShin, joint 2 of the test skeleton) bends 15 degrees in one
 * step at step 100: the foot (joint 3) swings about it, the bone keeping its
 * length. */
static void knee_bends(mm_frame_t *f, int i)
{
    still(f, i);
    if (i >= 100) {
        float a = 15.0f * 3.14159265f / 180.0f;
        f->joint[3][0] = f->joint[2][0] + sinf(a);
        f->joint[3][1] = f->joint[2][1] + cosf(a);
    }
}

/* The same, with a wall pushing the root at step 90 (within 0.3 s). */
static void knee_bends_pushed(mm_frame_t *f, int i)
{
    knee_bends(f, i);
    f->wall_pushes = i >= 90 ? 1 : 0;
}

/* The same, with the push at step 70 (0.5 s before). */
static void knee_bends_pushed_early(mm_frame_t *f, int i)
{
    knee_bends(f, i);
    f->wall_pushes = i >= 70 ? 1 : 0;
}

/* The crouch gait rises past 0.5 at step 120: a crouch change. */
static void crouching(mm_frame_t *f, int i)
{
    still(f, i);
    f->gait[CTRL_GAIT_CROUCH] = i >= 120 ? 0.8f : 0.0f;
    f->gait[CTRL_GAIT_STAND] = 1.0f - f->gait[CTRL_GAIT_CROUCH];
}

/* The left toe, held, stands 40 cm above the root's ground at step 30
 * (a foot up on a cliff top); at step 60 50 cm up, but in a jump. */
static void stands_high(mm_frame_t *f, int i)
{
    still(f, i);
    if (i == 30)
        f->point[1][1] += 40.0f;
    if (i == 60) {
        f->point[1][1] += 50.0f;
        f->gait[CTRL_GAIT_JUMP] = 1.0f;
        f->gait[CTRL_GAIT_STAND] = 0.0f;
    }
}

/* The right heel jumps 5 cm forward at step 50 and stays. */
static void heel_jumps(mm_frame_t *f, int i)
{
    still(f, i);
    if (i >= 50)
        f->point[2][2] += 5.0f;
}

/* Standing under the crouch area's 100 cm ceiling (centre (0, 500)), head
 * top at 103 cm; then at x = 980, 20 cm from the right edge; a hand 5 cm
 * into the wall at x = -500 (radius 10) at step 150. */
static void world_limits(mm_frame_t *f, int i)
{
    if (i < 100) {
        stand_frame(f, 0.0f, 500.0f);
        f->head_top[1] = 103.0f;
    } else {
        stand_frame(f, 980.0f - (float)(i - 100) * 0.0f, 0.0f);
    }
    if (i == 150) {
        f->joint[10][0] = -500.0f + 5.0f;
        f->joint[10][1] = 100.0f;
        f->joint[10][2] = 0.0f;
    }
    for (int k = 0; k < MM_POINTS; k++)
        f->flag[k] = true;
}

/* A NaN in the head top at step 10. */
static void not_finite(mm_frame_t *f, int i)
{
    still(f, i);
    if (i == 10)
        f->head_top[1] = NAN;
}

int main(void)
{
    static const char level_text[] = "strider-level 1\nname t\nflat 101 101 cell 20 height 0\nspawn 0 0 0\n"
                                     "crouch -100 400 100 600 100\nwall -500 -200 -500 200 10\n";
    /* A leg (joints 1-3, 1 cm bones) for the knee's flexion. */
    static const char skel_text[] = "strider-skeleton 1\njoint hip - 0 0 0\njoint lThigh hip 0 1 0\n"
                                    "joint lShin lThigh 0 1 0\njoint lFoot lShin 0 1 0\n";
    if (!level_parse(&lvl, level_text, sizeof level_text - 1, "test.lvl", NULL) ||
        !skel_parse(&skel, skel_text, sizeof skel_text - 1, "test.skel")) {
        fprintf(stderr, "FAIL: fixtures\n");
        return 1;
    }
    /* The test skeleton's bones are 1 cm long, as the frames put joints
     * 1 cm apart. */

    mm_result_t r = run(still);
    printf("metrics: still: heel p95 %.3f, toe p95 %.3f, sink %.2f, flight %.2f, turn %.1f, flex %.1f\n",
           (double)r.slide_p95_cm[MM_HEEL], (double)r.slide_p95_cm[MM_TOE], (double)r.sink_max_cm,
           (double)r.flight_max_s, (double)r.rot_max_deg[0], (double)r.flex_max_deg[MM_STEADY]);
    CHECK_NEAR(r.slide_max_cm[MM_HEEL], 0.0f, 1e-4f);
    CHECK_NEAR(r.slide_max_cm[MM_TOE], 0.0f, 1e-4f);
    CHECK(r.contacts[MM_HEEL] == 2 && r.contacts[MM_TOE] == 2);
    CHECK(r.sink_max_cm <= 0.0f);
    CHECK(r.stand_off_cm < 1e-3f);
    CHECK(r.flight_max_s == 0.0f && r.jump_flight_max_s == 0.0f);
    for (int b = 0; b < MM_JOINTS; b++)
        CHECK(r.rot_max_deg[b] < 1e-3f && r.rot_p999_deg[b] < 1e-3f);
    CHECK(r.flex_max_deg[MM_STEADY] < 1e-3f && r.flex_max_deg[MM_NEAR_EVENT] < 1e-3f);
    CHECK(r.point_step_max_cm < 1e-4f && r.point_accel_max_cm < 1e-4f && r.events == 0);
    CHECK(r.nonfinite_steps == 0);
    CHECK(r.ceiling_max_cm < -1.0e8f);
    CHECK_NEAR(r.edge_min_cm, 1000.0f, 1e-3f);

    r = run(heel_slides);
    printf("metrics: heel slides: max %.3f cm over %d heel contacts\n", (double)r.slide_max_cm[MM_HEEL],
           r.contacts[MM_HEEL]);
    CHECK_NEAR(r.slide_max_cm[MM_HEEL], 9.9f, 1e-3f);
    CHECK(r.slide_max_step[MM_HEEL] == 1);
    CHECK_NEAR(r.slide_max_cm[MM_TOE], 0.0f, 1e-4f);

    r = run(toe_dragged);
    printf("metrics: toe dragged without a flag: max %.3f cm\n", (double)r.slide_max_cm[MM_TOE]);
    CHECK_NEAR(r.slide_max_cm[MM_TOE], 0.2f * (STEPS - 1), 1e-2f);

    r = run(floating);
    printf("metrics: floating: airborne %.3f s, jump %.3f s\n", (double)r.flight_max_s, (double)r.jump_flight_max_s);
    CHECK_NEAR(r.flight_max_s, 0.5f, 1e-4f);
    CHECK(r.flight_step == 51);
    CHECK(r.jump_flight_max_s == 0.0f);

    r = run(jumping);
    printf("metrics: jumping: airborne %.3f s, jump %.3f s over %d jumps\n", (double)r.flight_max_s,
           (double)r.jump_flight_max_s, r.jumps);
    CHECK(r.flight_max_s == 0.0f);
    CHECK_NEAR(r.jump_flight_max_s, 0.5f, 1e-4f);
    CHECK(r.jumps == 1);
    /* Its take-off and landing are events. */
    CHECK(r.events == 2);

    r = run(sinking);
    CHECK_NEAR(r.sink_max_cm, 3.0f, 1e-4f);
    CHECK(r.sink_steps == 1);

    r = run(turning);
    printf("metrics: turning: joint 5 max %.2f deg at step %d, p99.9 %.2f; joint 3 p99.9 %.2f, max %.2f\n",
           (double)r.rot_max_deg[5], r.rot_max_step[5], (double)r.rot_p999_deg[5], (double)r.rot_p999_deg[3],
           (double)r.rot_max_deg[3]);
    CHECK_NEAR(r.rot_max_deg[5], 40.0f, 1e-2f);
    CHECK(r.rot_max_step[5] == 61);
    /* 199 changes: the 99.9th percentile (nearest rank) is the largest. */
    CHECK_NEAR(r.rot_p999_deg[5], 40.0f, 1e-2f);
    CHECK_NEAR(r.rot_p999_deg[3], 2.0f, 0.011f);
    CHECK_NEAR(r.rot_max_deg[3], 2.0f, 1e-2f);
    CHECK(r.rot_max_deg[4] < 1e-3f);

    r = run(knee_bends);
    printf("metrics: knee bends: steady %.2f deg (hinge %d, step %d), near events %.2f\n",
           (double)r.flex_max_deg[MM_STEADY], r.flex_hinge[MM_STEADY], r.flex_step[MM_STEADY],
           (double)r.flex_max_deg[MM_NEAR_EVENT]);
    CHECK_NEAR(r.flex_max_deg[MM_STEADY], 15.0f, 1e-2f);
    CHECK(r.flex_hinge[MM_STEADY] == 0 && r.flex_step[MM_STEADY] == 101);
    CHECK(r.flex_max_deg[MM_NEAR_EVENT] < 1e-3f && r.events == 0);
    r = run(knee_bends_pushed);
    printf("metrics: knee bends 10 steps after a wall push: steady %.2f, near events %.2f over %d events\n",
           (double)r.flex_max_deg[MM_STEADY], (double)r.flex_max_deg[MM_NEAR_EVENT], r.events);
    CHECK(r.flex_max_deg[MM_STEADY] < 1e-3f && r.events == 1);
    CHECK_NEAR(r.flex_max_deg[MM_NEAR_EVENT], 15.0f, 1e-2f);
    r = run(knee_bends_pushed_early);
    CHECK_NEAR(r.flex_max_deg[MM_STEADY], 15.0f, 1e-2f);
    CHECK(r.flex_max_deg[MM_NEAR_EVENT] < 1e-3f && r.events == 1);

    r = run(crouching);
    CHECK(r.events == 1);

    r = run(stands_high);
    printf("metrics: a held toe 40 cm above the root's ground: stand %.2f cm at step %d\n", (double)r.stand_off_cm,
           r.stand_off_step);
    CHECK_NEAR(r.stand_off_cm, 40.0f, 1e-3f);
    CHECK(r.stand_off_step == 31);

    r = run(heel_jumps);
    printf("metrics: heel jumps: step %.2f cm (point %d, step %d), acceleration %.2f cm (step %d)\n",
           (double)r.point_step_max_cm, r.point_step_point, r.point_step_step, (double)r.point_accel_max_cm,
           r.point_accel_step);
    CHECK_NEAR(r.point_step_max_cm, 5.0f, 1e-4f);
    CHECK(r.point_step_point == 2 && r.point_step_step == 51);
    CHECK_NEAR(r.point_accel_max_cm, 5.0f, 1e-4f);
    CHECK(r.point_accel_step == 51);

    r = run(world_limits);
    printf("metrics: limits: ceiling %.2f, edge %.2f, wall %.2f (point %d, step %d)\n", (double)r.ceiling_max_cm,
           (double)r.edge_min_cm, (double)r.wall_max_cm, r.wall_point, r.wall_step);
    CHECK_NEAR(r.ceiling_max_cm, 3.0f, 1e-4f);
    CHECK(r.ceiling_point == MM_JOINTS);
    CHECK_NEAR(r.edge_min_cm, 20.0f, 1e-3f);
    CHECK_NEAR(r.wall_max_cm, 5.0f, 1e-3f);
    CHECK(r.wall_point == 10 && r.wall_step == 151);
    CHECK_NEAR(r.head_crouch_cm, 140.0f, 1e-3f);

    r = run(not_finite);
    CHECK(r.nonfinite_steps == 1);

    level_free(&lvl);
    return check_summary();
}
