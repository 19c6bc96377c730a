/* viewer: the character viewer (`strider --view character`), a mode of the
 * app loop: the fixed step orbits the camera, plays the pose clip and the
 * facial animation; each drawn frame deforms the character through
 * app/figure (pose -> palette -> correctives + blend shapes -> skinning),
 * root kept in place and turned to face +Z. Facial animation: a vertex clip
 * (.vac, the head talking) is tweened into its mesh's bind pose before
 * figure_deform() (tween, then morph and skin); an expression curve drives
 * some shape weights, and the menu locks those sliders while it plays.
 * Call order: viewer_load() (files only, before any window: bad input fails
 * fast) -> viewer_gpu_init() after gfx_init -> per fixed step viewer_step()
 * -> per frame viewer_deform() then draw with viewer_camera() -> viewer_shutdown().
 * Does NOT: make gl* calls (render/gfx_character does), read devices, or
 * allocate after viewer_load() (every scratch array is sized there).
 * Memory: the viewer owns the figure, the pose clip and the vertex clip.
 */
#ifndef STRIDER_APP_VIEWER_H
#define STRIDER_APP_VIEWER_H

#include "anim/bvh.h"
#include "anim/excurve.h"
#include "anim/pose.h"
#include "anim/tween.h"
#include "app/cli.h"
#include "app/figure.h"
#include "asset/clip.h"
#include "asset/facemap.h"
#include "game/camera.h"
#include "world/terrain.h"

#include <stdbool.h>
#include <stdint.h>

/* The shipped vertex clip, relative to the data folder. */
#define VIEWER_DEFAULT_CLIP "assets/clips/talk.vac"

/* A vertex-animated clip on one mesh of the figure. */
typedef struct viewer_vclip_t {
    clip_t clip;
    bool loaded;
    char name[64];                        /* file name for the menu */
    int mesh;                             /* figure mesh it animates */
    float *keys;                          /* key_count x vertex_count x 3: bind pose + offsets, cm */
    float *rest_pos, *rest_nrm, *rest_ao; /* the mesh's bind pose of the animated vertices */
    bool on;                              /* tween the mesh from the clip */
    bool playing;                         /* the fixed step advances time_s */
    bool applied;                         /* the mesh arrays hold a tweened pose (restore when off) */
    int mode;                             /* tween_mode_t */
    double time_s;
} viewer_vclip_t;

/* An expression curve driving some shape weights. */
typedef struct viewer_curve_t {
    int index; /* built-in curve (excurve_builtin), -1 = none */
    const excurve_clip_t *clip;
    /* Per track, the character's shapes that show it (anim/facemap.h); none
     * when the character cannot. */
    facemap_term_t term[EXCURVE_MAX_TRACKS][FACEMAP_TERMS_MAX];
    int terms[EXCURVE_MAX_TRACKS];
    bool playing;
    double time_s;
} viewer_curve_t;

/* The expression curve the menu offers first (paused) without --curve. */
#define VIEWER_DEFAULT_CURVE "smile-surprise-blink"
/* Where the Bake button writes when --bake does not say. */
#define VIEWER_DEFAULT_BAKE "baked.chr"

typedef struct viewer_t {
    figure_t fig; /* character, deformation scratch and the menu's skinning settings */
    /* Pose: clip frames on the controller's skeleton (fig.rig.source), then
     * onto the character's through the figure's rig */
    bvh_t bvh;
    bool have_bvh;
    bvh_map_t map;
    pose_t src_pose;
    int frame; /* current clip frame */
    bool playing;
    double clip_time_s;
    pose_t pose;
    float rest_foot_y_cm; /* lowest ankle's height above the soles at rest */
    float lift_cm;        /* model -> world offset that keeps that foot at that height */
    int foot_joint[2];
    viewer_vclip_t vclip;
    viewer_curve_t curve;
    /* Bake (figure_bake_save): the path, a request for the next frame, the last outcome */
    char bake_path[PATHS_MAX];
    bool bake_pending;
    char bake_status[160];
    int bake_failures; /* menu bakes that could not be written (the run then exits 1) */
    /* Settings the menu edits (the skinning ones live in fig) */
    bool auto_orbit;
    /* Camera */
    float origin[3];        /* where the character stands, cm */
    float camera_target[3]; /* the camera orbits this point (plus its focus height) */
    camera_t camera, prev_camera;
    float idle_s;        /* since the user last moved the camera */
    bool camera_touched; /* the user has moved the camera at least once */
} viewer_t;

/* Loads the character, the optional pose clip, the vertex clip (--clip, or
 * the shipped one when it fits the character) and applies --expression,
 * --curve and the clip options; returns 0, or EXIT_RUNTIME (missing/corrupt
 * file, a --clip that does not fit) / EXIT_USAGE (unknown shape or curve
 * name, frame out of range) after one logged line. */
int viewer_load(viewer_t *v, const app_options_t *opt);
/* Uploads to the renderer and places the camera around ORIGIN (feet, cm). */
bool viewer_gpu_init(viewer_t *v, const float origin[3], bool face_closeup, const terrain_t *terrain);
void viewer_shutdown(viewer_t *v);

void viewer_step(viewer_t *v, const input_frame_t *in, bool first_step_of_frame, const terrain_t *terrain, float dt_s);
/* Pose -> blend shapes -> skinning -> the renderer's stream. */
bool viewer_deform(viewer_t *v);
void viewer_camera(const viewer_t *v, float alpha, camera_t *out);

void viewer_set_frame(viewer_t *v, int frame);
void viewer_reset_shapes(viewer_t *v);

/* Selects built-in expression curve INDEX (-1: none), resolving its shapes;
 * the curve keeps its time and play state. */
void viewer_set_curve(viewer_t *v, int index);
/* Asks for the current shape weights to be baked into bake_path as a new
 * .chr at the next viewer_deform() (the vertex clip is left out). */
void viewer_request_bake(viewer_t *v);
/* Moves the curve to TIME_S and sets the weights it drives (scrubbing). */
void viewer_set_curve_time(viewer_t *v, double time_s);
/* Whether shape S is driven by the playing curve (its slider is locked). */
bool viewer_shape_locked(const viewer_t *v, uint32_t s);

#endif
