#include "app/sim.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f

void sim_config_default(sim_config *cfg)
{
    /* Speeds match the mocap: walks at ~65-105 cm/s, runs at ~220-300 cm/s. */
    cfg->walk_cm_s = 110.0f;
    cfg->run_cm_s = 320.0f;
    cfg->crouch_cm_s = 60.0f;
    cfg->accel_time_s = 0.25f;
    cfg->turn_rad_s = 5.0f;
    cfg->stand_height_cm = 170.0f;
    cfg->crouch_height_cm = 110.0f;
    cfg->radius_cm = 25.0f;
    cfg->hop_speed_cm_s = 330.0f;
    cfg->gravity_cm_s2 = 981.0f;
}

void sim_reset(sim_t *s, const level_t *level)
{
    sim_config cfg = s->config;
    bool have_cfg = cfg.walk_cm_s > 0.0f;
    memset(s, 0, sizeof *s);
    if (have_cfg)
        s->config = cfg;
    else
        sim_config_default(&s->config);
    s->level = level;
    sim_marker *m = &s->marker;
    m->pos[0] = level->spawn_x;
    m->pos[2] = level->spawn_z;
    m->pos[1] = terrain_height(&level->terrain, m->pos[0], m->pos[2]);
    m->heading_rad = level->spawn_heading_rad;
    m->height_cm = s->config.stand_height_cm;
    s->prev_marker = *m;
    camera_init(&s->camera, m->pos, m->heading_rad);
    camera_snap(&s->camera, m->pos, &level->terrain);
    s->prev_camera = s->camera;
}

static float wrap_angle(float a) { return remainderf(a, 2.0f * PI_F); }

static float approach(float v, float goal, float k) { return v + (goal - v) * k; }

void sim_step(sim_t *s, const input_frame *in, bool first_step_of_frame, float dt_s)
{
    const sim_config *c = &s->config;
    const level_t *lvl = s->level;
    s->prev_marker = s->marker;
    s->prev_camera = s->camera;
    sim_marker *m = &s->marker;

    intent_resolve(in, s->camera.yaw_rad, &s->intent);
    const intent_t *it = &s->intent;

    /* Crouch: by request, or forced under a ceiling lower than standing height. */
    float ceiling = level_crouch_ceiling(lvl, m->pos[0], m->pos[2]);
    bool forced_crouch = ceiling > 0.0f && ceiling < c->stand_height_cm;
    bool crouch = it->crouch || forced_crouch;

    float top_speed = c->walk_cm_s + (c->run_cm_s - c->walk_cm_s) * it->speed;
    if (crouch)
        top_speed = c->crouch_cm_s;
    float goal_vx = it->move_x * top_speed, goal_vz = it->move_z * top_speed;
    float k = 1.0f - expf(-dt_s / c->accel_time_s);
    m->vel[0] = approach(m->vel[0], goal_vx, k);
    m->vel[1] = approach(m->vel[1], goal_vz, k);

    /* Face the motion, or the camera direction when strafing. */
    float face_x = m->vel[0], face_z = m->vel[1];
    if (it->strafe) {
        face_x = it->facing_x;
        face_z = it->facing_z;
    }
    if (face_x * face_x + face_z * face_z > 1.0f) {
        float goal = atan2f(face_x, face_z);
        float diff = wrap_angle(goal - m->heading_rad);
        float max_turn = c->turn_rad_s * dt_s;
        diff = diff > max_turn ? max_turn : (diff < -max_turn ? -max_turn : diff);
        m->heading_rad = wrap_angle(m->heading_rad + diff);
    }

    /* Move, then resolve walls; a step that would cross a wall's centre line
     * is refused outright so nothing tunnels through thin walls. */
    float nx = m->pos[0] + m->vel[0] * dt_s;
    float nz = m->pos[2] + m->vel[1] * dt_s;
    if (level_segment_crosses_wall(lvl, m->pos[0], m->pos[2], nx, nz)) {
        nx = m->pos[0];
        nz = m->pos[2];
        m->vel[0] = m->vel[1] = 0.0f;
    }
    level_push_out_of_walls(lvl, &nx, &nz, c->radius_cm);
    float min_x, min_z, max_x, max_z;
    terrain_bounds(&lvl->terrain, &min_x, &min_z, &max_x, &max_z);
    float margin = c->radius_cm;
    nx = fminf(fmaxf(nx, min_x + margin), max_x - margin);
    nz = fminf(fmaxf(nz, min_z + margin), max_z - margin);
    m->pos[0] = nx;
    m->pos[2] = nz;

    /* Hop on the button edge, or automatically on entering a jump area. */
    bool in_jump_area = level_in_jump_area(lvl, m->pos[0], m->pos[2]);
    bool moving = m->vel[0] * m->vel[0] + m->vel[1] * m->vel[1] > 100.0f;
    bool want_hop = (it->jump && !s->jump_latched) || (in_jump_area && moving);
    s->jump_latched = it->jump;
    if (want_hop && !m->airborne && !crouch) {
        m->airborne = true;
        m->hop_vel_cm_s = c->hop_speed_cm_s;
    }
    if (m->airborne) {
        m->hop_vel_cm_s -= c->gravity_cm_s2 * dt_s;
        m->hop_cm += m->hop_vel_cm_s * dt_s;
        if (m->hop_cm <= 0.0f) {
            m->hop_cm = 0.0f;
            m->hop_vel_cm_s = 0.0f;
            m->airborne = false;
        }
    }
    m->pos[1] = terrain_height(&lvl->terrain, m->pos[0], m->pos[2]) + m->hop_cm;

    float goal_h = crouch ? c->crouch_height_cm : c->stand_height_cm;
    if (forced_crouch && ceiling < goal_h)
        goal_h = ceiling;
    m->height_cm = approach(m->height_cm, goal_h, 1.0f - expf(-dt_s / 0.12f));

    camera_update(&s->camera, in, first_step_of_frame, m->pos, &lvl->terrain, dt_s);
    s->step++;
}

void sim_lerp_marker(const sim_marker *a, const sim_marker *b, float t, sim_marker *out)
{
    *out = *b;
    for (int i = 0; i < 3; i++)
        out->pos[i] = a->pos[i] + (b->pos[i] - a->pos[i]) * t;
    out->heading_rad = a->heading_rad + wrap_angle(b->heading_rad - a->heading_rad) * t;
    out->height_cm = a->height_cm + (b->height_cm - a->height_cm) * t;
}
