/* ctrl_traj.c: intent and trajectory (see ctrl_traj.h). */
#include "ctrl/ctrl_traj.h"

#include "ctrl/ctrl_world.h"

#include <math.h>
#include <string.h>

/* Smoothing time constants (s) of the user's targets. The original demo
 * mixes velocity and direction 0.9 per frame (near instant) and gaits 0.1 per
 * frame (tau ~0.16 s, close to the 0.1 s Gaussian of the gait labels). */
#define CTRL_TAU_VEL_S 0.05f
#define CTRL_TAU_DIR_S 0.05f
#define CTRL_TAU_STRAFE_S 0.1f
#define CTRL_TAU_GAIT_S 0.15f

/* Jump areas ramp from 1 at their radius to 0 this much further out, so the
 * jump gait rises as the trajectory approaches (original demo: falloff). */
#define CTRL_JUMP_FALLOFF_CM 50.0f
/* Just after landing by a gap, a move whose ground drops more than this
 * (cm) is held (see ctrl_traj_advance). */
#define CTRL_LANDING_DESCENT_CM 2.0f
/* The jump button places a temporary jump area this many frames ahead on the
 * predicted trajectory (in place when standing) for this long. */
#define CTRL_JUMP_AHEAD_FRAMES 20
#define CTRL_JUMP_RADIUS_CM 40.0f
#define CTRL_JUMP_DURATION_S 0.8f
/* With this much jump (gait) the root may cross ledges. */
#define CTRL_JUMP_CROSS 0.5f

/* Trajectory blending exponents (original demo, non-'responsive' setting):
 * the near future follows the network, the far future the user; strafing
 * follows the user's direction sooner. */
#define CTRL_BIAS_POS_WALK 2.0f
#define CTRL_BIAS_POS_STRAFE 2.0f
#define CTRL_BIAS_DIR_WALK 5.0f
#define CTRL_BIAS_DIR_STRAFE 3.0f

/* Gait weights from the factored state: jump takes over from crouch, which
 * takes over from stand/walk/run (as the labels are exclusive categories). */
static void gait_combine(const float base[3], float crouch, float jump, float out[CTRL_GAITS])
{
    float j = clampf(jump, 0.0f, 1.0f);
    float cr = clampf(crouch, 0.0f, 1.0f) * (1.0f - j);
    float rest = 1.0f - j - cr;
    out[CTRL_GAIT_STAND] = base[0] * rest;
    out[CTRL_GAIT_WALK] = base[1] * rest;
    out[CTRL_GAIT_RUN] = base[2] * rest;
    out[CTRL_GAIT_CROUCH] = cr;
    out[CTRL_GAIT_JUMP] = j;
    out[CTRL_GAIT_SPARE] = 0.0f;
}

static float area_crouch(const ctrl_t *c, float x, float z) { return ctrl_low_ceiling(c, x, z) ? 1.0f : 0.0f; }

static float falloff_weight(float dx, float dz, float radius)
{
    float d = sqrtf(dx * dx + dz * dz);
    return 1.0f - clampf((d - radius) / CTRL_JUMP_FALLOFF_CM, 0.0f, 1.0f);
}

static float area_jump(const ctrl_t *c, float x, float z)
{
    float w = 0.0f;
    const level_t *l = c->level;
    for (int i = 0; i < l->jump_count; i++) {
        float wi = falloff_weight(x - l->jump[i].x, z - l->jump[i].z, l->jump[i].radius_cm);
        w = wi > w ? wi : w;
    }
    if (c->jump_req_time_s > 0.0f) {
        float wi = falloff_weight(x - c->jump_req_x, z - c->jump_req_z, CTRL_JUMP_RADIUS_CM);
        w = wi > w ? wi : w;
    }
    return w;
}

/* ---- one step ------------------------------------------------------------ */

