#include "anim/retarget.h"

#include "anim/ik.h"
#include "core/file.h"
#include "core/log.h"
#include "core/text.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A map file is a few lines per joint. */
#define RETARGET_FILE_MAX_BYTES (1u << 16)
#define RETARGET_LINE_MAX 256
#define RETARGET_MAX_TOKENS 4
/* The IK may stretch a leg to this fraction of its length. */
#define RETARGET_MAX_EXTENSION 0.999f
/* The hip lowers by at most this fraction of the leg to let a leg reach
 * its ankle's target. */
#define RETARGET_MAX_HIP_DROP 0.25f

static const char MAP_HEADER[] = "strider-joint-map";
static const int MAP_VERSION = 1;

/* The source joints every map must drive: the hip and both legs. */
static const char *const REQUIRED[7] = {"hip", "lThigh", "lShin", "lFoot", "rThigh", "rShin", "rFoot"};

/* The CMU 31-joint rig (MakeHuman's cmu_mb) onto the controller's joints,
 * as ../shared/characters/README.md suggests; the joints it leaves out
 * (LHipJoint's twin toes, Neck1, the fingers) follow their parents. */
static const char *const BUILTIN[][2] = {
    {"Hips", "hip"},        {"LHipJoint", "lButtock"},    {"LeftUpLeg", "lThigh"},  {"LeftLeg", "lShin"},
    {"LeftFoot", "lFoot"},  {"RHipJoint", "rButtock"},    {"RightUpLeg", "rThigh"}, {"RightLeg", "rShin"},
    {"RightFoot", "rFoot"}, {"LowerBack", "abdomen"},     {"Spine1", "chest"},      {"Neck", "neck"},
    {"Head", "head"},       {"LeftShoulder", "lCollar"},  {"LeftArm", "lShldr"},    {"LeftForeArm", "lForeArm"},
    {"LeftHand", "lHand"},  {"RightShoulder", "rCollar"}, {"RightArm", "rShldr"},   {"RightForeArm", "rForeArm"},
    {"RightHand", "rHand"},
};
/* Joints of the rig the built-in map needs present (besides the table). */
static const char *const BUILTIN_ALSO[] = {"Spine", "Neck1", "LeftToeBase", "RightToeBase"};

/* ---------------------------------------------------------------- quaternions */

/* These stay scalar: cglm's versor functions load and store 16 bytes
 * aligned (SSE), and the rotations here live in the float[4] arrays of
 * retarget_t and pose_t, which carry no such alignment. */
static void quat_conj(const float q[4], float out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

static void quat_identity(float q[4])
{
    q[0] = q[1] = q[2] = 0.0f;
    q[3] = 1.0f;
}

static void quat_normalize(float q[4])
{
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(l > 1e-12f) || !isfinite(l)) {
        quat_identity(q);
        return;
    }
    for (int k = 0; k < 4; k++)
        q[k] /= l;
}

/* Translation of a 3x4 row-major matrix. */
static void mat_pos(const float m[POSE_MAT_FLOATS], float out[3])
{
    out[0] = m[3];
    out[1] = m[7];
    out[2] = m[11];
}

/* ---------------------------------------------------------------- maps */

static void map_clear(const skel_t *dst, retarget_map_t *out)
{
    memset(out, 0, sizeof *out);
    out->joint_count = dst->joint_count;
    for (int j = 0; j < SKEL_MAX_JOINTS; j++)
        out->source[j] = RETARGET_UNMAPPED;
}

bool retarget_map_builtin(const skel_t *src, const skel_t *dst, retarget_map_t *out)
{
    map_clear(dst, out);
    for (size_t i = 0; i < sizeof BUILTIN_ALSO / sizeof BUILTIN_ALSO[0]; i++)
        if (skel_find(dst, BUILTIN_ALSO[i]) < 0)
            return false;
    for (size_t i = 0; i < sizeof BUILTIN / sizeof BUILTIN[0]; i++) {
        int d = skel_find(dst, BUILTIN[i][0]), s = skel_find(src, BUILTIN[i][1]);
        if (d < 0 || s < 0)
            return false;
        out->source[d] = s;
    }
    snprintf(out->how, sizeof out->how, "CMU 31-joint names");
    return true;
}

