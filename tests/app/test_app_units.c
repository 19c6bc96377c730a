/* Unit tests of the app's pure parts: input mapping, dead zones, the
 * command line and the profiler ring buffer (the game's own parts are tested
 * in tests/game). No window, no GL. */
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
    input_config_t cfg;
    input_config_default(&cfg);
    bool keys[INPUT_KEY_COUNT] = {0};
    input_frame_t f;
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
    input_config_t cfg;
    input_config_default(&cfg);
    float axes[SDL_CONTROLLER_AXIS_MAX] = {0};
    bool buttons[SDL_CONTROLLER_BUTTON_MAX] = {0};
    input_frame_t f = {0};
    axes[SDL_CONTROLLER_AXIS_LEFTY] = -1.0f;       /* stick pushed up */
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
    input_frame_t kb = {0};
    kb.move_x = 1.0f;
    input_map_pad(axes, buttons, &cfg, &kb);
    CHECK_NEAR(sqrtf(kb.move_x * kb.move_x + kb.move_y * kb.move_y), 1.0f, 1e-5);
}

static cli_result_t parse(app_options_t *o, int argc, const char **argv) { return cli_parse(argc, (char **)argv, o); }

static void test_cli(void)
{
    app_options_t o;
    const char *good[] = {"strider", "--level", "hills",        "--frames", "120",    "--hidden",
                          "--size",  "640x360", "--screenshot", "out.png",  "--seed", "7"};
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

int main(void)
{
    test_deadzone();
    test_keys();
    test_pad();
    test_cli();
    test_prof();
    return check_summary();
}