void ctrl_traj_targets(ctrl_t *c, const ctrl_input_t *in, float dt_s)
{
    float mx = finite_or0(in->move_x), mz = finite_or0(in->move_z);
    float mag = sqrtf(mx * mx + mz * mz);
    if (mag > 1.0f) {
        mx /= mag;
        mz /= mag;
        mag = 1.0f;
    }
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    /* Crouch on request, and whatever the request under a low ceiling and
     * before one: the body is lowered before the head gets there. */
    float crouch_t = (in->crouch || ctrl_ceiling_near(c)) ? 1.0f : 0.0f;
    float s = clampf(finite_or0(in->speed), 0.0f, 1.0f);
    float speed = crouch_t > 0.0f ? CTRL_CROUCH_SPEED_CM_S : lerpf(CTRL_WALK_SPEED_CM_S, CTRL_RUN_SPEED_CM_S, s);
    float vel_new[2] = {mx * speed, mz * speed};

    float av = smooth_alpha(dt_s, CTRL_TAU_VEL_S);
    c->target_vel[0] = lerpf(c->target_vel[0], vel_new[0], av);
    c->target_vel[1] = lerpf(c->target_vel[1], vel_new[1], av);
    c->strafe_amount = lerpf(c->strafe_amount, in->strafe ? 1.0f : 0.0f, smooth_alpha(dt_s, CTRL_TAU_STRAFE_S));

    float fx = finite_or0(in->facing_x), fz = finite_or0(in->facing_z);
    float fl = sqrtf(fx * fx + fz * fz);
    float dir_new[2] = {c->target_dir[0], c->target_dir[1]};
    if (in->strafe && fl > 1e-3f) {
        dir_new[0] = fx / fl;
        dir_new[1] = fz / fl;
    } else if (mag * speed > CTRL_STAND_SPEED_CM_S) {
        dir_new[0] = mx / mag;
        dir_new[1] = mz / mag;
    }
    mix_dir(c->target_dir, dir_new, smooth_alpha(dt_s, CTRL_TAU_DIR_S), c->target_dir);

    /* Jump button: the rising edge places a temporary jump area ahead; not
     * under a low ceiling, where there is no room to jump. */
    if (in->jump && !c->jump_held && c->jump_req_time_s <= 0.0f && !ctrl_ceiling_near(c)) {
        const float *p = c->traj.pos[CTRL_TRAJ_NOW + CTRL_JUMP_AHEAD_FRAMES];
        c->jump_req_x = p[0];
        c->jump_req_z = p[2];
        c->jump_req_time_s = CTRL_JUMP_DURATION_S;
    } else if (c->jump_req_time_s > 0.0f) {
        c->jump_req_time_s -= dt_s;
    }
    c->jump_held = in->jump;

    float base_t[3] = {1.0f, 0.0f, 0.0f};
    if (mag * speed > CTRL_STAND_SPEED_CM_S) {
        base_t[0] = 0.0f;
        base_t[1] = 1.0f - s;
        base_t[2] = s;
    }

    float ag = smooth_alpha(dt_s, CTRL_TAU_GAIT_S);
    for (int k = 0; k < 3; k++)
        c->base[k] = lerpf(c->base[k], base_t[k], ag);
    c->crouch = lerpf(c->crouch, crouch_t, ag);
    /* Carried over a gap (ctrl_gap_carry), it is still jumping, whatever
     * jump area it took off from is behind it now. */
    float jump_t = c->ground_held ? 1.0f : area_jump(c, root[0], root[2]);
    c->jump = lerpf(c->jump, ctrl_ceiling_near(c) ? 0.0f : jump_t, ag);
}

/* Future trajectory: the network's prediction blended towards the user's
 * target velocity and direction, more so further ahead; walls; areas; heights. */
