/* Unit tests of game/intent: the device request resolved with the camera yaw into the controller's intent, and two requests merged. */
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

static void test_intent(void)
{
    input_frame_t in = {0};
    ctrl_input_t it;
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

int main(void)
{
    test_intent();
    return check_summary();
}
