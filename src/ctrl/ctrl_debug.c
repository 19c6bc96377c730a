/* ctrl_debug.c: the controller's debug drawing as plain line segments
 * (core/debug_lines.h); the renderer draws them. */
#include "ctrl/ctrl_world.h"

#include <math.h>

/* Lines float a little above the terrain so they are not z-fighting it. */
#define CTRL_DEBUG_LIFT_CM 2.0f
#define CTRL_DEBUG_DIR_CM 25.0f
#define CTRL_DEBUG_CROSS_CM 6.0f
#define CTRL_DEBUG_CIRCLE_SEGMENTS 24

uint32_t ctrl_gait_rgba(const float gait[CTRL_GAITS])
{
    /* stand white, walk blue, run red, crouch green, jump yellow */
    static const float col[CTRL_GAITS][3] = {
        {1.0f, 1.0f, 1.0f}, {0.2f, 0.4f, 1.0f}, {1.0f, 0.2f, 0.2f},
        {0.2f, 0.9f, 0.3f}, {1.0f, 0.9f, 0.1f}, {0.0f, 0.0f, 0.0f},
    };
    float rgb[3] = {0.0f, 0.0f, 0.0f};
    for (int g = 0; g < CTRL_GAITS; g++)
        for (int k = 0; k < 3; k++)
            rgb[k] += gait[g] * col[g][k];
    unsigned u[3];
    for (int k = 0; k < 3; k++) {
        float v = rgb[k] < 0.0f ? 0.0f : (rgb[k] > 1.0f ? 1.0f : rgb[k]);
        u[k] = (unsigned)lrintf(v * 255.0f);
    }
    return DEBUG_RGBA(u[0], u[1], u[2], 255u);
}

static void lifted(const float p[3], float out[3])
{
    out[0] = p[0];
    out[1] = p[1] + CTRL_DEBUG_LIFT_CM;
    out[2] = p[2];
}

static void draw_trajectory(const ctrl_t *c, debug_lines_t *dl)
{
    const ctrl_traj_view_t *t = &c->traj;
    for (int i = 0; i + 1 < CTRL_TRAJ_FRAMES; i++) {
        float a[3], b[3];
        lifted(t->pos[i], a);
        lifted(t->pos[i + 1], b);
        /* Past is drawn dimmer than the future. */
        uint32_t rgba = ctrl_gait_rgba(t->gait[i]);
        if (i < CTRL_TRAJ_NOW)
            rgba = (rgba & 0x00FFFFFFu) | (0x80u << 24);
        debug_lines_add(dl, a, b, rgba);
    }
    /* The 12 network samples: a facing tick each, the current one longer. */
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        int i = j * CTRL_TRAJ_STEP;
        float a[3], b[3];
        lifted(t->pos[i], a);
        float len = i == CTRL_TRAJ_NOW ? 2.0f * CTRL_DEBUG_DIR_CM : CTRL_DEBUG_DIR_CM;
        b[0] = a[0] + t->dir[i][0] * len;
        b[1] = a[1];
        b[2] = a[2] + t->dir[i][1] * len;
        debug_lines_add(dl, a, b, ctrl_gait_rgba(t->gait[i]));
    }
}

static void draw_contacts(const ctrl_t *c, debug_lines_t *dl)
{
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        uint32_t rgba = c->foot.on[k] ? DEBUG_RGBA(40, 230, 60, 255) : DEBUG_RGBA(230, 60, 40, 255);
        for (int axis = 0; axis < 3; axis += 2) {
            float a[3] = {p[k][0], p[k][1], p[k][2]}, b[3] = {p[k][0], p[k][1], p[k][2]};
            a[axis] -= CTRL_DEBUG_CROSS_CM;
            b[axis] += CTRL_DEBUG_CROSS_CM;
            debug_lines_add(dl, a, b, rgba);
        }
        if (c->foot.weight[k] > 0.0f) {
            float a[3] = {c->foot.lock[k][0], p[k][1], c->foot.lock[k][2]};
            float b[3] = {a[0], a[1] + 10.0f * c->foot.weight[k], a[2]};
            debug_lines_add(dl, a, b, DEBUG_RGBA(40, 230, 60, 255));
        }
    }
}

