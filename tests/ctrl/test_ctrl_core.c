/* Unit tests for ctrl.c (the controller's life cycle, the order of a step,
 * the accessors), without running the network: the shared helpers (a
 * quaternion's conjugate, the leg joints, the model from the pose, the head
 * top and toe tips); ctrl_create() refusing a missing or wrong network or
 * skeleton, an unprepared phase mode, and what it derives (the joints, the
 * legs' lengths, the seed's hip height); ctrl_reset() (the root on the
 * ground under the spawn, facing its heading, the seed pose standing with
 * its ankles 5 cm up, the trajectory, targets and stats, a spawn in a wall
 * or not finite); a non-finite network output resetting the pose at the
 * root; ctrl_step_begin()'s step length; the stats, ctrl_sample() and the
 * setters. It includes ctrl_internal.h, as the tests of one concern do.
 * Usage: test_ctrl_core TEST --net PATH
 * TEST: helpers create reset nan step_begin accessors. PATH: any network
 * with the shipped layout (the tiny fixture: nothing here runs it). Runs
 * from the repository root (the skeleton is read from assets/).
 *
 * The level: 121 x 121 samples 20 cm apart (x and z from -1200 to 1200 cm),
 * flat at height 0 but for a block raised to 30 cm (x, z in [200, 400]), and
 * a wall from (600, -600) to (600, -200) of radius 15.
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_internal.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Float rounding of the geometry below (cm). */
#define TOL 1e-3f
/* The seed pose's ankles above the ground (ctrl.c). */
#define STAND_ANKLE_CM 5.0f

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-core-test\n"
                                 "flat 121 121 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "wall 600 -600 600 -200 15\n";

static ctrl_fixture_t fx;

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-core-test.lvl"))
        return false;
    terrain_t *t = &fx.level.terrain;
    ctrl_fixture_set_heights(t, 200.0f, 200.0f, 400.0f, 400.0f, 30.0f);
    return true;
}