/* DST has every SRC joint by name: each drives its namesake. */
static bool map_by_names(const skel_t *src, const skel_t *dst, retarget_map_t *out)
{
    map_clear(dst, out);
    for (int s = 0; s < src->joint_count; s++) {
        int d = skel_find(dst, src->joint_name[s]);
        if (d < 0)
            return false;
        out->source[d] = s;
    }
    snprintf(out->how, sizeof out->how, "joint names");
    return true;
}

int retarget_mapped_count(const retarget_map_t *map)
{
    int n = 0;
    for (int j = 0; j < map->joint_count; j++)
        n += map->source[j] >= 0;
    return n;
}

bool retarget_map_is_identity(const retarget_map_t *map, const skel_t *src, const skel_t *dst)
{
    if (dst->joint_count != src->joint_count || map->joint_count != dst->joint_count)
        return false;
    for (int j = 0; j < dst->joint_count; j++) {
        if (map->source[j] != j || strcmp(src->joint_name[j], dst->joint_name[j]) != 0 ||
            src->joint_parent[j] != dst->joint_parent[j])
            return false;
        for (int k = 0; k < 3; k++)
            if (fabsf(src->joint_offset[j][k] - dst->joint_offset[j][k]) > 1e-3f)
                return false;
    }
    return true;
}

bool retarget_map_parse(const char *text, size_t len, const char *source, const skel_t *src, const skel_t *dst,
                        retarget_map_t *out)
{
    map_clear(dst, out);
    if (!text_check_no_nul(text, len, source))
        return false;
    bool header = false;
    bool listed[SKEL_MAX_JOINTS] = {false};
    int lineno = 0;
    size_t pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        char line[RETARGET_LINE_MAX];
        if (end - pos >= sizeof line) {
            log_error("%s:%d: line longer than %d characters", source, lineno, RETARGET_LINE_MAX - 1);
            return false;
        }
        memcpy(line, text + pos, end - pos);
        line[end - pos] = '\0';
        pos = end + 1;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok[RETARGET_MAX_TOKENS];
        int n = text_tokenize(line, tok, RETARGET_MAX_TOKENS);
        if (n == 0)
            continue;
        if (!header) {
            if (n != 2 || strcmp(tok[0], MAP_HEADER) != 0 || strcmp(tok[1], "1") != 0) {
                log_error("%s:%d: not a joint map (expected '%s %d' first)", source, lineno, MAP_HEADER, MAP_VERSION);
                return false;
            }
            header = true;
            continue;
        }
        if (n != 2) {
            log_error("%s:%d: expected CHARACTER_JOINT SOURCE_JOINT (got %d fields)", source, lineno, n);
            return false;
        }
        int d = skel_find(dst, tok[0]), s = skel_find(src, tok[1]);
        if (d < 0) {
            log_error("%s:%d: the character has no joint '%.40s'", source, lineno, tok[0]);
            return false;
        }
        if (s < 0) {
            log_error("%s:%d: the controller's skeleton has no joint '%.40s' (hip, abdomen, chest, neck, head, "
                      "lCollar, lShldr, lForeArm, lHand, lButtock, lThigh, lShin, lFoot, r...)",
                      source, lineno, tok[1]);
            return false;
        }
        if (listed[d]) {
            log_error("%s:%d: joint '%s' mapped twice", source, lineno, tok[0]);
            return false;
        }
        listed[d] = true;
        out->source[d] = s;
    }
    if (!header) {
        log_error("%s: empty joint map", source);
        return false;
    }
    const char *slash = strrchr(source, '/');
    snprintf(out->how, sizeof out->how, "map file %.50s", slash ? slash + 1 : source);
    return true;
}

bool retarget_map_resolve(const char *map_path, const skel_t *src, const skel_t *dst, const char *character,
                          retarget_map_t *out)
{
    if (map_path) {
        uint8_t *data = NULL;
        size_t size = 0;
        if (!file_read_all(map_path, RETARGET_FILE_MAX_BYTES, &data, &size))
            return false;
        bool ok = retarget_map_parse((const char *)data, size, map_path, src, dst, out);
        file_free(data);
        return ok;
    }
    if (map_by_names(src, dst, out) || retarget_map_builtin(src, dst, out))
        return true;
    log_error("%s: no usable joint map: its joints have neither the controller's names (hip, lThigh, ...) nor the "
              "CMU 31-joint names (Hips, LeftUpLeg, ...); give one with --map FILE (docs/FORMATS_CHARACTER.md)",
              character);
    return false;
}

