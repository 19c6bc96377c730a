#include "game/sim.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265358979f
/* The camera looks at about chest height of the 170 cm character. */
#define SIM_CHEST_HEIGHT_CM 125.0f
/* Blinks: lids close over CLOSE steps and reopen over OPEN steps (~200 ms in
 * all at 60 Hz); the next one follows after 2 to 6 s, and now and then a
 * quick second blink follows after ~0.35 s. */
#define SIM_BLINK_CLOSE_STEPS 4
#define SIM_BLINK_OPEN_STEPS 8
#define SIM_BLINK_MIN_GAP_S 2.0f
#define SIM_BLINK_MAX_GAP_S 6.0f
#define SIM_BLINK_DOUBLE_CHANCE 0.15f
#define SIM_BLINK_DOUBLE_GAP_S 0.35f
/* Effort follows the run + jump gait weights with this time constant. */
#define SIM_EFFORT_TIME_S 0.4f
/* Jump gait weight above which the marker reports the character airborne. */
#define SIM_AIRBORNE_GAIT 0.5f

void sim_config_default(sim_config_t *cfg)
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

/* Uniform in [0, 1) from a xorshift32 state (never 0). */
static float rng_uniform(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

static uint64_t blink_gap_steps(sim_face_t *f, float dt_s)
{
    float gap = SIM_BLINK_MIN_GAP_S + (SIM_BLINK_MAX_GAP_S - SIM_BLINK_MIN_GAP_S) * rng_uniform(&f->rng);
    if (rng_uniform(&f->rng) < SIM_BLINK_DOUBLE_CHANCE)
        gap = SIM_BLINK_DOUBLE_GAP_S;
    return (uint64_t)lrintf(gap / dt_s);
}

void sim_reset(sim_t *s, const level_t *level)
{
    sim_config_t cfg = s->config;
    ctrl_t *ctrl = s->ctrl;
    uint32_t seed = s->seed;
    bool have_cfg = cfg.walk_cm_s > 0.0f;
    memset(s, 0, sizeof *s);
    if (have_cfg)
        s->config = cfg;
    else
        sim_config_default(&s->config);
    s->ctrl = ctrl;
    s->seed = seed;
    s->level = level;
    sim_marker_t *m = &s->marker;
    m->pos[0] = level->spawn_x;
    m->pos[2] = level->spawn_z;
    m->pos[1] = terrain_height(&level->terrain, m->pos[0], m->pos[2]);
    m->heading_rad = level->spawn_heading_rad;
    m->height_cm = s->config.stand_height_cm;
    if (ctrl) {
        ctrl_spawn_t sp = {.x = level->spawn_x, .z = level->spawn_z, .heading_rad = level->spawn_heading_rad};
        ctrl_reset(ctrl, level, &sp);
        ctrl_get_stats(ctrl, &s->stats);
        memcpy(m->pos, s->stats.root_pos, sizeof m->pos);
        m->heading_rad = s->stats.heading_rad;
        m->height_cm = s->stats.head_height_cm;
        s->pose = *ctrl_pose(ctrl);
        s->prev_pose = s->pose;
        ctrl_contact_pos(ctrl, s->contact);
        memcpy(s->prev_contact, s->contact, sizeof s->contact);
        /* Any seed gives a non-zero xorshift state. */
        s->face.rng = seed * 2654435761u ^ 0x9e3779b9u;
        if (s->face.rng == 0)
            s->face.rng = 1;
        s->face.next_blink = blink_gap_steps(&s->face, 1.0f / 60.0f);
        s->prev_face = s->face;
    }
    s->prev_marker = *m;
    camera_init(&s->camera, m->pos, m->heading_rad);
    if (ctrl)
        s->camera.config.focus_height_cm = SIM_CHEST_HEIGHT_CM;
    camera_snap(&s->camera, m->pos, &level->terrain);
    s->prev_camera = s->camera;
}

static float wrap_angle(float a) { return remainderf(a, 2.0f * PI_F); }

static float approach(float v, float goal, float k) { return v + (goal - v) * k; }

void sim_begin_step(sim_t *s, const input_frame_t *in, ctrl_input_t *out)
{
    s->prev_marker = s->marker;
    s->prev_camera = s->camera;
    s->prev_face = s->face;
    intent_resolve(in, s->camera.yaw_rad, &s->intent);
    *out = s->intent;
}

static void face_step(sim_face_t *f, const ctrl_stats_t *st, uint64_t step, float dt_s)
{
    if (step >= f->next_blink) {
        f->blink_start = step;
        f->blinks++;
        f->next_blink = step + SIM_BLINK_CLOSE_STEPS + SIM_BLINK_OPEN_STEPS + blink_gap_steps(f, dt_s);
    }
    uint64_t t = step - f->blink_start;
    if (f->blinks == 0)
        f->blink = 0.0f;
    else if (t < SIM_BLINK_CLOSE_STEPS)
        f->blink = (float)(t + 1) / (float)SIM_BLINK_CLOSE_STEPS;
    else if (t < SIM_BLINK_CLOSE_STEPS + SIM_BLINK_OPEN_STEPS)
        f->blink = 1.0f - (float)(t + 1 - SIM_BLINK_CLOSE_STEPS) / (float)SIM_BLINK_OPEN_STEPS;
    else
        f->blink = 0.0f;
    float goal = fminf(1.0f, st->gait[CTRL_GAIT_RUN] + st->gait[CTRL_GAIT_JUMP]);
    f->effort += (goal - f->effort) * (1.0f - expf(-dt_s / SIM_EFFORT_TIME_S));
}

void sim_end_step(sim_t *s, const input_frame_t *in, bool first_step_of_frame, float dt_s)
{
    sim_marker_t *m = &s->marker;
    ctrl_get_stats(s->ctrl, &s->stats);
    const ctrl_stats_t *st = &s->stats;
    s->prev_pose = s->pose;
    s->pose = *ctrl_pose(s->ctrl);
    memcpy(s->prev_contact, s->contact, sizeof s->contact);
    ctrl_contact_pos(s->ctrl, s->contact);
    m->vel[0] = (st->root_pos[0] - m->pos[0]) / dt_s;
    m->vel[1] = (st->root_pos[2] - m->pos[2]) / dt_s;
    memcpy(m->pos, st->root_pos, sizeof m->pos);
    m->heading_rad = st->heading_rad;
    m->height_cm = st->head_height_cm;
    m->airborne = st->gait[CTRL_GAIT_JUMP] > SIM_AIRBORNE_GAIT;
    face_step(&s->face, st, s->step, dt_s);
    camera_update(&s->camera, in, first_step_of_frame, s->follow_on ? s->follow : m->pos, &s->level->terrain, dt_s);
    s->step++;
}

void sim_step(sim_t *s, const input_frame_t *in, bool first_step_of_frame, float dt_s)
{
    if (s->ctrl) {
        ctrl_input_t ci;
        sim_begin_step(s, in, &ci);
        ctrl_step(s->ctrl, &ci, dt_s);
        sim_end_step(s, in, first_step_of_frame, dt_s);
        return;
    }
    const sim_config_t *c = &s->config;
    const level_t *lvl = s->level;
    s->prev_marker = s->marker;
    s->prev_camera = s->camera;
    sim_marker_t *m = &s->marker;

    intent_resolve(in, s->camera.yaw_rad, &s->intent);
    const ctrl_input_t *it = &s->intent;

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

void sim_lerp_marker(const sim_marker_t *a, const sim_marker_t *b, float t, sim_marker_t *out)
{
    *out = *b;
    for (int i = 0; i < 3; i++)
        out->pos[i] = a->pos[i] + (b->pos[i] - a->pos[i]) * t;
    out->heading_rad = a->heading_rad + wrap_angle(b->heading_rad - a->heading_rad) * t;
    out->height_cm = a->height_cm + (b->height_cm - a->height_cm) * t;
}

void sim_lerp_pose(const pose_t *a, const pose_t *b, float t, pose_t *out)
{
    int n = b->joint_count;
    out->joint_count = n;
    for (int j = 0; j < n; j++) {
        const float *qa = a->rot[j], *qb = b->rot[j];
        float dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        float sa = (dot < 0.0f ? -1.0f : 1.0f) * (1.0f - t), len2 = 0.0f;
        for (int k = 0; k < 4; k++) {
            out->rot[j][k] = qa[k] * sa + qb[k] * t;
            len2 += out->rot[j][k] * out->rot[j][k];
        }
        float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
        for (int k = 0; k < 4; k++)
            out->rot[j][k] = len2 > 0.0f ? out->rot[j][k] * inv : qb[k];
        for (int k = 0; k < 3; k++)
            out->trans[j][k] = a->trans[j][k] + (b->trans[j][k] - a->trans[j][k]) * t;
    }
}

void sim_lerp_contacts(const float (*a)[3], const float (*b)[3], float t, float (*out)[3])
{
    for (int c = 0; c < CTRL_CONTACTS; c++)
        for (int k = 0; k < 3; k++)
            out[c][k] = a[c][k] + (b[c][k] - a[c][k]) * t;
}

void sim_lerp_face(const sim_face_t *a, const sim_face_t *b, float t, sim_face_t *out)
{
    *out = *b;
    out->blink = a->blink + (b->blink - a->blink) * t;
    out->effort = a->effort + (b->effort - a->effort) * t;
}

/* Simulation-side debug drawing: where the player asks to go, where the
 * character (or marker) is actually going, and the controller's own lines
 * (trajectory coloured by gait, contacts, joints). */
void sim_debug_lines(const sim_t *s, const sim_marker_t *m, unsigned ctrl_draw, debug_lines_t *lines)
{
    debug_lines_clear(lines);
    const ctrl_input_t *it = &s->intent;
    float base[3] = {m->pos[0], m->pos[1] + 5.0f, m->pos[2]};
    float want[3] = {base[0] + it->move_x * 120.0f, base[1], base[2] + it->move_z * 120.0f};
    float vel[3] = {base[0] + m->vel[0] * 0.5f, base[1] + 2.0f, base[2] + m->vel[1] * 0.5f};
    debug_lines_add(lines, base, want, DEBUG_RGBA(255, 220, 60, 255));
    debug_lines_add(lines, base, vel, DEBUG_RGBA(60, 200, 255, 255));
    if (s->ctrl)
        ctrl_debug_draw(s->ctrl, ctrl_draw, lines);
}
