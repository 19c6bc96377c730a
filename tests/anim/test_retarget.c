/* retarget: maps (built-in CMU 31-joint names, equal names, map files and
 * their errors), then poses of the controller's skeleton on a synthetic
 * A-pose character 1.1 times as large (CMU 31-joint names, arms 40 degrees
 * down, extra spine/neck/toe/finger joints): rest and random poses keep
 * every limb bone along its source bone, bone lengths stay the
 * character's, feet land on their targets (moved by offsets), toe joints
 * on their pins. With ../shared: a CMU walk clip
 * (train/104_02.bvh, "exact footfalls") on the imported MakeHuman male:
 * everything finite, bone lengths kept, and while a source foot is planted
 * the character's foot is planted too, on the floor, where the scaled
 * source foot is.
 *   usage: test_retarget SKELETON.skel [SHARED_DIR] */
#include "anim/bvh.h"
#include "anim/retarget.h"
#include "asset/import_file.h"
#include "core/log.h"

#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static skel_t g_src;

static float dist3(const float a[3], const float b[3])
{
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void mat_pos(const float m[POSE_MAT_FLOATS], float out[3])
{
    out[0] = m[3];
    out[1] = m[7];
    out[2] = m[11];
}

/* ---------------------------------------------------------------- a synthetic rig */

typedef struct rig_joint_t {
    const char *name, *parent, *source; /* source: cmu21 joint whose position it takes (scaled), or NULL */
} rig_joint_t;

/* CMU 31-joint layout; joints without a source sit between or beyond others. */
static const rig_joint_t RIG[] = {
    {"Hips", NULL, "hip"},
    {"LHipJoint", "Hips", "lButtock"},
    {"LeftUpLeg", "LHipJoint", "lThigh"},
    {"LeftLeg", "LeftUpLeg", "lShin"},
    {"LeftFoot", "LeftLeg", "lFoot"},
    {"LeftToeBase", "LeftFoot", NULL},
    {"LowerBack", "Hips", "abdomen"},
    {"Spine", "LowerBack", NULL},
    {"Spine1", "Spine", "chest"},
    {"LeftShoulder", "Spine1", "lCollar"},
    {"LeftArm", "LeftShoulder", "lShldr"},
    {"LeftForeArm", "LeftArm", "lForeArm"},
    {"LeftHand", "LeftForeArm", "lHand"},
    {"LThumb", "LeftHand", NULL},
    {"LeftFingerBase", "LeftHand", NULL},
    {"LeftHandFinger1", "LeftFingerBase", NULL},
    {"Neck", "Spine1", "neck"},
    {"Neck1", "Neck", NULL},
    {"Head", "Neck1", "head"},
    {"RightShoulder", "Spine1", "rCollar"},
    {"RightArm", "RightShoulder", "rShldr"},
    {"RightForeArm", "RightArm", "rForeArm"},
    {"RightHand", "RightForeArm", "rHand"},
    {"RThumb", "RightHand", NULL},
    {"RightFingerBase", "RightHand", NULL},
    {"RightHandFinger1", "RightFingerBase", NULL},
    {"RHipJoint", "Hips", "rButtock"},
    {"RightUpLeg", "RHipJoint", "rThigh"},
    {"RightLeg", "RightUpLeg", "rShin"},
    {"RightFoot", "RightLeg", "rFoot"},
    {"RightToeBase", "RightFoot", NULL},
};
enum { RIG_N = sizeof RIG / sizeof RIG[0] };
#define RIG_SCALE 1.1f
#define ARM_DOWN_RAD 0.698f /* 40 degrees */

/* The source's rest positions, 1.1 times larger, soles on y = 0, arms
 * turned down about the shoulders; joints without a source interpolate. */
static void make_rig(skel_t *dst)
{
    float sp[SKEL_MAX_JOINTS][3], se[SKEL_MAX_ENDS][3], pos[RIG_N][3];
    skel_rest_positions(&g_src, sp);
    skel_rest_end_positions(&g_src, (const float(*)[3])sp, se);
    float floor = 0.0f;
    for (int e = 0; e < g_src.end_count; e++)
        floor = fminf(floor, se[e][1]);
    for (int i = 0; i < RIG_N; i++) {
        int s = RIG[i].source ? skel_find(&g_src, RIG[i].source) : -1;
        if (s >= 0)
            for (int k = 0; k < 3; k++)
                pos[i][k] = sp[s][k] * RIG_SCALE;
    }
    for (int i = 0; i < RIG_N; i++) {
        const char *n = RIG[i].name;
        int p = -1;
        for (int k = 0; k < i; k++)
            if (RIG[i].parent && strcmp(RIG[k].name, RIG[i].parent) == 0)
                p = k;
        if (RIG[i].source)
            continue;
        /* Between parent and the next mapped joint, or beyond the parent. */
        int next = i + 1 < RIG_N && RIG[i + 1].source ? i + 1 : -1;
        const char *end = strstr(n, "Toe")                              ? (n[0] == 'L' ? "lFoot_end" : "rFoot_end")
                          : (strstr(n, "Finger") || strstr(n, "Thumb")) ? (n[0] == 'L' ? "lHand_end" : "rHand_end")
                                                                        : NULL;
        if (end) {
            int e = skel_find_end(&g_src, end);
            for (int k = 0; k < 3; k++)
                pos[i][k] = se[e][k] * RIG_SCALE;
            if (strstr(n, "FingerBase") || strstr(n, "Thumb"))
                for (int k = 0; k < 3; k++)
                    pos[i][k] = 0.5f * (pos[i][k] + pos[p][k]);
        } else if (next >= 0) {
            int s = skel_find(&g_src, RIG[next].source);
            for (int k = 0; k < 3; k++)
                pos[i][k] = 0.5f * (pos[p][k] + sp[s][k] * RIG_SCALE);
        }
    }
    /* A-pose: each arm chain turns down about its shoulder joint. */
    for (int side = 0; side < 2; side++) {
        int shoulder = -1;
        for (int i = 0; i < RIG_N; i++)
            if (strcmp(RIG[i].name, side ? "RightArm" : "LeftArm") == 0)
                shoulder = i;
        float a = side ? ARM_DOWN_RAD : -ARM_DOWN_RAD, c = cosf(a), s = sinf(a);
        for (int i = shoulder + 1; i < RIG_N; i++) {
            bool below = false;
            for (int k = i; k >= 0 && !below;) {
                const char *pn = RIG[k].parent;
                int pk = -1;
                for (int m = 0; pn && m < RIG_N; m++)
                    if (strcmp(RIG[m].name, pn) == 0)
                        pk = m;
                if (pk == shoulder)
                    below = true;
                k = pk;
            }
            if (!below)
                continue;
            float dx = pos[i][0] - pos[shoulder][0], dy = pos[i][1] - pos[shoulder][1];
            pos[i][0] = pos[shoulder][0] + c * dx - s * dy;
            pos[i][1] = pos[shoulder][1] + s * dx + c * dy;
        }
    }
    memset(dst, 0, sizeof *dst);
    dst->joint_count = RIG_N;
    for (int i = 0; i < RIG_N; i++) {
        snprintf(dst->joint_name[i], SKEL_NAME_MAX, "%s", RIG[i].name);
        int p = RIG[i].parent ? skel_find(dst, RIG[i].parent) : -1;
        dst->joint_parent[i] = p;
        for (int k = 0; k < 3; k++)
            dst->joint_offset[i][k] = pos[i][k] - (p >= 0 ? pos[p][k] : 0.0f) -
                                      (p < 0 && k == 1 ? floor * RIG_SCALE : 0.0f);
    }
}

/* ---------------------------------------------------------------- maps */

static void test_maps(const skel_t *dst)
{
    retarget_map_t m;
    CHECK(retarget_map_resolve(NULL, &g_src, &g_src, "cmu21", &m) && strcmp(m.how, "joint names") == 0);
    CHECK(retarget_map_is_identity(&m, &g_src, &g_src));
    CHECK(retarget_map_resolve(NULL, &g_src, dst, "rig", &m) && strcmp(m.how, "CMU 31-joint names") == 0);
    CHECK(!retarget_map_is_identity(&m, &g_src, dst));
    CHECK(m.source[skel_find(dst, "LeftUpLeg")] == skel_find(&g_src, "lThigh"));
    CHECK(m.source[skel_find(dst, "Neck1")] == RETARGET_UNMAPPED);

    static const char good[] = "# a rig\nstrider-joint-map 1\nHips hip\nLeftUpLeg lThigh # thigh\n"
                               "LeftLeg lShin\nLeftFoot lFoot\nRightUpLeg rThigh\nRightLeg rShin\nRightFoot rFoot\n";
    CHECK(retarget_map_parse(good, sizeof good - 1, "good.map", &g_src, dst, &m));
    CHECK(m.source[skel_find(dst, "Spine1")] == RETARGET_UNMAPPED);
    static retarget_t rt;
    CHECK(retarget_init(&rt, &g_src, dst, &m, 0.0f, "rig"));

    static const char *const bad[] = {
        "Hips hip\n",                                    /* no header */
        "strider-joint-map 2\nHips hip\n",               /* version */
        "strider-joint-map 1\nHips hip extra\n",         /* fields */
        "strider-joint-map 1\nPelvis hip\n",             /* unknown character joint */
        "strider-joint-map 1\nHips pelvis\n",            /* unknown source joint */
        "strider-joint-map 1\nHips hip\nHips abdomen\n", /* twice */
        "",                                              /* empty */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(!retarget_map_parse(bad[i], strlen(bad[i]), "bad.map", &g_src, dst, &m), "bad map %zu refused", i);
    /* Parsable, but the legs are not chains below the hip. */
    static const char crossed[] = "strider-joint-map 1\nHips hip\nLeftUpLeg lThigh\nLeftLeg lShin\nLeftFoot lFoot\n"
                                  "RightUpLeg rThigh\nRightFoot rShin\nRightLeg rFoot\n";
    CHECK(retarget_map_parse(crossed, sizeof crossed - 1, "crossed.map", &g_src, dst, &m));
    CHECK(!retarget_init(&rt, &g_src, dst, &m, 0.0f, "rig"));
    static const char noleg[] = "strider-joint-map 1\nHips hip\n";
    CHECK(retarget_map_parse(noleg, sizeof noleg - 1, "noleg.map", &g_src, dst, &m));
    CHECK(!retarget_init(&rt, &g_src, dst, &m, 0.0f, "rig"));
    skel_t odd = *dst;
    snprintf(odd.joint_name[skel_find(&odd, "Spine")], SKEL_NAME_MAX, "Waist");
    CHECK(!retarget_map_resolve(NULL, &g_src, &odd, "odd.glb", &m));
}

/* ---------------------------------------------------------------- poses */

/* Every limb bone of the character lies along its source bone. */
static void check_bones_follow(const retarget_t *rt, const skel_t *dst, const pose_t *out, float (*dm)[POSE_MAT_FLOATS],
                               const char *what)
{
    static const char *const pairs[][4] = {
        {"LeftArm", "LeftForeArm", "lShldr", "lForeArm"},   {"LeftForeArm", "LeftHand", "lForeArm", "lHand"},
        {"RightArm", "RightForeArm", "rShldr", "rForeArm"}, {"LeftUpLeg", "LeftLeg", "lThigh", "lShin"},
        {"LeftLeg", "LeftFoot", "lShin", "lFoot"},          {"RightLeg", "RightFoot", "rShin", "rFoot"},
    };
    pose_model_job_t fk = {.skel = dst, .local = out, .capacity = SKEL_MAX_JOINTS, .model_mat = dm};
    CHECK(pose_model_run(&fk));
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        float a[3], b[3], sa[3], sb[3];
        mat_pos(dm[skel_find(dst, pairs[i][0])], a);
        mat_pos(dm[skel_find(dst, pairs[i][1])], b);
        mat_pos(rt->src_model[skel_find(&g_src, pairs[i][2])], sa);
        mat_pos(rt->src_model[skel_find(&g_src, pairs[i][3])], sb);
        float d[3], s[3];
        for (int k = 0; k < 3; k++) {
            d[k] = b[k] - a[k];
            s[k] = sb[k] - sa[k];
        }
        float c = (d[0] * s[0] + d[1] * s[1] + d[2] * s[2]) /
                  (sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]));
        CHECKF(c > 0.9999f, "%s: %s->%s along %s->%s (cos %.6f)", what, pairs[i][0], pairs[i][1], pairs[i][2],
               pairs[i][3], (double)c);
    }
    /* Bone lengths are the character's own. */
    for (int j = 1; j < dst->joint_count; j++) {
        float a[3], b[3];
        mat_pos(dm[j], a);
        mat_pos(dm[dst->joint_parent[j]], b);
        float len = sqrtf(dst->joint_offset[j][0] * dst->joint_offset[j][0] +
                          dst->joint_offset[j][1] * dst->joint_offset[j][1] +
                          dst->joint_offset[j][2] * dst->joint_offset[j][2]);
        CHECK_NEAR(dist3(a, b), len, 1e-3);
    }
}