static ctrl_t *reset_at(float x, float z, float heading)
{
    ctrl_spawn_t s = {x, z, heading};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

static void quat_axis(float x, float y, float z, float angle, float out[4])
{
    float n = sqrtf(x * x + y * y + z * z), s = sinf(0.5f * angle) / n;
    out[0] = x * s;
    out[1] = y * s;
    out[2] = z * s;
    out[3] = cosf(0.5f * angle);
}

/* A pose off the rest one: the hip moved and turned, every joint bent. */
static void bend_pose(ctrl_t *c, pose_t *p)
{
    *p = c->rest;
    for (int b = 0; b < CTRL_JOINTS; b++)
        quat_axis(0.3f + 0.1f * (float)b, 1.0f - 0.05f * (float)b, 0.2f, 0.1f + 0.03f * (float)b, p->rot[b]);
    p->trans[c->j.hip][0] = 12.0f;
    p->trans[c->j.hip][1] = 85.0f;
    p->trans[c->j.hip][2] = -7.0f;
}

/* ---- helpers -------------------------------------------------------------------- */

static void test_helpers(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f, 0.0f);
    /* The conjugate undoes the rotation. */
    float q[4], inv[4], id[4], v[3] = {1.0f, -2.0f, 3.0f}, w[3], back[3];
    quat_axis(0.3f, -0.5f, 0.8f, 1.1f, q);
    ctrl_quat_conj(q, inv);
    pose_quat_mul(q, inv, id);
    CHECK(fabsf(id[0]) < 1e-6f && fabsf(id[1]) < 1e-6f && fabsf(id[2]) < 1e-6f && fabsf(id[3] - 1.0f) < 1e-6f);
    pose_quat_rotate(q, v, w);
    pose_quat_rotate(inv, w, back);
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(back[k], v[k], 1e-5f);
    /* The legs: thigh, shin and foot of each side, nothing else. */
    int legs = 0;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        const char *n = fx.skel.joint_name[b];
        bool want = strstr(n, "Thigh") || strstr(n, "Shin") || strstr(n, "Foot");
        CHECKF(ctrl_is_leg(c, b) == want, "joint %s: is_leg %d", n, ctrl_is_leg(c, b));
        legs += ctrl_is_leg(c, b);
    }
    CHECK(legs == 6);
    /* The model: each joint its parent's position plus the rest offset
     * turned by the parent's world rotation, and turned by its own. */
    bend_pose(c, &c->pose);
    ctrl_update_model(c);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        int par = fx.skel.joint_parent[b];
        float want[3], rot[4];
        if (par < 0) {
            memcpy(want, c->pose.trans[b], sizeof want);
            memcpy(rot, c->pose.rot[b], sizeof rot);
        } else {
            pose_quat_rotate(c->model_rot[par], fx.skel.joint_offset[b], want);
            for (int k = 0; k < 3; k++)
                want[k] += c->joint_pos[par][k];
            pose_quat_mul(c->model_rot[par], c->pose.rot[b], rot);
        }
        for (int k = 0; k < 3; k++) {
            CHECKF(fabsf(c->joint_pos[b][k] - want[k]) < TOL, "joint %d axis %d: %.4f, want %.4f", b, k,
                   (double)c->joint_pos[b][k], (double)want[k]);
            CHECK(c->joint_pos[b][k] == c->model[b][4 * k + 3]);
        }
        float d = fabsf(rot[0] * c->model_rot[b][0] + rot[1] * c->model_rot[b][1] + rot[2] * c->model_rot[b][2] +
                        rot[3] * c->model_rot[b][3]);
        CHECKF(d > 1.0f - 1e-5f, "joint %d: turned off (dot %.7f)", b, (double)d);
    }
    /* The head top: the head's offset turned with it; the toe tips: the
     * feet's end sites. */
    float top[3], want[3];
    const float off[3] = {CTRL_HEAD_TOP_X_CM, CTRL_HEAD_TOP_Y_CM, CTRL_HEAD_TOP_Z_CM};
    ctrl_head_top(c, top);
    pose_quat_rotate(c->model_rot[c->j.head], off, want);
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(top[k], c->joint_pos[c->j.head][k] + want[k], TOL);
    float toes[2][3];
    ctrl_contact_points(c, toes);
    for (int side = 0; side < 2; side++) {
        pose_quat_rotate(c->model_rot[c->j.foot[side]], fx.skel.end_offset[c->j.toe_end[side]], want);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(toes[side][k], c->joint_pos[c->j.foot[side]][k] + want[k], TOL);
    }
}

/* ---- ctrl_create ------------------------------------------------------------------ */

/* ctrl_create() on DESC refuses it (NULL). */
static void check_refused(const char *what, const ctrl_desc_t *desc)
{
    ctrl_t *c = ctrl_create(desc);
    CHECKF(c == NULL, "%s: created", what);
    ctrl_destroy(c);
}

