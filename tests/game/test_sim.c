/* Unit tests of game/sim: the drawn pose between two steps. */
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
    test_pose_lerp();
    return check_summary();
}