void ctrl_traj_predict(ctrl_t *c)
{
    ctrl_traj_view_t *t = &c->traj;
    float bias_pos = lerpf(CTRL_BIAS_POS_WALK, CTRL_BIAS_POS_STRAFE, c->strafe_amount);
    float bias_dir = lerpf(CTRL_BIAS_DIR_WALK, CTRL_BIAS_DIR_STRAFE, c->strafe_amount);
    float vel_frame[2] = {c->target_vel[0] / CTRL_NET_FPS, c->target_vel[1] / CTRL_NET_FPS};
    const float half = (float)(CTRL_TRAJ_FRAMES - CTRL_TRAJ_NOW);

    float prev_net[2] = {t->pos[CTRL_TRAJ_NOW][0], t->pos[CTRL_TRAJ_NOW][2]};
    float prev_blend[2] = {prev_net[0], prev_net[1]};
    for (int i = CTRL_TRAJ_NOW + 1; i < CTRL_TRAJ_FRAMES; i++) {
        float u = (float)(i - CTRL_TRAJ_NOW) / half;
        float scale_pos = 1.0f - powf(1.0f - u, bias_pos);
        float scale_dir = 1.0f - powf(1.0f - u, bias_dir);
        float net_x = t->pos[i][0], net_z = t->pos[i][2];
        float cand[2] = {prev_blend[0] + lerpf(net_x - prev_net[0], vel_frame[0], scale_pos),
                         prev_blend[1] + lerpf(net_z - prev_net[1], vel_frame[1], scale_pos)};
        /* Over a ledge only where a jump is coming. */
        bool jumping = fmaxf(c->jump, area_jump(c, prev_blend[0], prev_blend[1])) > CTRL_JUMP_CROSS;
        ctrl_collide_point(c, prev_blend, CTRL_TRAJ_RADIUS_CM, jumping, cand);
        prev_net[0] = net_x;
        prev_net[1] = net_z;
        t->pos[i][0] = prev_blend[0] = cand[0];
        t->pos[i][2] = prev_blend[1] = cand[1];
        mix_dir(t->dir[i], c->target_dir, scale_dir, t->dir[i]);
    }

    gait_combine(c->base, c->crouch, c->jump, t->gait[CTRL_TRAJ_NOW]);
    for (int i = CTRL_TRAJ_NOW; i < CTRL_TRAJ_FRAMES; i++) {
        float x = t->pos[i][0], z = t->pos[i][2];
        /* The root's height is ctrl_traj_advance()'s (ctrl_support_height). */
        if (i > CTRL_TRAJ_NOW)
            t->pos[i][1] = ctrl_ground(c, x, z);
        if (i > CTRL_TRAJ_NOW) {
            float cr = fmaxf(c->crouch, area_crouch(c, x, z));
            float jp = fmaxf(c->jump, area_jump(c, x, z));
            gait_combine(c->base, cr, jp, t->gait[i]);
        }
    }
}

/* Past shifts by one frame, the root moves by the predicted root motion
 * (never through a wall), the future comes from the network, phase advances. */
