/* Unit tests of the app's pure parts: intent, input mapping, dead zones,
 * the fixed-step clock, scripts, the command line, the camera, the
 * profiler ring buffer and the drawn pose between two steps. No window, no
 * GL. */
#include "game/camera.h"
#include "app/cli.h"
#include "app/input.h"
#include "game/intent.h"
#include "game/loop.h"
#include "app/prof.h"
#include "game/script.h"
#include "game/sim.h"
#include "check.h"
#include "core/log.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

static void test_intent(void)
{
    input_frame in = {0};
    ctrl_input it;
    /* Camera looking along +Z: forward is +Z, screen-right is -X. */
    in.move_y = 1.0f;
    intent_resolve(&in, 0.0f, &it);
    CHECK_NEAR(it.move_x, 0.0f, 1e-6);
    CHECK_NEAR(it.move_z, 1.0f, 1e-6);
    in.move_x = 1.0f;
    in.move_y = 0.0f;
    intent_resolve(&in, 0.0f, &it);
    CHECK_NEAR(it.move_x, -1.0f, 1e-6);
    CHECK_NEAR(it.move_z, 0.0f, 1e-6);
    /* Camera looking along +X: forward is +X. */
    in.move_x = 0.0f;
    in.move_y = 1.0f;
    intent_resolve(&in, PI_F / 2.0f, &it);
    CHECK_NEAR(it.move_x, 1.0f, 1e-6);
    CHECK_NEAR(it.move_z, 0.0f, 1e-6);
    /* Diagonal keys are not faster than straight ones. */
    in.move_x = 1.0f;
    in.move_y = 1.0f;
    intent_resolve(&in, 0.3f, &it);
    CHECK_NEAR(sqrtf(it.move_x * it.move_x + it.move_z * it.move_z), 1.0f, 1e-5);
    in.speed = 3.0f;
    intent_resolve(&in, 0.0f, &it);
    CHECK_NEAR(it.speed, 1.0f, 0.0);
}

static void test_deadzone(void)
{
    float x, y;
    input_deadzone(0.1f, 0.1f, 0.2f, &x, &y);
    CHECK(x == 0.0f && y == 0.0f);
    input_deadzone(1.0f, 0.0f, 0.2f, &x, &y);
    CHECK_NEAR(x, 1.0f, 1e-6);
    CHECK_NEAR(y, 0.0f, 1e-6);
    /* Halfway between the dead zone and full deflection gives half output. */
    input_deadzone(0.0f, -0.6f, 0.2f, &x, &y);
    CHECK_NEAR(y, -0.5f, 1e-6);
    /* Corners of a square gate are clamped to unit length. */
    input_deadzone(1.0f, 1.0f, 0.2f, &x, &y);
    CHECK_NEAR(sqrtf(x * x + y * y), 1.0f, 1e-5);
}

static void test_keys(void)
{
    input_config cfg;
    input_config_default(&cfg);
    bool keys[INPUT_KEY_COUNT] = {0};
    input_frame f;
    keys[INPUT_KEY_FORWARD] = true;
    keys[INPUT_KEY_RUN] = true;
    input_map_keys(keys, &cfg, &f);
    CHECK(f.move_y == 1.0f && f.move_x == 0.0f);
    CHECK(f.speed == 1.0f);
    keys[INPUT_KEY_BACK] = true; /* opposite keys cancel */
    input_map_keys(keys, &cfg, &f);
    CHECK(f.move_y == 0.0f);
    memset(keys, 0, sizeof keys);
    keys[INPUT_KEY_CROUCH] = keys[INPUT_KEY_JUMP] = keys[INPUT_KEY_ORBIT_LEFT] = true;
    input_map_keys(keys, &cfg, &f);
    CHECK(f.crouch && f.jump && !f.strafe);
    CHECK(f.orbit_yaw_rate < 0.0f);
}