/* ---------------------------------------------------------------- init */

static bool is_ancestor(const skel_t *s, int a, int j)
{
    for (j = s->joint_parent[j]; j >= 0; j = s->joint_parent[j])
        if (j == a)
            return true;
    return false;
}

/* First character joint (in joint order) following source joint S, or -1. */
static int first_mapped_to(const retarget_map_t *map, int s)
{
    for (int j = 0; j < map->joint_count; j++)
        if (map->source[j] == s)
            return j;
    return -1;
}

/* In the subtree of character joint C (C included), the first joint in
 * joint order mapped to a source joint other than S, or -1. */
static int first_mapped_below(const skel_t *dst, const retarget_map_t *map, int c, int s)
{
    for (int j = c; j < dst->joint_count; j++)
        if ((j == c || is_ancestor(dst, c, j)) && map->source[j] >= 0 && map->source[j] != s)
            return j;
    return -1;
}

/* The rest-pose rotation that turns character joint J's bone onto its
 * source joint's bone (identity where the bone is ambiguous or short). */
static void compute_align(retarget_t *rt, int j, vec3 *dp, vec3 *sp, vec3 *se)
{
    const skel_t *dst = rt->dst, *src = rt->src;
    int s = rt->map.source[j];
    float *q = rt->align[j];
    quat_identity(q);
    int branches = 0, found = -1;
    for (int c = j + 1; c < dst->joint_count; c++) {
        if (dst->joint_parent[c] != j)
            continue;
        int d = first_mapped_below(dst, &rt->map, c, s);
        if (d >= 0) {
            branches++;
            found = d;
        }
    }
    vec3 dd, sd;
    if (branches >= 2)
        return;
    if (branches == 1) {
        int sm = rt->map.source[found];
        if (!is_ancestor(src, s, sm))
            return;
        glm_vec3_sub(dp[found], dp[j], dd);
        glm_vec3_sub(sp[sm], sp[s], sd);
    } else {
        /* A leaf of the map: the character's farthest descendant against
         * the source's end site (toe tip, finger tip). */
        int far = -1, end = -1;
        float best = 0.0f;
        for (int c = j + 1; c < dst->joint_count; c++) {
            if (!is_ancestor(dst, j, c))
                continue;
            float len = glm_vec3_distance(dp[c], dp[j]);
            if (len > best) {
                best = len;
                far = c;
            }
        }
        for (int e = 0; e < src->end_count && end < 0; e++)
            if (src->end_parent[e] == s)
                end = e;
        if (far < 0 || end < 0)
            return;
        glm_vec3_sub(dp[far], dp[j], dd);
        glm_vec3_sub(se[end], sp[s], sd);
    }
    if (glm_vec3_norm(dd) < RETARGET_MIN_BONE_CM || glm_vec3_norm(sd) < RETARGET_MIN_BONE_CM)
        return;
    ik_quat_between(dd, sd, q);
}

