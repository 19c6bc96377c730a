/* viewer: the character viewer (`strider --view character`), a mode of the
 * app loop: the fixed step orbits the camera and plays the pose clip instead
 * of moving the marker, and each drawn frame deforms the character on the CPU:
 *   pose (rest or a BVH frame, root kept in place and turned to face +Z) ->
 *   model matrices ->
 *   palette -> corrective weights from joint angles -> blend shapes (the
 *   slider weights as an active list; dense or sparse) -> skinning (LBS or
 *   DQS) written straight into the renderer's mapped vertex stream.
 * Call order: viewer_load() (files only, before any window: bad input fails
 * fast) -> viewer_gpu_init() after gfx_init -> per fixed step viewer_step()
 * -> per frame viewer_deform() then draw with viewer_camera() ->
 * viewer_shutdown().
 * Does NOT: make gl* calls (render/gfx_character does), read devices, or
 * allocate after viewer_load() (every scratch array is sized there).
 * Memory: the viewer owns the loaded character, clip and scratch arrays.
 */
#ifndef STRIDER_APP_VIEWER_H
#define STRIDER_APP_VIEWER_H

#include "anim/bshape.h"
#include "anim/bvh.h"
#include "anim/pose.h"
#include "anim/skin.h"
#include "app/camera.h"
#include "app/cli.h"
#include "asset/character.h"
#include "render/gfx_character.h"
#include "world/terrain.h"

#include <stdbool.h>
#include <stdint.h>

/* One chr mesh's bind-pose data in the layouts the jobs take. */
typedef struct viewer_mesh {
    uint32_t vertex_count;
    uint32_t first;              /* first vertex in the renderer's stream */
    float *pos, *nrm, *tan, *ao; /* bind pose: 3, 3, 4, 1 floats per vertex */
    uint16_t *joints;            /* 4 per vertex */
    float *weights;              /* 4 per vertex */
    bshape_set_t set;            /* its blend shapes and correctives */
    float *m_pos, *m_nrm, *m_tan, *m_ao; /* morphed vertices (meshes with targets) */
    uint32_t *active_target;     /* active-list scratch, set.target_count entries */
    float *active_weight;
    int active_count;            /* entries used by the last deform */
} viewer_mesh;

typedef struct viewer_t {
    chr_character_t chr;
    bool chr_loaded;
    gfx_character *gfx;
    viewer_mesh mesh[CHR_MAX_MESHES];
    float *shape_weight;       /* chr.shape_count slider values */
    float *corrective_weight;  /* chr.corrective_count, from the pose */
    int active_shapes;         /* shapes with a non-zero weight at the last deform */
    /* Pose */
    bvh_t bvh;
    bool have_bvh;
    bvh_map_t map;
    int frame;                 /* current clip frame */
    bool playing;
    double clip_time_s;
    pose_bind_t bind;
    pose_t pose;
    float model_mat[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float model_rot[SKEL_MAX_JOINTS][4];
    float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float dq[SKEL_MAX_JOINTS][POSE_DQ_FLOATS];
    float rest_foot_y_cm;      /* lowest ankle's height above the soles at rest */
    float lift_cm;             /* model -> world offset that keeps that foot at that height */
    int foot_joint[2];
    /* Settings the menu edits */
    bool dense;                /* dense instead of sparse blend shapes */
    bool correctives;          /* joint-angle corrective shapes on */
    bool auto_orbit;
    bool show_character;
    int method;                /* skin_method */
    /* Camera */
    float origin[3];           /* where the character stands, cm */
    float camera_target[3];    /* the camera orbits this point (plus its focus height) */
    camera_t camera, prev_camera;
    float idle_s;              /* since the user last moved the camera */
    bool camera_touched;       /* the user has moved the camera at least once */
    uint64_t deform_count;
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