static void test_pad(void)
{
    input_config cfg;
    input_config_default(&cfg);
    float axes[SDL_CONTROLLER_AXIS_MAX] = {0};
    bool buttons[SDL_CONTROLLER_BUTTON_MAX] = {0};
    input_frame f = {0};
    axes[SDL_CONTROLLER_AXIS_LEFTY] = -1.0f;      /* stick pushed up */
    axes[SDL_CONTROLLER_AXIS_TRIGGERRIGHT] = 1.0f; /* full run */
    axes[SDL_CONTROLLER_AXIS_TRIGGERLEFT] = 0.9f;  /* strafe */
    axes[SDL_CONTROLLER_AXIS_RIGHTX] = 0.05f;      /* drift inside the dead zone */
    buttons[SDL_CONTROLLER_BUTTON_A] = true;
    buttons[SDL_CONTROLLER_BUTTON_B] = true;
    input_map_pad(axes, buttons, &cfg, &f);
    CHECK_NEAR(f.move_y, 1.0f, 1e-5);
    CHECK_NEAR(f.speed, 1.0f, 1e-5);
    CHECK(f.strafe && f.jump && f.crouch);
    CHECK(f.orbit_yaw_rate == 0.0f);
    /* The pad adds onto the keyboard; the sum stays unit length. */
    input_frame kb = {0};
    kb.move_x = 1.0f;
    input_map_pad(axes, buttons, &cfg, &kb);
    CHECK_NEAR(sqrtf(kb.move_x * kb.move_x + kb.move_y * kb.move_y), 1.0f, 1e-5);
}

static void test_clock(void)
{
    loop_clock c;
    loop_clock_init(&c);
    int total = 0;
    /* 1 s of 144 Hz frames gives 60 steps (within one step of rounding). */
    for (int i = 0; i < 144; i++) {
        int n = loop_clock_advance(&c, 1.0 / 144.0);
        for (int k = 0; k < n; k++)
            loop_clock_step_done(&c);
        total += n;
    }
    CHECK(total == 60);
    /* A 5 s stall is clamped: no spiral of death. */
    int n = loop_clock_advance(&c, 5.0);
    CHECK(n <= (int)(LOOP_MAX_FRAME_S * LOOP_STEP_HZ) + 1);
    for (int k = 0; k < n; k++)
        loop_clock_step_done(&c);
    CHECK(loop_clock_alpha(&c) >= 0.0f && loop_clock_alpha(&c) <= 1.0f);
    /* Negative or NaN frame times are ignored. */
    CHECK(loop_clock_advance(&c, -1.0) == 0);
    CHECK(loop_clock_advance(&c, NAN) == 0);
}

static void test_script(void)
{
    script_t s;
    const char *ok = "# walk then run\n"
                     "0.0 move 0 1 speed 0.5\n"
                     "1.5 speed 1 crouch 1   # trailing comment\n"
                     "2 pad leftx -0.5 button a 1\n"
                     "3 quit\n";
    CHECK(script_parse(&s, ok, strlen(ok), "ok.script"));
    CHECK(s.count == 7);
    const script_event *ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_MOVE && ev->b == 1.0f);
    script_apply(&s, ev);
    ev = script_next_due(&s, 0);
    CHECK(ev && ev->cmd == SCRIPT_SPEED);
    script_apply(&s, ev);
    CHECK(script_next_due(&s, 89) == NULL); /* 1.5 s is step 90 */
    ev = script_next_due(&s, 90);
    CHECK(ev && ev->cmd == SCRIPT_SPEED && ev->step == 90);
    script_apply(&s, ev);
    CHECK(s.held.move_y == 1.0f && s.held.speed == 1.0f);
    ev = script_next_due(&s, 90);
    script_apply(&s, ev);
    CHECK(s.held.crouch);
    ev = script_next_due(&s, 120);
    CHECK(ev && ev->cmd == SCRIPT_PAD_AXIS && ev->index == SDL_CONTROLLER_AXIS_LEFTX && ev->a == -0.5f);
    script_free(&s);

    /* Each bad script is rejected (the message names file:line). */
    const char *bad[] = {"0 walk 1\n",        "0 move 0\n",       "1 move 0 1\n0.5 speed 1\n",
                         "0 move 0 nan\n",     "0 speed 2\n",      "x move 0 1\n",
                         "0 crouch 0.5\n",     "0 pad stick 1\n",  "0\n",
                         "-1 move 0 1\n",      "0 move 0 1e999\n", "0 button z 1\n"};
    log_level saved = log_get_level();
    log_set_level(LOG_QUIET);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool parsed = script_parse(&s, bad[i], strlen(bad[i]), "bad.script");
        CHECK(!parsed);
        if (parsed) {
            fprintf(stderr, "  accepted bad script: %s", bad[i]);
            script_free(&s);
        }
    }
    log_set_level(saved);
}