bool retarget_init(retarget_t *rt, const skel_t *src, const skel_t *dst, const retarget_map_t *map,
                   float dst_floor_y_cm, const char *character)
{
    memset(rt, 0, sizeof *rt);
    rt->src = src;
    rt->dst = dst;
    rt->map = *map;
    if (map->joint_count != dst->joint_count) {
        log_error("%s: joint map made for %d joints, the character has %d", character, map->joint_count,
                  dst->joint_count);
        return false;
    }
    int req[7];
    for (int i = 0; i < 7; i++) {
        int s = skel_find(src, REQUIRED[i]);
        req[i] = s >= 0 ? first_mapped_to(map, s) : -1;
        if (req[i] < 0) {
            log_error("%s: joint map (%s): no character joint follows the controller's '%s'", character, map->how,
                      REQUIRED[i]);
            return false;
        }
    }
    rt->dst_hip = req[0];
    rt->src_hip = map->source[req[0]];
    for (int j = dst->joint_parent[rt->dst_hip]; j >= 0; j = dst->joint_parent[j])
        if (map->source[j] >= 0) {
            log_error("%s: joint map (%s): '%s' (above the hip joint '%s') must not be mapped", character, map->how,
                      dst->joint_name[j], dst->joint_name[rt->dst_hip]);
            return false;
        }
    for (int side = 0; side < 2; side++) {
        int chain[4] = {rt->dst_hip, req[1 + side * 3], req[2 + side * 3], req[3 + side * 3]};
        for (int k = 1; k < 4; k++)
            if (!is_ancestor(dst, chain[k - 1], chain[k])) {
                log_error("%s: joint map (%s): '%s' (%s) is not below '%s' (%s)", character, map->how,
                          dst->joint_name[chain[k]], src->joint_name[map->source[chain[k]]],
                          dst->joint_name[chain[k - 1]], src->joint_name[map->source[chain[k - 1]]]);
                return false;
            }
        for (int k = 0; k < 3; k++) {
            rt->leg[side][k] = chain[k + 1];
            rt->src_leg[side][k] = map->source[chain[k + 1]];
        }
        rt->toe[side] = -1;
        for (int j = 0; j < dst->joint_count && rt->toe[side] < 0; j++)
            if (dst->joint_parent[j] == rt->leg[side][2])
                rt->toe[side] = j;
    }
    vec3 dp[SKEL_MAX_JOINTS], sp[SKEL_MAX_JOINTS], se[SKEL_MAX_ENDS];
    skel_rest_positions(dst, dp);
    skel_rest_positions(src, sp);
    skel_rest_end_positions(src, (const float(*)[3])sp, se);
    /* The source's floor: its lowest rest point (the toe tips); the
     * character's is its soles, from its mesh (DST_FLOOR_Y_CM). */
    float src_floor = INFINITY;
    for (int j = 0; j < src->joint_count; j++)
        src_floor = fminf(src_floor, sp[j][1]);
    for (int e = 0; e < src->end_count; e++)
        src_floor = fminf(src_floor, se[e][1]);
    rt->src_hip_height_cm = sp[rt->src_hip][1] - src_floor;
    for (int side = 0; side < 2; side++)
        rt->src_ankle_height_cm[side] = sp[rt->src_leg[side][2]][1] - src_floor;
    glm_vec3_sub(dp[rt->dst_hip], dp[0], rt->dst_root_to_hip);
    if (!(rt->src_hip_height_cm > 1.0f)) {
        log_error("%s: the controller's skeleton has no leg length", character);
        return false;
    }
    for (int j = 0; j < dst->joint_count; j++) {
        quat_identity(rt->align[j]);
        if (map->source[j] >= 0)
            compute_align(rt, j, dp, sp, se);
    }
    rt->dst_hip_height_cm = dp[rt->dst_hip][1] - dst_floor_y_cm;
    for (int side = 0; side < 2; side++)
        rt->dst_ankle_height_cm[side] = dp[rt->leg[side][2]][1] - dst_floor_y_cm;
    if (!(rt->dst_hip_height_cm > 1.0f) || !isfinite(rt->dst_hip_height_cm)) {
        log_error("%s: the character's hip joint is not above its soles", character);
        return false;
    }
    /* Leg length: thigh to knee to ankle, both sides averaged. */
    float ls = 0.0f, ld = 0.0f;
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            ls += glm_vec3_distance(sp[rt->src_leg[side][k]], sp[rt->src_leg[side][k + 1]]);
            ld += glm_vec3_distance(dp[rt->leg[side][k]], dp[rt->leg[side][k + 1]]);
        }
    if (!(ls > 1.0f) || !(ld > 1.0f)) {
        log_error("%s: joint map (%s): a leg of no length", character, map->how);
        return false;
    }
    rt->src_leg_cm = ls * 0.5f;
    rt->dst_leg_cm = ld * 0.5f;
    rt->scale = ld / ls;
    return true;
}

/* ---------------------------------------------------------------- run */

/* World rotations of every character joint: mapped joints from the source,
 * the IK's legs from OVERRIDE (NULL entries: none), the rest from parents. */