static void test_create(void)
{
    ctrl_desc_t d = {.net = &fx.net, .skel = &fx.skel};
    check_refused("no desc", NULL);
    check_refused("no network", &(ctrl_desc_t){.skel = &fx.skel});
    check_refused("no skeleton", &(ctrl_desc_t){.net = &fx.net});
    /* Another network layout (a shallow copy, never run). */
    pfnn_network_t *net = malloc(sizeof *net);
    skel_t *s = malloc(sizeof *s);
    if (!net || !s) {
        CHECK(!"out of memory");
        free(net);
        free(s);
        return;
    }
    *net = fx.net;
    net->n_in += 1;
    check_refused("a wider input", &(ctrl_desc_t){.net = net, .skel = &fx.skel});
    *net = fx.net;
    net->has_mode[PFNN_PHASE_LINEAR] = false;
    check_refused("an unprepared mode", &(ctrl_desc_t){.net = net, .skel = &fx.skel, .mode = PFNN_PHASE_LINEAR});
    free(net);
    /* Skeletons: a joint short, a leg joint or toe site renamed, a leg
     * that is not a chain. */
    *s = fx.skel;
    s->joint_count--;
    check_refused("20 joints", &(ctrl_desc_t){.net = &fx.net, .skel = s});
    *s = fx.skel;
    snprintf(s->joint_name[skel_find(s, "rShin")], SKEL_NAME_MAX, "rKnee");
    check_refused("no rShin", &(ctrl_desc_t){.net = &fx.net, .skel = s});
    *s = fx.skel;
    snprintf(s->end_name[skel_find_end(s, "lFoot_end")], SKEL_NAME_MAX, "lToe");
    check_refused("no lFoot_end", &(ctrl_desc_t){.net = &fx.net, .skel = s});
    *s = fx.skel;
    s->joint_parent[skel_find(s, "lFoot")] = skel_find(s, "lThigh");
    check_refused("lFoot under lThigh", &(ctrl_desc_t){.net = &fx.net, .skel = s});
    free(s);

    /* Accepted: the joints by name, the legs' lengths thigh to ankle, the
     * options. */
    d.ik_off = true;
    d.mode = PFNN_PHASE_LINEAR;
    ctrl_t *c = ctrl_create(&d);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(!ctrl_get_ik(c) && ctrl_get_mode(c) == PFNN_PHASE_LINEAR);
    CHECK(c->j.hip == 0 && c->j.head == skel_find(&fx.skel, "head"));
    const char *names[2][3] = {{"lThigh", "lShin", "lFoot"}, {"rThigh", "rShin", "rFoot"}};
    for (int side = 0; side < 2; side++) {
        CHECK(c->j.thigh[side] == skel_find(&fx.skel, names[side][0]));
        CHECK(c->j.shin[side] == skel_find(&fx.skel, names[side][1]));
        CHECK(c->j.foot[side] == skel_find(&fx.skel, names[side][2]));
        CHECK(c->j.toe_end[side] == skel_find_end(&fx.skel, side ? "rFoot_end" : "lFoot_end"));
        /* cmu21: 36.8199 cm of thigh (0, -36.8199, 0.73152) and 45.4 of
         * shin (0.73152, -45.1104, -5.12065). */
        float want = sqrtf(36.8199f * 36.8199f + 0.73152f * 0.73152f) +
                     sqrtf(0.73152f * 0.73152f + 45.1104f * 45.1104f + 5.12065f * 5.12065f);
        CHECK_NEAR(c->leg_len[side], want, 1e-3f);
    }
    ctrl_destroy(c);
    ctrl_destroy(NULL);
}

/* ---- ctrl_reset ------------------------------------------------------------------- */