static cli_result parse(app_options *o, int argc, const char **argv)
{
    return cli_parse(argc, (char **)argv, o);
}

static void test_cli(void)
{
    app_options o;
    const char *good[] = {"strider", "--level", "hills", "--frames", "120", "--hidden", "--size", "640x360",
                          "--screenshot", "out.png", "--seed", "7"};
    CHECK(parse(&o, 12, good) == CLI_RUN);
    CHECK(o.frames == 120 && o.hidden && o.width == 640 && o.height == 360 && o.seed == 7);
    CHECK(strcmp(o.level, "hills") == 0 && strcmp(o.screenshot, "out.png") == 0);

    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    const char *bad1[] = {"strider", "--frobnicate"};
    const char *bad2[] = {"strider", "--frames", "-5"};
    const char *bad3[] = {"strider", "--frames"};
    const char *bad4[] = {"strider", "--size", "99999x10"};
    const char *bad5[] = {"strider", "--size", "axb"};
    const char *bad6[] = {"strider", "--seed", "12abc"};
    const char *bad7[] = {"strider", "--view", "teapot"};
    const char *bad8[] = {"strider", "--frames", "99999999999999999999"};
    CHECK(parse(&o, 2, bad1) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad2) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 2, bad3) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad4) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad5) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad6) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad7) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 3, bad8) == CLI_USAGE_ERROR);
    /* Game options: --marker replaces the files; the viewer takes neither. */
    const char *game[] = {"strider", "--network", "n.bin", "--character", "c.chr", "--no-ik", "--no-character"};
    CHECK(parse(&o, 7, game) == CLI_RUN);
    CHECK(strcmp(o.network, "n.bin") == 0 && strcmp(o.character, "c.chr") == 0 && o.no_ik && o.no_character);
    const char *bad9[] = {"strider", "--marker", "--network", "n.bin"};
    const char *bad10[] = {"strider", "--view", "character", "--marker"};
    const char *bad11[] = {"strider", "--view", "character", "--no-ik"};
    CHECK(parse(&o, 4, bad9) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 4, bad10) == CLI_USAGE_ERROR);
    CHECK(parse(&o, 4, bad11) == CLI_USAGE_ERROR);
    fclose(stderr);
    stderr = saved;
}

static void test_camera(void)
{
    terrain_t t;
    /* A flat terrain 500 cm up: the eye must stay above it whatever the pitch. */
    CHECK(terrain_create_flat(&t, 64, 64, 50.0f, 500.0f));
    float target[3] = {0.0f, 500.0f, 0.0f};
    camera_t cam;
    camera_init(&cam, target, 0.0f);
    input_frame in = {0};
    in.orbit_pitch_impulse = -10.0f; /* far below the clamp */
    in.zoom_impulse = -100.0f;       /* far beyond the zoom clamp */
    camera_update(&cam, &in, true, target, &t, 1.0f / 60.0f);
    CHECK_NEAR(cam.pitch_rad, cam.config.min_pitch_rad, 1e-6);
    CHECK_NEAR(cam.distance_cm, cam.config.max_distance_cm, 1e-2);
    CHECK(cam.eye[1] >= 500.0f + cam.config.ground_clearance_cm - 1e-3f);
    /* Impulses are applied once per frame, rates every step. */
    float yaw = cam.yaw_rad;
    in = (input_frame){0};
    in.orbit_yaw_impulse = 0.5f;
    camera_update(&cam, &in, false, target, &t, 1.0f / 60.0f);
    CHECK_NEAR(cam.yaw_rad, yaw, 1e-6);
    in.orbit_yaw_rate = 6.0f;
    camera_update(&cam, &in, false, target, &t, 0.1f);
    CHECK_NEAR(cam.yaw_rad, yaw + 0.6f, 1e-5);
    float view[16], proj[16];
    camera_matrices(&cam, 16.0f / 9.0f, view, proj);
    CHECK(isfinite(view[12]) && isfinite(proj[0]) && proj[11] == -1.0f);
    terrain_free(&t);
}

