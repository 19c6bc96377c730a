#include "app/intent.h"

#include <math.h>

static float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

void intent_resolve(const input_frame *in, float camera_yaw_rad, intent_t *out)
{
    /* Camera basis on the ground plane (Y up, right-handed): looking along
     * +Z means screen-right is -X. */
    float fx = sinf(camera_yaw_rad), fz = cosf(camera_yaw_rad);
    float rx = -fz, rz = fx;

    float mx = in->move_x, my = in->move_y;
    float len = sqrtf(mx * mx + my * my);
    /* A diagonal key press must not move faster than a straight one. */
    if (len > 1.0f) {
        mx /= len;
        my /= len;
    }
    out->move_x = rx * mx + fx * my;
    out->move_z = rz * mx + fz * my;
    out->speed = clamp01(in->speed);
    out->strafe = in->strafe;
    out->crouch = in->crouch;
    out->jump = in->jump;
    out->facing_x = fx;
    out->facing_z = fz;
}