/* The seed at (X, GROUND, Z) facing HEADING, after a reset. */
static void check_seed(const char *what, const ctrl_t *c, float x, float ground, float z, float heading)
{
    const float dir[2] = {sinf(heading), cosf(heading)};
    bool traj = true;
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++) {
        traj &= c->traj.pos[i][0] == x && c->traj.pos[i][1] == ground && c->traj.pos[i][2] == z;
        traj &= fabsf(c->traj.dir[i][0] - dir[0]) < 1e-6f && fabsf(c->traj.dir[i][1] - dir[1]) < 1e-6f;
        traj &= c->traj.gait[i][0] == 1.0f;
        for (int g = 1; g < CTRL_GAITS; g++)
            traj &= c->traj.gait[i][g] == 0.0f;
    }
    CHECKF(traj, "%s: the trajectory is not the spawn's", what);
    /* Standing still, facing the heading. */
    CHECK(c->target_vel[0] == 0.0f && c->target_vel[1] == 0.0f);
    CHECK_NEAR(c->target_dir[0], dir[0], 1e-6f);
    CHECK_NEAR(c->target_dir[1], dir[1], 1e-6f);
    CHECK(c->base[0] == 1.0f && c->base[1] == 0.0f && c->base[2] == 0.0f && c->crouch == 0.0f && c->jump == 0.0f);
    CHECK(c->phase == 0.0f && c->speed_ratio == 1.0f && c->landing_steps == 0 && !c->ground_held);
    CHECK(c->ceiling_drop == 0.0f && !c->have_net_rot && c->strafe_amount == 0.0f);
    /* The hip over the spawn, turned to the heading; the legs straight,
     * the ankles 5 cm over the ground. */
    const float *hip = c->joint_pos[c->j.hip];
    CHECK_NEAR(hip[0], x, TOL);
    CHECK_NEAR(hip[2], z, TOL);
    for (int side = 0; side < 2; side++)
        CHECK_NEAR(c->joint_pos[c->j.foot[side]][1], ground + STAND_ANKLE_CM, TOL);
    float fwd[3] = {0.0f, 0.0f, 1.0f}, turned[3];
    pose_quat_rotate(c->model_rot[c->j.hip], fwd, turned);
    CHECK_NEAR(turned[0], dir[0], 1e-5f);
    CHECK_NEAR(turned[2], dir[1], 1e-5f);
    /* The previous joints for the first input: the seed, still. */
    bool prev = true;
    for (int b = 0; b < CTRL_JOINTS; b++)
        for (int k = 0; k < 3; k++)
            prev &= fabsf(c->joint_world[b][k] - c->joint_pos[b][k]) < TOL && c->joint_vel_world[b][k] == 0.0f;
    CHECKF(prev, "%s: the fed-back joints are not the seed's", what);
    CHECK(c->prev_root[0] == x && c->prev_root[1] == ground && c->prev_root[2] == z && c->prev_yaw == heading);
    /* The stats. */
    CHECK(c->stats.root_pos[0] == x && c->stats.root_pos[1] == ground && c->stats.root_pos[2] == z);
    CHECK(c->stats.heading_rad == heading && c->stats.steps == 0 && c->stats.nan_resets == 0);
    CHECK_NEAR(c->stats.hip_height_cm, hip[1] - ground, TOL);
    CHECK_NEAR(c->stats.head_height_cm, c->joint_pos[c->j.head][1] - ground, TOL);
    CHECK(c->stats.gait[0] == 1.0f);
    /* The feet reset to the seed's points, the output cleared. */
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    CHECK(c->foot.fresh && memcmp(p, c->foot.lock, sizeof p) == 0 && memcmp(p, c->foot.shown, sizeof p) == 0);
    bool zero = true;
    for (int i = 0; i < PFNN_N_OUT; i++)
        zero &= c->y[i] == 0.0f;
    CHECKF(zero, "%s: the output is not cleared", what);
}

/* Leaves junk in everything a reset sets. */
static void dirty(ctrl_t *c)
{
    bend_pose(c, &c->pose);
    ctrl_update_model(c);
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++)
        c->traj.pos[i][1] = 99.0f;
    c->target_vel[0] = 100.0f;
    c->base[0] = 0.0f;
    c->base[2] = 1.0f;
    c->crouch = c->jump = 0.5f;
    c->phase = 2.0f;
    c->speed_ratio = 0.3f;
    c->landing_steps = 4;
    c->ground_held = true;
    c->ceiling_drop = 10.0f;
    c->have_net_rot = true;
    c->strafe_amount = 1.0f;
    c->stats.steps = 77;
    c->stats.nan_resets = 2;
    c->joint_vel_world[3][1] = 5.0f;
    c->foot.fresh = false;
    c->foot.on[1] = true;
    for (int i = 0; i < PFNN_N_OUT; i++)
        c->y[i] = 1.0f;
}

