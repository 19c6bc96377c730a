/* viewer: the character viewer (`strider --view character`), a mode of the
 * app loop: the fixed step orbits the camera and plays the pose clip instead
 * of moving the character, and each drawn frame deforms the character on the
 * CPU (app/figure: pose -> palette -> correctives + blend shapes from the
 * sliders -> skinning into the renderer's mapped stream), the pose being the
 * rest pose or a BVH frame, root kept in place and turned to face +Z.
 * Call order: viewer_load() (files only, before any window: bad input fails
 * fast) -> viewer_gpu_init() after gfx_init -> per fixed step viewer_step()
 * -> per frame viewer_deform() then draw with viewer_camera() ->
 * viewer_shutdown().
 * Does NOT: make gl* calls (render/gfx_character does), read devices, or
 * allocate after viewer_load() (every scratch array is sized there).
 * Memory: the viewer owns the figure (character and scratch) and the clip.
 */
#ifndef STRIDER_APP_VIEWER_H
#define STRIDER_APP_VIEWER_H

#include "anim/bvh.h"
#include "anim/pose.h"
#include "app/camera.h"
#include "app/cli.h"
#include "app/figure.h"
#include "world/terrain.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct viewer_t {
    figure_t fig;              /* character, deformation scratch and the menu's skinning settings */
    /* Pose */
    bvh_t bvh;
    bool have_bvh;
    bvh_map_t map;
    int frame;                 /* current clip frame */
    bool playing;
    double clip_time_s;
    pose_t pose;
    float rest_foot_y_cm;      /* lowest ankle's height above the soles at rest */
    float lift_cm;             /* model -> world offset that keeps that foot at that height */
    int foot_joint[2];
    /* Settings the menu edits (the skinning ones live in fig) */
    bool auto_orbit;
    /* Camera */
    float origin[3];           /* where the character stands, cm */
    float camera_target[3];    /* the camera orbits this point (plus its focus height) */
    camera_t camera, prev_camera;
    float idle_s;              /* since the user last moved the camera */
    bool camera_touched;       /* the user has moved the camera at least once */
} viewer_t;

/* Loads the character, the optional clip and applies --expression; returns
 * 0, or EXIT_RUNTIME (missing/corrupt file) / EXIT_USAGE (unknown shape
 * name, frame out of range) after one logged line. */
int viewer_load(viewer_t *v, const app_options *opt);
/* Uploads to the renderer and places the camera around ORIGIN (feet, cm). */
bool viewer_gpu_init(viewer_t *v, const float origin[3], bool face_closeup, const terrain_t *terrain);
void viewer_shutdown(viewer_t *v);

void viewer_step(viewer_t *v, const input_frame *in, bool first_step_of_frame, const terrain_t *terrain,
                 float dt_s);
/* Pose -> blend shapes -> skinning -> the renderer's stream. */
bool viewer_deform(viewer_t *v);
void viewer_camera(const viewer_t *v, float alpha, camera_t *out);

void viewer_set_frame(viewer_t *v, int frame);
void viewer_reset_shapes(viewer_t *v);

#endif
