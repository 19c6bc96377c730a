/* figure: the deformable character shared by the game and the viewer. It
 * owns the loaded .chr, each mesh's bind-pose arrays and blend-shape sets,
 * the shape/corrective weights and the per-frame scratch, and turns a local
 * pose into the renderer's vertex stream on the CPU:
 *   pose -> model matrices -> palette (matrices + dual quaternions) ->
 *   corrective weights from joint angles -> blend shapes (non-zero weights
 *   as an active list; dense or sparse) -> skinning (LBS or DQS) written
 *   straight into render/gfx_character's persistent-mapped stream.
 * Call order: figure_load() (files only, before any window) ->
 * figure_gpu_init() after gfx_init -> per drawn frame: set shape_weight[],
 * figure_deform(pose, world matrix) -> figure_free().
 * With gpu_skin, the palette goes into that stream and the vertex shader
 * skins (same methods, same truncation); with gpu_morph too (the default),
 * the CPU does not morph either: it writes each morphed mesh's active list
 * and the vertex shader applies the uploaded deltas (dense or sparse as
 * `dense` says). A mesh marked live_bind (its bind pose edited per frame)
 * also has that bind pose copied into the stream slot, and the shader
 * morphs from it. Where the GPU cannot (limits, logged once at start), the
 * CPU morphs and the morphed bind pose goes into the stream. skin_once (with
 * gpu_skin): the renderer deforms once per frame in a compute pass and
 * both passes draw that. hybrid_every N > 0 (CPU skinning): Cebenoyan's
 * hybrid; the CPU morphs and skins a key every N frames and the vertex
 * shader blends the last two keys in between, at t = (frames since the
 * newer key + 1) / N, so the figure shows the pose of N - 1 frames ago
 * (exact at N = 1, a lag of N - 1 frames otherwise) and the CPU does no
 * pose or skinning work on the frames in between.
 * figure_bake_save() bakes the current shape weights into a new .chr.
 * Does NOT: make gl* calls (gfx_character does), choose the pose, or allocate
 * in figure_deform() (every scratch array is sized at load; the one-off
 * figure_bake_save() allocates).
 * Memory: the figure owns the character, the arrays and the gfx handle.
 * The blend-shape deltas live only in each mesh's set (f->mesh[m].set):
 * figure_load() releases the chr's copy once the sets hold them, so
 * f->chr's shapes and correctives keep names, meshes and delta counts but
 * their deltas pointers are NULL.
 */
#ifndef STRIDER_APP_FIGURE_H
#define STRIDER_APP_FIGURE_H

#include "anim/bshape.h"
#include "anim/pose.h"
#include "anim/retarget.h"
#include "anim/skin.h"
#include "asset/character.h"
#include "core/paths.h"
#include "ctrl/ctrl_pins.h"
#include "render/gfx_character.h"

#include <stdbool.h>
#include <stdint.h>

/* Largest hybrid key interval, frames. */
#define FIGURE_HYBRID_MAX 8

/* The shipped character, relative to the data folder. */
#define FIGURE_DEFAULT_CHARACTER "assets/characters/strider.chr"
/* The controller's skeleton, relative to the data folder. */
#define FIGURE_DRIVER_SKELETON "assets/skeleton/cmu21.skel"

/* How poses of the controller's skeleton drive the figure (anim/retarget.h):
 * unchanged when the figure's skeleton is that skeleton (the generated
 * character), retargeted otherwise (an imported character). */
typedef struct figure_rig_t {
    skel_t source; /* the controller's 21-joint skeleton */
    retarget_map_t map;
    retarget_t rt;
    bool identity;                     /* poses of source apply to the figure unchanged */
    int head;                          /* figure joint following the source's head */
    int foot[2];                       /* figure ankles, left and right */
    int toe[2];                        /* the joint below each ankle (a toe joint), or -1 */
    float foot_rest_height_cm[2][2];   /* [side][ankle, toe] above the soles at rest */
    float source_rest_height_cm[2][2]; /* the controller's heel and toe tip, likewise */
    float head_top[3];                 /* the highest point the head joint carries, in its frame at rest */
    float floor_y_cm;                  /* the figure's soles at rest (its lowest vertex) */
    pose_t pose;                       /* the last retargeted pose */
    ctrl_pins_t pins;                  /* the game's toe pins and ankle offsets, kept between frames */
} figure_rig_t;