static void draw_joints(const ctrl_t *c, debug_lines_t *dl)
{
    for (int b = 1; b < c->skel->joint_count; b++)
        debug_lines_add(dl, c->joint_pos[c->skel->joint_parent[b]], c->joint_pos[b], DEBUG_RGBA(255, 200, 120, 255));
    for (int side = 0; side < 2; side++) {
        float toe[CTRL_CONTACTS][3];
        ctrl_contact_pos(c, toe);
        debug_lines_add(dl, toe[2 * side], toe[2 * side + 1], DEBUG_RGBA(255, 200, 120, 255));
    }
}

static void ground_point(const ctrl_t *c, float x, float z, float out[3])
{
    out[0] = x;
    out[1] = ctrl_ground(c, x, z) + CTRL_DEBUG_LIFT_CM;
    out[2] = z;
}

static void draw_level(const ctrl_t *c, debug_lines_t *dl)
{
    const level_t *l = c->level;
    for (int i = 0; i < l->wall_count; i++) {
        const level_wall_t *w = &l->walls[i];
        float a[3], b[3];
        ground_point(c, w->x0, w->z0, a);
        ground_point(c, w->x1, w->z1, b);
        debug_lines_add(dl, a, b, DEBUG_RGBA(200, 200, 200, 255));
        float a2[3] = {a[0], a[1] + LEVEL_WALL_HEIGHT_CM, a[2]};
        float b2[3] = {b[0], b[1] + LEVEL_WALL_HEIGHT_CM, b[2]};
        debug_lines_add(dl, a2, b2, DEBUG_RGBA(200, 200, 200, 255));
    }
    for (int i = 0; i < l->crouch_count; i++) {
        const level_crouch_area_t *r = &l->crouch[i];
        float xs[4] = {r->min_x, r->max_x, r->max_x, r->min_x};
        float zs[4] = {r->min_z, r->min_z, r->max_z, r->max_z};
        for (int k = 0; k < 4; k++) {
            float a[3], b[3];
            ground_point(c, xs[k], zs[k], a);
            ground_point(c, xs[(k + 1) & 3], zs[(k + 1) & 3], b);
            a[1] += r->ceiling_cm;
            b[1] += r->ceiling_cm;
            debug_lines_add(dl, a, b, DEBUG_RGBA(60, 220, 90, 255));
        }
    }
    for (int i = 0; i < l->jump_count; i++) {
        const level_jump_area_t *j = &l->jump[i];
        for (int k = 0; k < CTRL_DEBUG_CIRCLE_SEGMENTS; k++) {
            float a0 = 6.2831853f * (float)k / CTRL_DEBUG_CIRCLE_SEGMENTS;
            float a1 = 6.2831853f * (float)(k + 1) / CTRL_DEBUG_CIRCLE_SEGMENTS;
            float a[3], b[3];
            ground_point(c, j->x + j->radius_cm * sinf(a0), j->z + j->radius_cm * cosf(a0), a);
            ground_point(c, j->x + j->radius_cm * sinf(a1), j->z + j->radius_cm * cosf(a1), b);
            debug_lines_add(dl, a, b, DEBUG_RGBA(255, 220, 30, 255));
        }
    }
}

void ctrl_debug_draw(const ctrl_t *c, unsigned flags, debug_lines_t *lines)
{
    if (!c || !lines || !c->level)
        return;
    if (flags & CTRL_DRAW_TRAJECTORY)
        draw_trajectory(c, lines);
    if (flags & CTRL_DRAW_CONTACTS)
        draw_contacts(c, lines);
    if (flags & CTRL_DRAW_JOINTS)
        draw_joints(c, lines);
    if (flags & CTRL_DRAW_LEVEL)
        draw_level(c, lines);
}