static void dst_world(retarget_t *rt, const float (*override)[4], const bool *has_override)
{
    const skel_t *dst = rt->dst;
    for (int j = 0; j < dst->joint_count; j++) {
        float *w = rt->dst_rot[j];
        int s = rt->map.source[j], p = dst->joint_parent[j];
        if (has_override && has_override[j])
            memcpy(w, override[j], 4 * sizeof *w);
        else if (s >= 0)
            pose_quat_mul(rt->src_rot[s], rt->align[j], w);
        else if (p >= 0)
            memcpy(w, rt->dst_rot[p], 4 * sizeof *w);
        else
            quat_identity(w);
        quat_normalize(w);
    }
}

/* Local rotations from the world ones; root translation given. */
static void dst_locals(const retarget_t *rt, const float root_t[3], pose_t *out)
{
    const skel_t *dst = rt->dst;
    out->joint_count = dst->joint_count;
    for (int j = 0; j < dst->joint_count; j++) {
        int p = dst->joint_parent[j];
        if (p < 0) {
            memcpy(out->rot[j], rt->dst_rot[j], sizeof out->rot[j]);
            memcpy(out->trans[j], root_t, sizeof out->trans[j]);
        } else {
            float inv[4];
            quat_conj(rt->dst_rot[p], inv);
            pose_quat_mul(inv, rt->dst_rot[j], out->rot[j]);
            quat_normalize(out->rot[j]);
            memcpy(out->trans[j], dst->joint_offset[j], sizeof out->trans[j]);
        }
    }
}

static bool fk(const skel_t *s, const pose_t *p, float (*mat)[POSE_MAT_FLOATS], float (*rot)[4])
{
    pose_model_job_t job = {.skel = s, .local = p, .capacity = SKEL_MAX_JOINTS, .model_mat = mat, .model_rot = rot};
    return pose_model_run(&job);
}

/* A source-space point mapped into the character's space: horizontally
 * about the anchor, vertically its height over FLOOR (above REST_SRC)
 * scaled onto REST_DST. */
static void map_point(const retarget_job_t *job, const float p[3], float floor, float rest_src, float rest_dst,
                      float out[3])
{
    const retarget_t *rt = job->rt;
    out[0] = job->anchor[0] + (p[0] - job->anchor[0]) * job->scale_xz;
    out[2] = job->anchor[2] + (p[2] - job->anchor[2]) * job->scale_xz;
    out[1] = floor + rest_dst + (p[1] - floor - rest_src) * rt->scale;
}