static void test_reset(void)
{
    ctrl_t *c = fx.ctrl;
    dirty(c);
    reset_at(-150.0f, 80.0f, 0.7f);
    check_seed("flat", c, -150.0f, 0.0f, 80.0f, 0.7f);
    /* On the block: the root at its height, the ankles 5 cm over it. */
    dirty(c);
    reset_at(300.0f, 310.0f, -2.0f);
    check_seed("on the block", c, 300.0f, 30.0f, 310.0f, -2.0f);
    /* Not finite: at the origin, facing +z. */
    dirty(c);
    reset_at(NAN, INFINITY, NAN);
    check_seed("not finite", c, 0.0f, 0.0f, 0.0f, 0.0f);
    /* In the wall: pushed out of it, the root's radius clear. */
    reset_at(605.0f, -400.0f, 0.0f);
    float x = c->traj.pos[CTRL_TRAJ_NOW][0], z = c->traj.pos[CTRL_TRAJ_NOW][2];
    CHECKF(fabsf(x - 600.0f) >= 15.0f + CTRL_ROOT_RADIUS_CM - 0.01f, "spawned in the wall: the root at x %.2f",
           (double)x);
    check_seed("pushed out of the wall", c, x, 0.0f, z, 0.0f);
}

/* ---- a non-finite output ---------------------------------------------------------- */

static void test_nan(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f, 0.0f);
    /* Walked on to (310, 30, 290) on the block, facing 1.2 rad. */
    dirty(c);
    c->stats.nan_resets = 0;
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++) {
        c->traj.pos[i][0] = 310.0f;
        c->traj.pos[i][1] = 30.0f;
        c->traj.pos[i][2] = 290.0f;
        c->traj.dir[i][0] = sinf(1.2f);
        c->traj.dir[i][1] = cosf(1.2f);
    }
    float y[PFNN_N_OUT];
    for (int i = 0; i < PFNN_N_OUT; i++)
        y[i] = 0.5f;
    y[200] = NAN;
    c->stats.steps = 12;
    ctrl_step_finish(c, y);
    /* The seed where the root was; counted, once logged. */
    CHECK(c->stats.nan_resets == 1 && c->nan_logged && c->stats.steps == 12);
    c->stats.nan_resets = 0;
    c->stats.steps = 0;
    check_seed("reset after NaN", c, 310.0f, 30.0f, 290.0f, 1.2f);
    /* The root itself lost: the last root the stats had, facing +z. */
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++)
        c->traj.pos[i][0] = NAN;
    y[3] = INFINITY;
    ctrl_step_finish(c, y);
    CHECK(c->stats.nan_resets == 1);
    c->stats.nan_resets = 0;
    check_seed("reset after NaN, the root lost", c, 310.0f, 30.0f, 290.0f, 0.0f);
}

/* ---- ctrl_step_begin -------------------------------------------------------------- */

static void test_step_begin(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f, 0.0f);
    ctrl_input_t in = {0};
    const float bad[] = {0.0f, -0.01f, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c->phase = 0.25f * (float)(i + 1);
        ctrl_step_begin(c, &in, bad[i]);
        CHECKF(c->step_dt_s == 1.0f / CTRL_NET_FPS, "dt %g: a step of %g s", (double)bad[i], (double)c->step_dt_s);
        CHECK(c->stats.steps == i + 1);
        CHECK(c->last_phase == c->phase && ctrl_last_phase(c) == c->phase);
        float ph = -1.0f;
        CHECK(ctrl_step_input(c, &ph) == c->x && ph == c->phase);
    }
    ctrl_step_begin(c, &in, 0.025f);
    CHECK(c->step_dt_s == 0.025f && c->stats.steps == 5);
    /* The input is made for this step: the trajectory's root, standing. */
    CHECK(ctrl_last_input(c) == c->x);
    CHECK(isfinite(c->x[0]) && isfinite(c->x[PFNN_N_IN - 1]));
}

/* ---- accessors and setters ----------------------------------------------------------- */

