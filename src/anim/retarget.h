/* retarget: drives a character's own skeleton from poses of the
 * controller's 21-joint CMU skeleton (assets/skeleton/cmu21.skel), whatever
 * its proportions and rest pose (an imported A-pose character, say).
 *
 * Call order: a joint map (retarget_map_resolve(): a map file, or the
 * source's own joint names, or the built-in CMU 31-joint names) ->
 * retarget_init() once -> per pose retarget_run() -> the character's local
 * pose for figure_deform().
 * How: every mapped character joint takes its source joint's world rotation
 * relative to each skeleton's rest pose, after an alignment made once that
 * turns the character's rest bone onto the source's rest bone (so an A-pose
 * arm follows a T-pose arm: swing only, about the bone's neighbours). Joints
 * with two or more mapped branches (hips, chest) and bones too short to
 * give a direction keep their rest orientation. Unmapped joints (fingers, a
 * second neck joint, toes) follow their parents. Bone lengths are the
 * character's own. Heights of the hip and the ankles above the ankles'
 * rest height scale by the ratio of the leg lengths (thigh-knee-ankle), so
 * a leg as bent as the source's is as bent on the character; horizontally
 * the root moves as the source does
 * times scale_xz about an anchor (1 in the game: the controller owns the
 * world; the leg ratio for a clip). With IK, the hip then lowers (by at
 * most a quarter of the leg) where a leg could not reach its target (a
 * shorter leg's foot planted down a slope). Then the two-joint IK (anim/ik.h) puts
 * each ankle of the character's own thigh-shin-foot chain on its target
 * (the source's ankle, or the caller's foot_target, mapped the same way),
 * so a planted source foot gives a planted character foot; the foot keeps
 * its retargeted world rotation. A foot standing on its toes pivots about
 * the controller's toe tip, but the character's toe joint sits elsewhere
 * on a foot of other proportions: the caller may move each ankle target by
 * an offset, or pin the toe, which puts the ankle where the foot, in its
 * retargeted rotation, holds the character's own toe joint on the pin (so
 * the character pivots about its own toe).
 * Map file (text, '#' comments): a first line "strider-joint-map 1", then
 * one "CHARACTER_JOINT SOURCE_JOINT" per line; several character joints may
 * take one source joint; a character joint listed nowhere follows its
 * parent. The source joints hip, lThigh, lShin, lFoot, rThigh, rShin and
 * rFoot must be mapped, each leg as a chain below the hip.
 * Does NOT: allocate, read clocks, touch GL, or decide foot contacts (the
 * controller does). Not reentrant per retarget_t (it holds the scratch).
 * Memory: the skeletons are borrowed and must outlive the retarget_t.
 */
#ifndef STRIDER_ANIM_RETARGET_H
#define STRIDER_ANIM_RETARGET_H

#include "anim/pose.h"
#include "anim/skel.h"

#include <stdbool.h>
#include <stddef.h>

enum { RETARGET_UNMAPPED = -1, RETARGET_LEFT = 0, RETARGET_RIGHT = 1 };

/* Bones shorter than this (cm) give no direction to align. */
#define RETARGET_MIN_BONE_CM 3.0f

/* For every character (target) joint, the source joint it follows. */
typedef struct retarget_map_t {
    int joint_count;             /* the character's */
    int source[SKEL_MAX_JOINTS]; /* source joint index, or RETARGET_UNMAPPED */
    char how[64];                /* "map file X", "joint names", "CMU 31-joint names" */
} retarget_map_t;

typedef struct retarget_t {
    const skel_t *src, *dst;
    retarget_map_t map;
    float align[SKEL_MAX_JOINTS][4]; /* per character joint, world rotation at rest */
    int leg[2][3];                   /* character thigh, shin, foot per side */
    int toe[2];                      /* the foot's first child (a toe joint), or -1 */
    int src_leg[2][3];
    int dst_hip, src_hip; /* joint mapped to the source hip, and that hip */
    float scale;          /* character / source leg length (thigh, knee, ankle) */
    float src_leg_cm, dst_leg_cm;
    float src_hip_height_cm, dst_hip_height_cm; /* rest, above the soles */
    float src_ankle_height_cm[2], dst_ankle_height_cm[2];
    float dst_root_to_hip[3]; /* rest offset from the character's root to its hip joint */
    /* Scratch for retarget_run (not reentrant). */
    float src_model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float src_rot[SKEL_MAX_JOINTS][4];
    float dst_model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float dst_rot[SKEL_MAX_JOINTS][4];
} retarget_t;

typedef struct retarget_job_t {
    retarget_t *rt;
    const pose_t *source;      /* source local pose; its root translation is in the caller's space */
    float ground_y_cm;         /* floor under the root, in that space */
    float foot_ground_y_cm[2]; /* floor under each foot (used when feet_ground_given) */
    bool feet_ground_given;
    float anchor[3]; /* horizontal root mapping: anchor + (root - anchor) * scale_xz */
    float scale_xz;
    const float (*foot_target)[3];  /* optional: source-space ankle positions [left, right]; NULL: the source pose's */
    bool ik;                        /* solve the legs onto the targets */
    const float (*ankle_offset)[3]; /* optional: added to each mapped ankle target, character space */
    const float (*toe_pin)[3];      /* optional: where each toe joint should stay, character space */
    bool toe_pinned[2];             /* which ankles go where their toe joint stays on its pin (else: target + offset) */
    pose_t *out;                    /* the character's local pose; root in the caller's space */
    /* out */
    float ankle[2][3];        /* where the character's ankles ended up */
    float ankle_target[2][3]; /* where they were asked to go */
    float ankle_mapped[2][3]; /* the targets as mapped, before offsets and pins */
    float toe[2][3];          /* where the character's toe joints ended up (the ankles' without one) */
    bool reached[2];
} retarget_job_t;

/* The map of DST onto SRC: from MAP_PATH when given, else by equal joint
 * names when DST has every SRC joint (the generated character), else the
 * built-in CMU 31-joint names. False with ONE logged line naming
 * CHARACTER (the file the skeleton came from) when none fits. */
bool retarget_map_resolve(const char *map_path, const skel_t *src, const skel_t *dst, const char *character,
                          retarget_map_t *out);
/* Map-file text (see the header); SOURCE names it in messages. */
bool retarget_map_parse(const char *text, size_t len, const char *source, const skel_t *src, const skel_t *dst,
                        retarget_map_t *out);
/* The built-in CMU 31-joint names (the MakeHuman cmu_mb rig): false,
 * silently, when DST lacks any of them. */
bool retarget_map_builtin(const skel_t *src, const skel_t *dst, retarget_map_t *out);
/* Whether every source joint drives the character joint of the same name
 * and index and the character adds nothing above them (retargeting would
 * copy the pose). */
bool retarget_map_is_identity(const retarget_map_t *map, const skel_t *src, const skel_t *dst);

/* Character joints the map drives directly. */
int retarget_mapped_count(const retarget_map_t *map);

/* Checks the map (legs as chains below the hip), computes the alignments,
 * leg lengths and scale; DST_FLOOR_Y_CM is the character's sole height at
 * rest (0 for imported characters: the import puts the soles there). False
 * with one logged line naming CHARACTER. */
bool retarget_init(retarget_t *rt, const skel_t *src, const skel_t *dst, const retarget_map_t *map,
                   float dst_floor_y_cm, const char *character);
bool retarget_run(retarget_job_t *job);

#endif