bool retarget_run(retarget_job_t *job)
{
    retarget_t *rt = job->rt;
    if (!rt || !job->source || !job->out || job->source->joint_count != rt->src->joint_count ||
        !isfinite(job->scale_xz) || !isfinite(job->ground_y_cm)) {
        log_error("retarget: bad job (pose of %d joints for a skeleton of %d, or non-finite floor/scale)",
                  job->source ? job->source->joint_count : -1, rt ? rt->src->joint_count : -1);
        return false;
    }
    const skel_t *dst = rt->dst;
    if (!fk(rt->src, job->source, rt->src_model, rt->src_rot))
        return false;
    dst_world(rt, NULL, NULL);
    /* The hip: its height above the ankles' rest height scaled, as the
     * ankles' (so a straight source leg gives a straight character leg),
     * horizontally about the anchor. */
    float src_hip[3], hip[3], root_t[3];
    mat_pos(rt->src_model[rt->src_hip], src_hip);
    map_point(job, src_hip, job->ground_y_cm, 0.5f * (rt->src_ankle_height_cm[0] + rt->src_ankle_height_cm[1]),
              0.5f * (rt->dst_ankle_height_cm[0] + rt->dst_ankle_height_cm[1]), hip);
    /* The character's root carries the hip (its ancestors keep their rest
     * orientation, so the rest offset leads from the root to the hip). */
    glm_vec3_sub(hip, rt->dst_root_to_hip, root_t);
    dst_locals(rt, root_t, job->out);

    if (!fk(dst, job->out, rt->dst_model, NULL))
        return false;
    for (int side = 0; side < 2; side++) {
        float a[3], floor = job->feet_ground_given ? job->foot_ground_y_cm[side] : job->ground_y_cm;
        if (job->foot_target)
            memcpy(a, job->foot_target[side], sizeof a);
        else
            mat_pos(rt->src_model[rt->src_leg[side][2]], a);
        map_point(job, a, floor, rt->src_ankle_height_cm[side], rt->dst_ankle_height_cm[side], job->ankle_target[side]);
        job->reached[side] = true;
        memcpy(job->ankle_mapped[side], job->ankle_target[side], sizeof job->ankle_mapped[side]);
        /* (cglm takes non-const vectors; the offsets and pins are only read.) */
        if (job->ankle_offset)
            glm_vec3_add(job->ankle_target[side], (float *)job->ankle_offset[side], job->ankle_target[side]);
        /* A pinned toe: the ankle where the foot, in its retargeted world
         * rotation, holds the toe joint on the pin (toe = ankle + R t). */
        if (job->toe_pin && job->toe_pinned[side] && rt->toe[side] >= 0) {
            float off[3];
            pose_quat_rotate(rt->dst_rot[rt->leg[side][2]], dst->joint_offset[rt->toe[side]], off);
            glm_vec3_sub((float *)job->toe_pin[side], off, job->ankle_target[side]);
        }
    }
    /* Heights scale with the legs but the ground does not: a shorter leg
     * cannot reach a planted foot down a slope, or at the end of a long
     * stride, from the scaled hip. Lower the hip until both reach (the
     * controller lowers its own the same way), within a bound. */
    if (job->ik) {
        float drop = 0.0f, limit = RETARGET_MAX_HIP_DROP * rt->dst_leg_cm;
        for (int side = 0; side < 2; side++) {
            vec3 t, m, e;
            mat_pos(rt->dst_model[rt->leg[side][0]], t);
            mat_pos(rt->dst_model[rt->leg[side][1]], m);
            mat_pos(rt->dst_model[rt->leg[side][2]], e);
            float reach = RETARGET_MAX_EXTENSION * (glm_vec3_distance(t, m) + glm_vec3_distance(m, e));
            const float *g = job->ankle_target[side];
            float h2 = (g[0] - t[0]) * (g[0] - t[0]) + (g[2] - t[2]) * (g[2] - t[2]);
            float need = h2 < reach * reach ? t[1] - (g[1] + sqrtf(reach * reach - h2)) : limit;
            drop = fmaxf(drop, need);
        }
        drop = fminf(drop, limit);
        if (drop > 0.0f) {
            root_t[1] -= drop;
            dst_locals(rt, root_t, job->out);
            if (!fk(dst, job->out, rt->dst_model, NULL))
                return false;
        }
    }
    float over[SKEL_MAX_JOINTS][4];
    bool has[SKEL_MAX_JOINTS] = {false};
    for (int side = 0; side < 2; side++) {
        if (!job->ik)
            continue;
        int thigh = rt->leg[side][0], shin = rt->leg[side][1], foot = rt->leg[side][2];
        ik_two_joint_job_t ik = {.max_extension = RETARGET_MAX_EXTENSION};
        mat_pos(rt->dst_model[thigh], ik.root);
        mat_pos(rt->dst_model[shin], ik.mid);
        mat_pos(rt->dst_model[foot], ik.end);
        memcpy(ik.target, job->ankle_target[side], sizeof ik.target);
        /* Knees bend towards where the pelvis faces. */
        static const float fwd[3] = {0.0f, 0.0f, 1.0f};
        pose_quat_rotate(rt->dst_rot[rt->dst_hip], fwd, ik.pole);
        if (!ik_two_joint_run(&ik))
            continue;
        job->reached[side] = ik.reached;
        float tmp[4];
        pose_quat_mul(ik.d_upper, rt->dst_rot[thigh], over[thigh]);
        pose_quat_mul(ik.d_upper, rt->dst_rot[shin], tmp);
        pose_quat_mul(ik.d_lower, tmp, over[shin]);
        /* The foot keeps its retargeted world rotation. */
        memcpy(over[foot], rt->dst_rot[foot], sizeof over[foot]);
        has[thigh] = has[shin] = has[foot] = true;
    }
    if (job->ik) {
        dst_world(rt, (const float(*)[4])over, has);
        dst_locals(rt, root_t, job->out);
        if (!fk(dst, job->out, rt->dst_model, NULL))
            return false;
    }
    for (int side = 0; side < 2; side++) {
        mat_pos(rt->dst_model[rt->leg[side][2]], job->ankle[side]);
        mat_pos(rt->dst_model[rt->toe[side] >= 0 ? rt->toe[side] : rt->leg[side][2]], job->toe[side]);
    }
    return true;
}