static void test_accessors(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f, 0.0f);
    /* Stats: the raw contact outputs, the contacts and their weights. */
    const float v[CTRL_CONTACTS] = {0.1f, 0.7f, 0.45f, 0.9f};
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        c->y[4 + k] = v[k];
        c->foot.on[k] = k & 1;
        c->foot.weight[k] = 0.25f * (float)k;
    }
    c->stats.root_speed_cm_s = 123.0f;
    ctrl_stats_t st;
    ctrl_get_stats(c, &st);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        CHECK(st.contact_value[k] == v[k] && st.contact[k] == (bool)(k & 1) && st.lock_weight[k] == 0.25f * (float)k);
    CHECK(st.root_speed_cm_s == 123.0f && ctrl_root_speed_cm_s(c) == 123.0f);
    /* ctrl_sample: the model of another pose, as ctrl_update_model would
     * make it, the controller's own left alone. */
    pose_t p;
    bend_pose(c, &p);
    ctrl_sample_t s;
    float before[CTRL_JOINTS][3];
    memcpy(before, c->joint_pos, sizeof before);
    ctrl_sample(c, &p, &s);
    CHECK(memcmp(before, c->joint_pos, sizeof before) == 0);
    c->pose = p;
    ctrl_update_model(c);
    float pts[CTRL_CONTACTS][3], top[3];
    ctrl_contact_pos(c, pts);
    ctrl_head_top(c, top);
    for (int k = 0; k < 3; k++) {
        for (int b = 0; b < CTRL_JOINTS; b++)
            CHECK_NEAR(s.joint[b][k], c->joint_pos[b][k], TOL);
        for (int i = 0; i < CTRL_CONTACTS; i++)
            CHECK_NEAR(s.point[i][k], pts[i][k], TOL);
        CHECK_NEAR(s.head_top[k], top[k], TOL);
    }
    CHECK(ctrl_pose(c) == &c->pose && ctrl_joint_pos(c) == (const float(*)[3])c->joint_pos);
    CHECK(ctrl_last_output(c) == c->y && ctrl_trajectory(c) == &c->traj);
    /* The state's size: the struct, the network's workspace and the ledge
     * map of its own (a byte and a float a sample). */
    size_t samples = (size_t)fx.level.terrain.width * (size_t)fx.level.terrain.depth;
    CHECK(ctrl_state_bytes(c) >= sizeof(ctrl_t) + (size_t)PFNN_N_IN * sizeof(float) + samples * (1 + sizeof(float)));
    /* Modes: an unprepared one is refused. */
    ctrl_set_mode(c, PFNN_PHASE_CUBIC);
    CHECK(ctrl_get_mode(c) == PFNN_PHASE_CUBIC);
    fx.net.has_mode[PFNN_PHASE_LINEAR] = false;
    ctrl_set_mode(c, PFNN_PHASE_LINEAR);
    fx.net.has_mode[PFNN_PHASE_LINEAR] = true;
    CHECK(ctrl_get_mode(c) == PFNN_PHASE_CUBIC);
    ctrl_set_mode(c, PFNN_PHASE_CONSTANT);
    CHECK(ctrl_get_mode(c) == PFNN_PHASE_CONSTANT);
    ctrl_set_ik(c, false);
    CHECK(!ctrl_get_ik(c));
    ctrl_set_ik(c, true);
    CHECK(ctrl_get_ik(c));
    /* Obstacles: none without an array or a count. */
    const float obs[2][CTRL_OBSTACLE_FLOATS] = {{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
    ctrl_set_obstacles(c, obs, 2);
    CHECK(c->obstacle == obs && c->obstacle_count == 2);
    ctrl_set_obstacles(c, obs, -1);
    CHECK(c->obstacle_count == 0);
    ctrl_set_obstacles(c, NULL, 2);
    CHECK(c->obstacle_count == 0);
}

/* ---- main ------------------------------------------------------------------------ */

static const ctrl_fixture_group_t groups[] = {
    {"helpers", test_helpers}, {"create", test_create},         {"reset", test_reset},
    {"nan", test_nan},         {"step_begin", test_step_begin}, {"accessors", test_accessors},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_core", &fx, make_level, NULL, groups,
                             (int)(sizeof groups / sizeof groups[0]));
}
