/* Unit tests of game/camera: the orbit camera following its focus over the terrain. */
#include "check.h"
#include "core/log.h"
#include "game/camera.h"
#include "game/intent.h"
#include "game/loop.h"
#include "game/script.h"
#include "game/sim.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

static void test_camera(void)
{
    terrain_t t;
    /* A flat terrain 500 cm up: the eye must stay above it whatever the pitch. */
    CHECK(terrain_create_flat(&t, 64, 64, 50.0f, 500.0f));
    float target[3] = {0.0f, 500.0f, 0.0f};
    camera_t cam;
    camera_init(&cam, target, 0.0f);
    input_frame_t in = {0};
    in.orbit_pitch_impulse = -10.0f; /* far below the clamp */
    in.zoom_impulse = -100.0f;       /* far beyond the zoom clamp */
    camera_update(&cam, &in, true, target, &t, 1.0f / 60.0f);
    CHECK_NEAR(cam.pitch_rad, cam.config.min_pitch_rad, 1e-6);
    CHECK_NEAR(cam.distance_cm, cam.config.max_distance_cm, 1e-2);
    CHECK(cam.eye[1] >= 500.0f + cam.config.ground_clearance_cm - 1e-3f);
    /* Impulses are applied once per frame, rates every step. */
    float yaw = cam.yaw_rad;
    in = (input_frame_t){0};
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

int main(void)
{
    test_camera();
    return check_summary();
}
