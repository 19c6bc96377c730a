#include "game/intent.h"

#include "core/mathx.h"

#include <math.h>

void intent_resolve(const input_frame_t *in, float camera_yaw_rad, ctrl_input_t *out)
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
    out->speed = clamp01f(in->speed);
    out->strafe = in->strafe;
    out->crouch = in->crouch;
    out->jump = in->jump;
    out->facing_x = fx;
    out->facing_z = fz;
}

void input_merge(const input_frame_t *a, const input_frame_t *b, input_frame_t *out)
{
    input_frame_t r;
    r.move_x = a->move_x + b->move_x;
    r.move_y = a->move_y + b->move_y;
    float len = sqrtf(r.move_x * r.move_x + r.move_y * r.move_y);
    if (len > 1.0f) {
        r.move_x /= len;
        r.move_y /= len;
    }
    r.speed = a->speed > b->speed ? a->speed : b->speed;
    r.strafe = a->strafe || b->strafe;
    r.crouch = a->crouch || b->crouch;
    r.jump = a->jump || b->jump;
    r.orbit_yaw_rate = a->orbit_yaw_rate + b->orbit_yaw_rate;
    r.orbit_pitch_rate = a->orbit_pitch_rate + b->orbit_pitch_rate;
    r.zoom_rate = a->zoom_rate + b->zoom_rate;
    r.orbit_yaw_impulse = a->orbit_yaw_impulse + b->orbit_yaw_impulse;
    r.orbit_pitch_impulse = a->orbit_pitch_impulse + b->orbit_pitch_impulse;
    r.zoom_impulse = a->zoom_impulse + b->zoom_impulse;
    *out = r;
}
