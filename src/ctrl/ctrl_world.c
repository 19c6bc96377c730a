/* ctrl_world.c: the ground under the character and what blocks it (see
 * ctrl_world.h). */
#include "ctrl/ctrl_world.h"

#include <math.h>

/* While the jump amount is above this, the root does not follow the terrain
 * down (ctrl_support_height). */
#define CTRL_JUMP_HOLD_MIN 0.1f

/* Fastest descent of the root's height otherwise (cm/s): a step down of
 * 20-30 cm takes a few frames instead of one. */
#define CTRL_ROOT_FALL_CM_S 240.0f

float ctrl_ground(const ctrl_t *c, float x, float z) { return terrain_height(&c->level->terrain, x, z); }

float ctrl_foot_ground(const ctrl_t *c, float x, float z)
{
    float g = ctrl_ground(c, x, z);
    float root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    return g < root_h - CTRL_GAP_DEPTH_CM ? root_h : g;
}

void ctrl_collide_point(const ctrl_t *c, const float from[2], float radius, float cand[2])
{
    float x = cand[0], z = cand[1];
    level_push_out_of_walls(c->level, &x, &z, radius);
    if (!level_segment_crosses_wall(c->level, from[0], from[1], x, z)) {
        cand[0] = x;
        cand[1] = z;
    } else if (level_segment_crosses_wall(c->level, from[0], from[1], cand[0], cand[1])) {
        cand[0] = from[0];
        cand[1] = from[1];
    }
}

/* The root's height: the terrain under it, except that while the jump gait
 * is above CTRL_JUMP_HOLD_MIN it does not drop below PREV_H (the last
 * height), nor afterwards while the terrain under it stays a gap (more than
 * CTRL_GAP_DEPTH_CM below) until it stands on ground again; otherwise it
 * drops by at most CTRL_ROOT_FALL_CM_S. The network's jumps were recorded
 * over flat ground and are shorter than the gaps level's trenches (1 and
 * 1.6 m), and its hip is relative to the ground: following the terrain down
 * sank the jumping body into the trench it jumps over (the hip 46-82 cm
 * below its approach height). Rising terrain is followed at once. */
float ctrl_support_height(ctrl_t *c, float x, float z, float prev_h)
{
    float g = ctrl_ground(c, x, z);
    if (!isfinite(prev_h) || g >= prev_h) {
        c->ground_held = false;
        return g;
    }
    if (c->jump > CTRL_JUMP_HOLD_MIN) {
        c->ground_held = true;
        return prev_h;
    }
    if (c->ground_held && g < prev_h - CTRL_GAP_DEPTH_CM)
        return prev_h;
    c->ground_held = false;
    return fmaxf(g, prev_h - CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS);
}