static void test_prof(void)
{
    prof_t p;
    prof_init(&p);
    for (int i = 0; i < PROF_HISTORY + 10; i++) {
        prof_begin_frame(&p);
        prof_add(&p, PROF_RENDER, (float)i);
        prof_add(&p, PROF_RENDER, 1.0f);
        prof_end_frame(&p, 16.0f);
    }
    float hist[PROF_HISTORY];
    int n = prof_history(&p, PROF_RENDER, hist);
    CHECK(n == PROF_HISTORY);
    /* Oldest first: frames 10 .. 249 after wrapping, each plus 1 ms. */
    CHECK(hist[0] == 11.0f && hist[PROF_HISTORY - 1] == (float)(PROF_HISTORY + 10));
    CHECK_NEAR(prof_average_frame_ms(&p), 16.0f, 1e-5);
    CHECK_NEAR(prof_average_ms(&p, PROF_RENDER), (11.0 + PROF_HISTORY + 10) / 2.0, 1e-3);
}

/* The pose drawn between two steps: the ends are exact, rotations stay unit
 * length and take the short arc (q and -q are one rotation). */
static void test_pose_lerp(void)
{
    static pose_t a, b, out;
    a.joint_count = b.joint_count = 2;
    float s = sinf(PI_F / 4.0f), c = cosf(PI_F / 4.0f);
    /* Joint 0: identity -> 90 degrees about Y. Joint 1: the same rotation
     * written as -q at the far end. */
    float qa[4] = {0, 0, 0, 1}, qb[4] = {0, s, 0, c};
    for (int j = 0; j < 2; j++) {
        memcpy(a.rot[j], qa, sizeof qa);
        memcpy(b.rot[j], qb, sizeof qb);
        a.trans[j][0] = 10.0f;
        b.trans[j][0] = 20.0f;
    }
    for (int k = 0; k < 4; k++)
        b.rot[1][k] = -qb[k];
    sim_lerp_pose(&a, &b, 0.0f, &out);
    CHECK_NEAR(out.rot[0][3], 1.0f, 1e-6);
    CHECK_NEAR(out.trans[0][0], 10.0f, 1e-6);
    sim_lerp_pose(&a, &b, 1.0f, &out);
    CHECK_NEAR(out.rot[0][1], s, 1e-6);
    CHECK_NEAR(out.trans[1][0], 20.0f, 1e-6);
    sim_lerp_pose(&a, &b, 0.5f, &out);
    CHECK(out.joint_count == 2);
    CHECK_NEAR(out.trans[0][0], 15.0f, 1e-5);
    for (int j = 0; j < 2; j++) {
        const float *q = out.rot[j];
        CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-5);
        /* Halfway: 45 degrees about Y, whichever sign the far end had. */
        CHECK_NEAR(fabsf(q[1]), sinf(PI_F / 8.0f), 1e-5);
        CHECK_NEAR(fabsf(q[3]), cosf(PI_F / 8.0f), 1e-5);
    }
}

int main(void)
{
    test_intent();
    test_deadzone();
    test_keys();
    test_pad();
    test_clock();
    test_script();
    test_cli();
    test_camera();
    test_prof();
    test_pose_lerp();
    return check_summary();
}