/* One chr mesh's bind-pose data in the layouts the jobs take. */
typedef struct figure_mesh_t {
    uint32_t vertex_count;
    uint32_t first;                      /* first vertex in the renderer's stream */
    float *pos, *nrm, *tan, *ao;         /* bind pose: 3, 3, 4, 1 floats per vertex */
    uint16_t *joints;                    /* 4 per vertex */
    float *weights;                      /* 4 per vertex */
    bshape_set_t set;                    /* its blend shapes and correctives */
    float *m_pos, *m_nrm, *m_tan, *m_ao; /* morphed vertices (meshes with targets) */
    uint32_t *active_target;             /* active-list scratch, set.target_count entries */
    float *active_weight;
    int active_count; /* entries used by the last deform */
    /* The caller rewrites pos/nrm/ao between deforms (a tweened vertex
     * clip): with GPU blend shapes the mesh's bind pose then travels in the
     * stream slot each frame instead of the copy uploaded at create. */
    bool live_bind;
    /* For the renderer's fog test (gfx_character_set_reach): per joint, the
     * farthest bind vertex of this mesh the joint moves, from the joint's
     * bind position (cm; < 0: it moves none); per blend-shape target, its
     * longest position delta (cm). */
    float *joint_reach;
    float *target_reach;
} figure_mesh_t;

typedef struct figure_t {
    chr_character_t chr; /* shapes' and correctives' deltas released (see Memory) */
    bool chr_loaded;
    char path[PATHS_MAX]; /* the character file, for messages */
    figure_rig_t rig;     /* when loaded with a skeleton */
    bool rigged;
    gfx_character_t *gfx;
    figure_mesh_t mesh[CHR_MAX_MESHES];
    float *shape_weight;      /* chr.shape_count values the caller sets */
    float *corrective_weight; /* chr.corrective_count, from the pose */
    int active_shapes;        /* shapes with a non-zero weight at the last deform */
    pose_bind_t bind;
    float model_mat[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float model_rot[SKEL_MAX_JOINTS][4];
    float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float dq[SKEL_MAX_JOINTS][POSE_DQ_FLOATS];
    /* Settings the menus edit */
    bool dense;           /* dense instead of sparse blend shapes */
    bool correctives;     /* joint-angle corrective shapes on */
    bool show;            /* draw the character at all */
    int method;           /* skin_method */
    int influences;       /* 1..4: kept weights, renormalised (both paths) */
    bool gpu_skin;        /* skin in the vertex shader instead of on the CPU */
    bool gpu_morph;       /* with gpu_skin: blend shapes in the vertex shader too */
    bool morph_on_gpu;    /* whether the last deform left the blend shapes to the GPU */
    bool skin_once;       /* with gpu_skin: one compute-pass deform per frame for both passes */
    int hybrid_every;     /* 0 off, 1..FIGURE_HYBRID_MAX: CPU keys every N frames, GPU lerp */
    int hybrid_phase;     /* frames since the newest key (hybrid) */
    int hybrid_key_every; /* N the keys are being made with; 0: no key yet */
    float hybrid_t;       /* blend of the last hybrid deform (1: the newest key) */
    uint64_t deform_count;
    /* The sphere the last deform's vertices lie in (model space, cm), as
     * handed to gfx_character_set_reach(): CPU skinning by blended points
     * or matrices only; reach_radius < 0 otherwise. */
    float reach_center[3], reach_radius;
} figure_t;

typedef struct figure_desc_t {
    const char *path;          /* .chr, or .glb/.gltf imported on the fly (asset/import_file.h) */
    const char *map_path;      /* joint map for rigs without known joint names, or NULL */
    const char *skeleton_path; /* the controller's skeleton, bound as f->rig; NULL: no rig */
} figure_desc_t;

/* Loads the character and prepares every mesh; with a skeleton, binds it
 * (f->rig: a joint map from map_path or the joint names; an imported
 * character is then also dressed by region). False after one logged line
 * naming the file and the problem (missing, corrupt, no usable joint map,
 * legs not chains...). F must be zeroed or freed before. */
bool figure_load(figure_t *f, const figure_desc_t *desc);
/* A pose of the controller's skeleton as the figure's pose: JOB->source
 * itself when the rig is the identity, else retargeted (the caller fills
 * the job's source, floor, anchor, scale_xz, foot targets and ik; the
 * figure fills rt and out) into f->rig.pose. NULL on failure. */
const pose_t *figure_rig_pose(figure_t *f, retarget_job_t *job);
/* Uploads to the renderer under LABEL (GL debug name). */
bool figure_gpu_init(figure_t *f, const char *label);
void figure_free(figure_t *f);

/* Model matrices/rotations of POSE into f->model_mat/model_rot (no palette). */
void figure_fk(figure_t *f, const pose_t *pose);
/* The whole deformation of POSE into the renderer's stream, drawn with the
 * column-major model matrix WORLD. Hidden figures only tell the renderer. */
bool figure_deform(figure_t *f, const pose_t *pose, const float world[16]);
/* Index of the blend shape NAME, or -1. */
int figure_shape(const figure_t *f, const char *name);

/* Bakes the current shape weights (shape_weight[], not the pose-driven
 * correctives) into the bind pose of every mesh they move, through the
 * GPU's transform feedback (gfx_character_bake; on the CPU with bshape_run
 * where the GPU cannot), and writes the character to PATH as a new .chr
 * whose morphed meshes carry the baked vertices (shapes and correctives kept
 * as they are). Needs figure_gpu_init(). False after one logged line. */
bool figure_bake_save(figure_t *f, const char *path);

#endif