static void test_poses(const skel_t *dst)
{
    retarget_map_t m;
    static retarget_t rt;
    static float dm[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    CHECK(retarget_map_resolve(NULL, &g_src, dst, "rig", &m));
    if (!retarget_init(&rt, &g_src, dst, &m, 0.0f, "rig")) {
        CHECK(!"init");
        return;
    }
    CHECK_NEAR(rt.scale, RIG_SCALE, 1e-3);
    CHECK(rt.toe[0] == skel_find(dst, "LeftToeBase") && rt.toe[1] == skel_find(dst, "RightToeBase"));
    pose_t src, out;
    pose_rest(&g_src, &src);
    retarget_job_t job = {.rt = &rt, .source = &src, .scale_xz = 1.0f, .out = &out};
    CHECK(retarget_run(&job));
    check_bones_follow(&rt, dst, &out, dm, "rest");
    test_rng_t rng = {12345u};
    for (int i = 0; i < 50; i++) {
        test_random_pose(&rng, &g_src, 0.8f, &src);
        src.trans[0][0] = 30.0f * test_rand01(&rng);
        src.trans[0][1] = 70.0f + 20.0f * test_rand01(&rng);
        job.ik = false;
        CHECK(retarget_run(&job));
        check_bones_follow(&rt, dst, &out, dm, "random");
        /* Legs on reachable targets: the ankles land on them. */
        float targets[2][3];
        for (int side = 0; side < 2; side++) {
            mat_pos(dm[rt.leg[side][0]], targets[side]);
            targets[side][0] += side ? -10.0f : 10.0f;
            targets[side][1] -= 60.0f + 10.0f * test_rand01(&rng);
            targets[side][2] += 20.0f * (test_rand01(&rng) - 0.5f);
        }
        /* Targets are source space; with scale_xz 1 and floor 0 the map is
         * y' = ankle_dst + (y - ankle_src) * scale: invert it. */
        float src_targets[2][3];
        for (int side = 0; side < 2; side++) {
            memcpy(src_targets[side], targets[side], sizeof targets[side]);
            src_targets[side][1] = rt.src_ankle_height_cm[side] +
                                   (targets[side][1] - rt.dst_ankle_height_cm[side]) / rt.scale;
        }
        job.foot_target = (const float(*)[3])src_targets;
        job.ik = true;
        CHECK(retarget_run(&job));
        for (int side = 0; side < 2; side++) {
            CHECK(job.reached[side]);
            CHECKF(dist3(job.ankle[side], targets[side]) < 1e-2f, "ankle %d on its target (%.4f cm off)", side,
                   (double)dist3(job.ankle[side], targets[side]));
        }
        /* An offset moves the ankles' targets by itself; a pinned toe
         * puts the ankle where the foot, as retargeted, holds the toe
         * joint on the pin (here where it stands, moved by a few cm). */
        float offset[2][3] = {{2.0f, -1.0f, -3.0f}, {-1.5f, 0.5f, 2.5f}}, pin[2][3];
        for (int side = 0; side < 2; side++) {
            for (int k = 0; k < 3; k++)
                pin[side][k] = job.toe[side][k] + offset[side][k];
        }
        job.ankle_offset = (const float(*)[3])offset;
        CHECK(retarget_run(&job));
        for (int side = 0; side < 2; side++) {
            float want[3] = {targets[side][0] + offset[side][0], targets[side][1] + offset[side][1],
                             targets[side][2] + offset[side][2]};
            CHECK(dist3(job.ankle_mapped[side], targets[side]) < 1e-3f);
            CHECKF(dist3(job.ankle[side], want) < 1e-2f, "ankle %d on its target plus its offset (%.4f cm off)", side,
                   (double)dist3(job.ankle[side], want));
        }
        job.ankle_offset = NULL;
        job.toe_pin = (const float(*)[3])pin;
        job.toe_pinned[0] = job.toe_pinned[1] = true;
        CHECK(retarget_run(&job));
        for (int side = 0; side < 2; side++) {
            CHECK(job.reached[side]);
            CHECKF(dist3(job.toe[side], pin[side]) < 1e-2f, "toe %d on its pin (%.4f cm off)", side,
                   (double)dist3(job.toe[side], pin[side]));
        }
        job.toe_pin = NULL;
        job.toe_pinned[0] = job.toe_pinned[1] = false;
        job.foot_target = NULL;
    }
}

/* ---------------------------------------------------------------- a walk on MakeHuman */

static void test_walk(const char *shared)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/characters/makehuman_cmu31_arkit52_male.glb", shared);
    static chr_character_t c;
    if (!imp_load_gltf(path, &c, NULL)) {
        CHECK(!"MakeHuman male imports");
        return;
    }
    snprintf(path, sizeof path, "%s/mocap/cmu/train/104_02.bvh", shared);
    static bvh_t b;
    bvh_map_t bm;
    if (!bvh_load(&b, path) || !bvh_map_skel(&b, &g_src, &bm)) {
        CHECK(!"walk clip loads");
        chr_free(&c);
        return;
    }
    const skel_t *dst = &c.skel;
    retarget_map_t m;
    static retarget_t rt;
    CHECK(retarget_map_resolve(NULL, &g_src, dst, "male", &m));
    if (!retarget_init(&rt, &g_src, dst, &m, 0.0f, "male")) {
        CHECK(!"init");
        bvh_free(&b);
        chr_free(&c);
        return;
    }
    printf("walk: %d frames, scale %.3f (hip %.1f / %.1f cm)\n", b.frame_count, (double)rt.scale,
           (double)rt.dst_hip_height_cm, (double)rt.src_hip_height_cm);
    int n = b.frame_count;
    float(*src_ankle)[2][3] = calloc((size_t)n, sizeof *src_ankle);
    float(*dst_ankle)[2][3] = calloc((size_t)n, sizeof *dst_ankle);
    float(*dst_target)[2][3] = calloc((size_t)n, sizeof *dst_target);
    static float dm[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_t src, out;
    /* The clip's floor: its lowest toe tip. */
    float floor = INFINITY;
    for (int f = 0; f < n; f++) {
        bvh_frame_pose(&b, &g_src, &bm, f, &src);
        retarget_job_t probe = {.rt = &rt, .source = &src, .scale_xz = 1.0f, .out = &out};
        retarget_run(&probe);
        float se[SKEL_MAX_ENDS][3];
        for (int e = 0; e < g_src.end_count; e++) {
            float local[3], p[3];
            memcpy(local, g_src.end_offset[e], sizeof local);
            const float *mm = rt.src_model[g_src.end_parent[e]];
            for (int r = 0; r < 3; r++)
                p[r] = mm[r * 4] * local[0] + mm[r * 4 + 1] * local[1] + mm[r * 4 + 2] * local[2] + mm[r * 4 + 3];
            memcpy(se[e], p, sizeof p);
            if (strstr(g_src.end_name[e], "Foot"))
                floor = fminf(floor, p[1]);
        }
    }
    bvh_frame_pose(&b, &g_src, &bm, 0, &src);
    float anchor[3] = {src.trans[0][0], floor, src.trans[0][2]};
    bool finite = true, lengths = true;
    for (int f = 0; f < n; f++) {
        bvh_frame_pose(&b, &g_src, &bm, f, &src);
        retarget_job_t job = {
            .rt = &rt, .source = &src, .ground_y_cm = floor, .scale_xz = rt.scale, .ik = true, .out = &out};
        memcpy(job.anchor, anchor, sizeof anchor);
        CHECK(retarget_run(&job));
        pose_model_job_t fk = {.skel = dst, .local = &out, .capacity = SKEL_MAX_JOINTS, .model_mat = dm};
        pose_model_run(&fk);
        for (int j = 0; j < dst->joint_count; j++) {
            float p[3];
            mat_pos(dm[j], p);
            finite = finite && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
            if (j > 0) {
                float q[3];
                mat_pos(dm[dst->joint_parent[j]], q);
                const float *o = dst->joint_offset[j];
                lengths = lengths && fabsf(dist3(p, q) - sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2])) < 1e-3f;
            }
        }
        for (int side = 0; side < 2; side++) {
            mat_pos(rt.src_model[rt.src_leg[side][2]], src_ankle[f][side]);
            memcpy(dst_ankle[f][side], job.ankle[side], sizeof job.ankle[side]);
            memcpy(dst_target[f][side], job.ankle_target[side], sizeof job.ankle_target[side]);
        }
    }
    CHECK(finite);
    CHECK(lengths);
    /* Contacts: the source ankle moves under 20 cm/s and is within 4 cm of
     * its lowest height. There the character's ankle is on its target, at
     * its rest height above the floor within the scaled source deviation,
     * and moves no more than the scaled source ankle. */
    float dt = b.frame_time_s;
    int contacts = 0, on_target = 0;
    float worst_slide = 0.0f, worst_src_slide = 0.0f, worst_height = 0.0f;
    for (int side = 0; side < 2; side++) {
        float low = INFINITY;
        for (int f = 0; f < n; f++)
            low = fminf(low, src_ankle[f][side][1]);
        for (int f = 1; f < n; f++) {
            float sv = dist3(src_ankle[f][side], src_ankle[f - 1][side]) / dt;
            if (sv > 20.0f || src_ankle[f][side][1] > low + 4.0f)
                continue;
            contacts++;
            on_target += dist3(dst_ankle[f][side], dst_target[f][side]) < 0.05f;
            float slide = dist3(dst_ankle[f][side], dst_ankle[f - 1][side]);
            float src_slide = dist3(src_ankle[f][side], src_ankle[f - 1][side]);
            worst_slide = fmaxf(worst_slide, slide - rt.scale * src_slide);
            worst_src_slide = fmaxf(worst_src_slide, src_slide);
            float h = dst_ankle[f][side][1] - floor - rt.dst_ankle_height_cm[side];
            float sh = src_ankle[f][side][1] - floor - rt.src_ankle_height_cm[side];
            worst_height = fmaxf(worst_height, fabsf(h - rt.scale * sh));
        }
    }
    printf("walk: %d contact frames, %d on target; slide beyond the scaled source %.4f cm (source up to %.2f cm "
           "per frame); height off the scaled source %.4f cm\n",
           contacts, on_target, (double)worst_slide, (double)worst_src_slide, (double)worst_height);
    CHECK(contacts > n / 3);
    CHECK(on_target == contacts);
    CHECK(worst_slide < 0.05f);
    CHECK(worst_height < 0.05f);
    free(src_ankle);
    free(dst_ankle);
    free(dst_target);
    bvh_free(&b);
    chr_free(&c);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !skel_load(&g_src, argv[1])) {
        fprintf(stderr, "usage: test_retarget SKELETON.skel [SHARED_DIR]\n");
        return 1;
    }
    static skel_t rig;
    make_rig(&rig);
    log_set_level(LOG_QUIET);
    test_maps(&rig);
    log_set_level(LOG_WARN);
    test_poses(&rig);
    if (argc > 2)
        test_walk(argv[2]);
    return check_summary();
}