void ctrl_traj_advance(ctrl_t *c)
{
    ctrl_traj_view_t *t = &c->traj;
    const float *y = c->y;
    /* Standing still, the root does not drift (original demo). The stand
     * part of the base gait is used, not the stand weight: a crouch replaces
     * 'stand' in the labels, and a still crouch must not drift either. */
    float stand_amount = powf(1.0f - clampf(c->base[0], 0.0f, 1.0f), 0.25f);
    memmove(t->pos[0], t->pos[1], sizeof(t->pos[0]) * CTRL_TRAJ_NOW);
    memmove(t->dir[0], t->dir[1], sizeof(t->dir[0]) * CTRL_TRAJ_NOW);
    memmove(t->gait[0], t->gait[1], sizeof(t->gait[0]) * CTRL_TRAJ_NOW);

    float *root = t->pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(t->dir[CTRL_TRAJ_NOW]);
    float dx, dz;
    to_world(yaw, y[OY_RVEL_X] * stand_amount, y[OY_RVEL_Z] * stand_amount, &dx, &dz);
    ctrl_gap_carry(c, &dx, &dz);
    float from[2] = {root[0], root[2]};
    float cand[2] = {root[0] + dx, root[2] + dz};
    float want[2] = {cand[0], cand[1]};
    if (c->landing_steps > 0)
        c->landing_steps--;
    bool landing = c->landing_steps > 0 && !(c->jump > CTRL_JUMP_CROSS || c->ground_held);
    if (landing && ctrl_ground(c, cand[0], cand[1]) < ctrl_ground(c, from[0], from[1]) - CTRL_LANDING_DESCENT_CM &&
        ctrl_drops_past_step(c, from, cand)) {
        /* Just landed by a gap, still among its ledges: it may walk on
         * or out, not back down into the gap. A step down (off the far
         * side of a box it landed on) it may take: held there, the body
         * ran on the spot, both feet in the air, for 0.37 s. */
        cand[0] = from[0];
        cand[1] = from[1];
    }
    bool over_ledges = c->jump > CTRL_JUMP_CROSS || c->ground_held || landing;
    ctrl_collide_point(c, from, CTRL_ROOT_RADIUS_CM, over_ledges, cand);
    if (cand[0] != want[0] || cand[1] != want[1])
        c->stats.wall_pushes++;
    if ((want[0] != from[0] || want[1] != from[1]) && cand[0] == from[0] && cand[1] == from[1])
        c->stats.wall_blocks++;
    c->stats.root_speed_cm_s = hypotf(cand[0] - from[0], cand[1] - from[1]) * CTRL_NET_FPS;
    root[0] = cand[0];
    root[2] = cand[1];
    root[1] = ctrl_support_height(c, root[0], root[2], root[1]);
    yaw = wrap_pi(yaw + stand_amount * y[OY_RANG]);
    t->dir[CTRL_TRAJ_NOW][0] = sinf(yaw);
    t->dir[CTRL_TRAJ_NOW][1] = cosf(yaw);

    /* Output point k is 10 (k + 1) frames after the new current frame, in its
     * root frame; frames in between interpolate, from the root itself. */
    for (int i = CTRL_TRAJ_NOW + 1; i < CTRL_TRAJ_FRAMES; i++) {
        int off = i - CTRL_TRAJ_NOW;
        /* Between output points lo (-1: the root) and lo + 1 (<= 5). */
        int lo = off / CTRL_TRAJ_STEP - 1;
        int hi = lo + 1;
        float m = (float)(off % CTRL_TRAJ_STEP) / (float)CTRL_TRAJ_STEP;
        float px0 = 0.0f, pz0 = 0.0f, dx0 = 0.0f, dz0 = 1.0f;
        if (lo >= 0) {
            px0 = y[OY_TPOS_X + lo];
            pz0 = y[OY_TPOS_Z + lo];
            dx0 = y[OY_TDIR_X + lo];
            dz0 = y[OY_TDIR_Z + lo];
        }
        float px = px0, pz = pz0, ddx = dx0, ddz = dz0;
        if (m > 0.0f) {
            px = lerpf(px0, y[OY_TPOS_X + hi], m);
            pz = lerpf(pz0, y[OY_TPOS_Z + hi], m);
            ddx = lerpf(dx0, y[OY_TDIR_X + hi], m);
            ddz = lerpf(dz0, y[OY_TDIR_Z + hi], m);
        }
        float wx, wz;
        to_world(yaw, px, pz, &wx, &wz);
        t->pos[i][0] = root[0] + wx;
        t->pos[i][2] = root[2] + wz;
        t->pos[i][1] = ctrl_ground(c, t->pos[i][0], t->pos[i][2]);
        to_world(yaw, ddx, ddz, &wx, &wz);
        float l = sqrtf(wx * wx + wz * wz);
        if (l > 1e-6f) {
            t->dir[i][0] = wx / l;
            t->dir[i][1] = wz / l;
        } else {
            t->dir[i][0] = t->dir[CTRL_TRAJ_NOW][0];
            t->dir[i][1] = t->dir[CTRL_TRAJ_NOW][1];
        }
    }
    c->phase = wrap_2pi(c->phase + y[OY_DPHASE]);
}
