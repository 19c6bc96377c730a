#include "game/camera.h"

#include "core/mathx.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

void camera_config_default(camera_config_t *cfg)
{
    cfg->min_pitch_rad = glm_rad(-10.0f);
    cfg->max_pitch_rad = glm_rad(75.0f);
    cfg->min_distance_cm = 150.0f;
    cfg->max_distance_cm = 2500.0f;
    cfg->follow_time_s = 0.15f;
    cfg->focus_height_cm = 110.0f;
    cfg->ground_clearance_cm = 30.0f;
    cfg->fov_y_rad = glm_rad(50.0f);
    cfg->near_cm = 10.0f;
    cfg->far_cm = 20000.0f;
}

/* Steps along focus->eye and raises the eye until every sample clears the
 * terrain; raising the eye (rather than shortening the arm) keeps the
 * target in view on hills. */
static void place_eye(camera_t *cam, const terrain_t *terrain)
{
    float cp = cosf(cam->pitch_rad), sp = sinf(cam->pitch_rad);
    float dir[3] = {-sinf(cam->yaw_rad) * cp, sp, -cosf(cam->yaw_rad) * cp};
    for (int k = 0; k < 3; k++)
        cam->eye[k] = cam->focus[k] + dir[k] * cam->distance_cm;
    if (!terrain || !terrain->heights)
        return;
    enum { SAMPLES = 8 };
    float lift = 0.0f;
    for (int i = 1; i <= SAMPLES; i++) {
        float t = (float)i / SAMPLES;
        float x = cam->focus[0] + dir[0] * cam->distance_cm * t;
        float z = cam->focus[2] + dir[2] * cam->distance_cm * t;
        float y = cam->focus[1] + dir[1] * cam->distance_cm * t;
        float need = terrain_height(terrain, x, z) + cam->config.ground_clearance_cm - y;
        /* Lifting the eye by L lifts the sample at t by L * t. */
        if (need / t > lift)
            lift = need / t;
    }
    cam->eye[1] += lift;
}

void camera_init(camera_t *cam, const float target[3], float yaw_rad)
{
    memset(cam, 0, sizeof *cam);
    camera_config_default(&cam->config);
    cam->yaw_rad = yaw_rad;
    cam->pitch_rad = glm_rad(20.0f);
    cam->distance_cm = 550.0f;
    camera_snap(cam, target, NULL);
}

void camera_snap(camera_t *cam, const float target[3], const terrain_t *terrain)
{
    cam->focus[0] = target[0];
    cam->focus[1] = target[1] + cam->config.focus_height_cm;
    cam->focus[2] = target[2];
    place_eye(cam, terrain);
}

void camera_update(camera_t *cam, const input_frame_t *in, bool apply_impulses, const float target[3],
                   const terrain_t *terrain, float dt_s)
{
    const camera_config_t *c = &cam->config;
    cam->yaw_rad += in->orbit_yaw_rate * dt_s;
    cam->pitch_rad += in->orbit_pitch_rate * dt_s;
    float log_dist = logf(cam->distance_cm) - in->zoom_rate * dt_s;
    if (apply_impulses) {
        cam->yaw_rad += in->orbit_yaw_impulse;
        cam->pitch_rad += in->orbit_pitch_impulse;
        log_dist -= in->zoom_impulse;
    }
    cam->yaw_rad = remainderf(cam->yaw_rad, 2.0f * GLM_PIf);
    cam->pitch_rad = clampf(cam->pitch_rad, c->min_pitch_rad, c->max_pitch_rad);
    cam->distance_cm = clampf(expf(log_dist), c->min_distance_cm, c->max_distance_cm);

    /* Frame-rate independent exponential follow. */
    float k = 1.0f - expf(-dt_s / c->follow_time_s);
    float goal[3] = {target[0], target[1] + c->focus_height_cm, target[2]};
    for (int i = 0; i < 3; i++)
        cam->focus[i] += (goal[i] - cam->focus[i]) * k;
    place_eye(cam, terrain);
}

void camera_matrices(const camera_t *cam, float aspect, float view[16], float proj[16])
{
    mat4 v, p;
    vec3 eye = {cam->eye[0], cam->eye[1], cam->eye[2]};
    vec3 focus = {cam->focus[0], cam->focus[1], cam->focus[2]};
    vec3 up = {0.0f, 1.0f, 0.0f};
    glm_lookat(eye, focus, up, v);
    glm_perspective(cam->config.fov_y_rad, aspect > 0.0f ? aspect : 1.0f, cam->config.near_cm, cam->config.far_cm, p);
    memcpy(view, v, sizeof v);
    memcpy(proj, p, sizeof p);
}

void camera_lerp(const camera_t *a, const camera_t *b, float t, camera_t *out)
{
    *out = *b;
    for (int i = 0; i < 3; i++) {
        out->eye[i] = a->eye[i] + (b->eye[i] - a->eye[i]) * t;
        out->focus[i] = a->focus[i] + (b->focus[i] - a->focus[i]) * t;
    }
}
