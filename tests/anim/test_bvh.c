/* Tests for bvh: the hand-written fixture gives known joint positions, broken
 * files fail with one "FILE:LINE: problem" line, and every CMU training clip
 * in ../shared parses, maps onto the committed skeleton, and poses the same
 * as an independent double-precision Euler-matrix FK of the raw channels. */
#define _POSIX_C_SOURCE 200809L
#include "anim/bvh.h"
#include "anim/pose.h"
#include "anim/skel.h"
#include "core/file.h"
#include "core/log.h"
#include "check.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "tests/anim/fixtures/tiny.bvh"
#define CMU_TRAIN "../shared/mocap/cmu/train"

/* Model-space joint positions (and end sites) of FRAME, through the whole
 * bvh -> pose -> FK chain. */
static bool posed_positions(const bvh_t *b, const skel_t *s, int frame, float (*joints)[3], float (*ends)[3])
{
    static pose_t pose;
    bvh_map_t map;
    float model[SKEL_MAX_JOINTS][12];
    if (!bvh_map_skel(b, s, &map) || !bvh_frame_pose(b, s, &map, frame, &pose))
        return false;
    pose_model_job_t job = {.skel = s, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model};
    if (!pose_model_run(&job))
        return false;
    for (int j = 0; j < s->joint_count; j++) {
        joints[j][0] = model[j][3];
        joints[j][1] = model[j][7];
        joints[j][2] = model[j][11];
    }
    for (int e = 0; ends && e < s->end_count; e++) {
        const float *m = model[s->end_parent[e]];
        const float *o = s->end_offset[e];
        for (int r = 0; r < 3; r++)
            ends[e][r] = m[4 * r] * o[0] + m[4 * r + 1] * o[1] + m[4 * r + 2] * o[2] + m[4 * r + 3];
    }
    return true;
}

static bool near3(const float a[3], float x, float y, float z)
{
    return fabsf(a[0] - x) < 1e-4f && fabsf(a[1] - y) < 1e-4f && fabsf(a[2] - z) < 1e-4f;
}

static void test_fixture(void)
{
    static bvh_t b;
    static skel_t s;
    CHECK(bvh_load(&b, FIXTURE));
    CHECK(b.joint_count == 3 && b.end_count == 1 && b.channels_per_frame == 12);
    CHECK(b.frame_count == 3 && fabsf(b.frame_time_s - 0.0333333f) < 1e-7f);
    CHECK(b.channel[0][3] == BVH_ZROT && b.channel[1][0] == BVH_XROT && b.channel[2][0] == BVH_YROT);
    CHECK(bvh_to_skel(&b, &s));
    CHECK(skel_find(&s, "b") == 2 && skel_find_end(&s, "b_end") == 0);
    float j[SKEL_MAX_JOINTS][3], e[SKEL_MAX_ENDS][3];
    /* Frame 0: the rest pose. */
    CHECK(posed_positions(&b, &s, 0, j, e));
    CHECK(near3(j[0], 0, 0, 0) && near3(j[1], 0, 10, 0) && near3(j[2], 5, 10, 0));
    CHECK(near3(e[0], 5, 10, 2));
    /* Frame 1: root moved to (1,2,3) and turned 90 degrees about Z. */
    CHECK(posed_positions(&b, &s, 1, j, e));
    CHECK(near3(j[0], 1, 2, 3) && near3(j[1], -9, 2, 3) && near3(j[2], -9, 7, 3));
    CHECK(near3(e[0], -9, 7, 5));
    /* Frame 2: a = Rx(90) Ry(90) in its channel order (the reverse order
     * would put b at (0,10,-5)); b = Rz(90) from its Y Z X channels. */
    CHECK(posed_positions(&b, &s, 2, j, e));
    CHECK(near3(j[0], 0, 0, 0) && near3(j[1], 0, 10, 0) && near3(j[2], 0, 15, 0));
    CHECK(near3(e[0], 2, 15, 0));
    /* Out-of-range frames and a foreign skeleton are refused. */
    static pose_t pose;
    bvh_map_t map;
    CHECK(bvh_map_skel(&b, &s, &map));
    CHECK(!bvh_frame_pose(&b, &s, &map, 3, &pose));
    CHECK(!bvh_frame_pose(&b, &s, &map, -1, &pose));
    static skel_t cmu;
    CHECK(skel_load(&cmu, "assets/skeleton/cmu21.skel"));
    CHECK(!bvh_map_skel(&b, &cmu, &map));
    bvh_free(&b);
    CHECK(b.frames == NULL);

    /* CRLF, 6 channels on a non-root joint, mixed orders, "End site". */
    CHECK(bvh_load(&b, "tests/anim/fuzz_seeds_bvh/six_channels_crlf.bvh"));
    CHECK(b.joint_count == 3 && b.end_count == 2 && b.channels_per_frame == 15);
    CHECK(bvh_to_skel(&b, &s) && bvh_map_skel(&b, &s, &map));
    CHECK(bvh_frame_pose(&b, &s, &map, 1, &pose));
    /* pelvis: offset (1.5 90 -2) + Xposition 32.5, Yposition 45, Zposition 2. */
    CHECK(near3(pose.trans[0], 34.0f, 135.0f, 0.0f));
    /* R = Rz(-12.5) Ry(-0.5) Rx(1), composed from single-axis quaternions. */
    static const float ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    float qz[4], qy[4], qx[4], t[4], q[4];
    pose_quat_axis_angle(ax[2], -12.5f * 0.017453292519943295f, qz);
    pose_quat_axis_angle(ax[1], -0.5f * 0.017453292519943295f, qy);
    pose_quat_axis_angle(ax[0], 1.0f * 0.017453292519943295f, qx);
    pose_quat_mul(qz, qy, t);
    pose_quat_mul(t, qx, q);
    for (int i = 0; i < 4; i++)
        CHECK(fabsf(pose.rot[0][i] - q[i]) < 1e-6f);
    /* spine: 6 channels, translation = offset + (0.1 -0.2 0.3). */
    CHECK(near3(pose.trans[1], 0.1f, 12.3f, 0.3f));
    bvh_free(&b);
}

/* Parses TEXT with stderr captured into MSG; returns the parse result. */
static bool parse_capture(const char *text, size_t len, char *msg, size_t size)
{
    static bvh_t b;
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    if (saved < 0 || !tmp) {
        check_failed++;
        return true;
    }
    dup2(fileno(tmp), 2);
    bool ok = bvh_parse(&b, text, len, "t.bvh");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(msg, 1, size - 1, tmp);
    msg[n] = 0;
    fclose(tmp);
    if (ok)
        bvh_free(&b);
    else
        CHECK(b.joint_count == 0 && b.frames == NULL);
    return ok;
}

/* The fixture with line LINE (1-based) replaced by REPL (NULL: removed). */
static size_t with_line(const char *base, int line, const char *repl, char *out, size_t size)
{
    size_t n = 0;
    int cur = 1;
    for (const char *p = base; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        const char *src = p;
        size_t slen = len;
        char buf[256];
        if (cur == line) {
            if (!repl) {
                src = "";
                slen = 0;
            } else {
                slen = (size_t)snprintf(buf, sizeof buf, "%s\n", repl);
                src = buf;
            }
        }
        if (n + slen < size) {
            memcpy(out + n, src, slen);
            n += slen;
        }
        p += len;
        cur++;
    }
    out[n < size ? n : size - 1] = 0;
    return n;
}

static void expect_error(const char *text, size_t len, const char *where, const char *what)
{
    char msg[512];
    CHECK(!parse_capture(text, len, msg, sizeof msg));
    /* One line, naming the file and line, and saying what is wrong. */
    char *nl = strchr(msg, '\n');
    CHECK(nl && nl[1] == 0);
    if (!strstr(msg, where) || !strstr(msg, what)) {
        fprintf(stderr, "expected '%s' ... '%s', got: %s", where, what, msg);
        check_failed++;
    }
}

static void test_errors(void)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(FIXTURE, 1 << 16, &data, &size)) {
        check_failed++;
        return;
    }
    const char *base = (const char *)data;
    char msg[512];
    static char buf[1 << 17];
    size_t n;
    CHECK(parse_capture(base, size, msg, sizeof msg));

    /* Line numbers refer to tests/anim/fixtures/tiny.bvh. */
    /* A missing last frame line: caught by the size check at 'Frames:'... */
    n = with_line(base, 26, NULL, buf, sizeof buf);
    expect_error(buf, n, "t.bvh:22:", "truncated");
    /* ...or, when longer lines leave room, where the data ends. */
    static char longer[1 << 12];
    with_line(base, 24,
              "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 "
              "0.0000 0.0000",
              longer, sizeof longer);
    n = with_line(longer, 26, NULL, buf, sizeof buf);
    expect_error(buf, n, "t.bvh:26:", "truncated: Frames: 3 but the data ends after 2");
    n = with_line(base, 25, "1 2 3 90 0 0 0 0 0 0 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "truncated: frame 1 has 11 of 12 values");
    /* Finite but implausible (bvh.h's limits), and just inside them. */
    n = with_line(base, 25, "1e38 2 3 90 0 0 0 0 0 0 0 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "frame 1: joint 'root' Xposition 1e+38 outside +-100000");
    n = with_line(base, 25, "1 2 3 90 0 0 0 0 -36001 0 0 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "frame 1: joint 'a' Zrotation -36001 outside +-36000");
    n = with_line(base, 25, "99999 2 3 35999 0 0 0 0 -35999 0 0 0", buf, sizeof buf);
    CHECK(parse_capture(buf, n, msg, sizeof msg));
    n = with_line(base, 8, "OFFSET 0 1e38 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:8:", "OFFSET value 1e+38 outside +-1000");
    n = with_line(base, 8, "OFFSET 0 999 0", buf, sizeof buf);
    CHECK(parse_capture(buf, n, msg, sizeof msg));
    /* A NUL byte: the rest of its line would be silently lost. */
    memcpy(buf, base, size);
    buf[size - 3] = 0;
    expect_error(buf, size, "t.bvh:26:", "NUL byte at column");
    n = with_line(base, 25, "1 2 3 90 0 0 0 0 0 0 0 0 7", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "more than 12 values");
    n = with_line(base, 9, "CHANNELS 4 Xrotation Yrotation Zrotation Xposition", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:9:", "CHANNELS count must be 3 or 6");
    n = with_line(base, 9, "CHANNELS 3 Xrotation Wrotation Zrotation", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:9:", "not one");
    n = with_line(base, 9, "CHANNELS 3 Xrotation Xrotation Zrotation", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:9:", "listed twice");
    n = with_line(base, 25, "1 2 3 nan 0 0 0 0 0 0 0 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "'nan' is not a finite number");
    n = with_line(base, 25, "1 2 3 1e999 0 0 0 0 0 0 0 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:25:", "not a finite number");
    n = with_line(base, 8, "OFFSET 0 inf 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:8:", "OFFSET needs 3 finite numbers");
    n = with_line(longer, 22, "Frames: 4", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:27:", "truncated: Frames: 4 but the data ends after 3");
    n = with_line(base, 22, "Frames: 2", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:26:", "more frame data than Frames: 2");
    /* A huge count in a small file is refused before any allocation. */
    n = with_line(base, 22, "Frames: 900000000", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:22:", "cannot fit");
    n = with_line(base, 23, "Frame Time: -1", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:23:", "positive");
    n = with_line(base, 21, "MOTIONS", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:21:", "expected 'MOTION'");
    n = with_line(base, 13, NULL, buf, sizeof buf);
    expect_error(buf, n, "t.bvh:", "joint 'b' has no CHANNELS");
    n = with_line(base, 12, "\t\tOFFSET 5 0", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:13:", "OFFSET needs 3 finite numbers");
    n = with_line(base, 10, "\t\tJOINT a", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:10:", "defined twice");
    n = with_line(base, 1, "HIERARCHY junk", buf, sizeof buf);
    expect_error(buf, n, "t.bvh:1:", "expected 'ROOT'");
    expect_error("", 0, "t.bvh:1:", "unexpected end of file");
    /* Cut anywhere inside the hierarchy: always one clean error. */
    for (size_t cut = 1; cut < 330 && cut < size; cut += 7) {
        CHECK(!parse_capture(base, cut, msg, sizeof msg));
        CHECK(strncmp(msg, "strider: error: t.bvh:", 22) == 0);
    }

    /* Too many joints: a chain of 300. */
    n = (size_t)snprintf(buf, sizeof buf,
                         "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n");
    for (int i = 1; i < 300; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "JOINT j%d\n{\nOFFSET 0 1 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n", i);
    expect_error(buf, n, "t.bvh:", "more than 256 joints");
    file_free(data);
}

/* Independent reference: double-precision Euler matrices, R = R1 R2 R3 in
 * channel order, position channels added to the file's OFFSET. */
static void reference_fk(const bvh_t *b, int frame, double (*pos)[3], double (*rot)[9])
{
    const float *row = b->frames + (size_t)frame * (size_t)b->channels_per_frame;
    for (int j = 0; j < b->joint_count; j++) {
        double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        double t[3] = {b->joint_offset[j][0], b->joint_offset[j][1], b->joint_offset[j][2]};
        for (int c = 0; c < b->channel_count[j]; c++) {
            double v = row[b->channel_first[j] + c];
            int ch = b->channel[j][c];
            if (ch <= BVH_ZPOS) {
                t[ch] += v;
                continue;
            }
            double a = v * 3.14159265358979323846 / 180.0, cs = cos(a), sn = sin(a);
            double m[9];
            if (ch == BVH_XROT) {
                double mx[9] = {1, 0, 0, 0, cs, -sn, 0, sn, cs};
                memcpy(m, mx, sizeof m);
            } else if (ch == BVH_YROT) {
                double my[9] = {cs, 0, sn, 0, 1, 0, -sn, 0, cs};
                memcpy(m, my, sizeof m);
            } else {
                double mz[9] = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
                memcpy(m, mz, sizeof m);
            }
            double o[9];
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++)
                    o[3 * i + k] = r[3 * i] * m[k] + r[3 * i + 1] * m[3 + k] + r[3 * i + 2] * m[6 + k];
            memcpy(r, o, sizeof r);
        }
        int p = b->joint_parent[j];
        if (p < 0) {
            memcpy(rot[j], r, sizeof r);
            memcpy(pos[j], t, sizeof t);
            continue;
        }
        for (int i = 0; i < 3; i++) {
            pos[j][i] = pos[p][i] + rot[p][3 * i] * t[0] + rot[p][3 * i + 1] * t[1] + rot[p][3 * i + 2] * t[2];
            for (int k = 0; k < 3; k++)
                rot[j][3 * i + k] = rot[p][3 * i] * r[k] + rot[p][3 * i + 1] * r[3 + k] + rot[p][3 * i + 2] * r[6 + k];
        }
    }
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_cmu(void)
{
    static skel_t s;
    static bvh_t b;
    CHECK(skel_load(&s, "assets/skeleton/cmu21.skel"));
    DIR *dir = opendir(CMU_TRAIN);
    if (!dir) {
        fprintf(stderr, "test_bvh: cannot open %s (the shared mocap folder)\n", CMU_TRAIN);
        check_failed++;
        return;
    }
    static char *names[4096];
    int count = 0;
    for (struct dirent *d; (d = readdir(dir)) != NULL && count < 4096;) {
        size_t l = strlen(d->d_name);
        if (l > 4 && strcmp(d->d_name + l - 4, ".bvh") == 0)
            names[count++] = strdup(d->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)count, sizeof names[0], cmp_name);
    CHECK(count >= 300);
    int lfoot = skel_find_end(&s, "lFoot_end"), rfoot = skel_find_end(&s, "rFoot_end");
    double worst = 0, floor_lo = 1e9, floor_hi = -1e9;
    long frames_checked = 0;
    for (int i = 0; i < count; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CMU_TRAIN, names[i]);
        if (!bvh_load(&b, path)) {
            check_failed++;
            continue;
        }
        CHECK(b.joint_count == 21 && b.channels_per_frame == 66);
        for (int j = 0; j < s.joint_count; j++) {
            int bj = -1;
            for (int k = 0; k < b.joint_count; k++)
                if (strcmp(b.joint_name[k], s.joint_name[j]) == 0)
                    bj = k;
            CHECK(bj >= 0);
            for (int a = 0; bj >= 0 && a < 3; a++)
                CHECK(fabsf(b.joint_offset[bj][a] - s.joint_offset[j][a]) < 1e-4f);
        }
        bvh_map_t map;
        CHECK(bvh_map_skel(&b, &s, &map));
        double clip_floor = 1e9;
        for (int f = 0; f < b.frame_count; f++) {
            float jp[SKEL_MAX_JOINTS][3], ep[SKEL_MAX_ENDS][3];
            static double rp[BVH_MAX_JOINTS][3], rr[BVH_MAX_JOINTS][9];
            if (!posed_positions(&b, &s, f, jp, ep)) {
                check_failed++;
                break;
            }
            clip_floor = fmin(clip_floor, fmin(ep[lfoot][1], ep[rfoot][1]));
            /* The double-precision reference on every 7th frame. */
            if (f % 7 != 0)
                continue;
            reference_fk(&b, f, rp, rr);
            for (int j = 0; j < s.joint_count; j++) {
                int bj = map.bvh_joint[j];
                double d = 0;
                for (int a = 0; a < 3; a++)
                    d += (jp[j][a] - rp[bj][a]) * (jp[j][a] - rp[bj][a]);
                worst = fmax(worst, sqrt(d));
            }
            frames_checked++;
        }
        floor_lo = fmin(floor_lo, clip_floor);
        floor_hi = fmax(floor_hi, clip_floor);
        bvh_free(&b);
    }
    for (int i = 0; i < count; i++)
        free(names[i]);
    printf("test_bvh: %d CMU clips, %ld frames: max |FK - reference| %.2g cm, lowest toe per "
           "clip %.1f..%.1f cm\n",
           count, frames_checked, worst, floor_lo, floor_hi);
    /* float FK over a 6-joint chain, root up to ~10 m from the origin. */
    CHECK(worst < 5e-3);
    /* The README: the lowest toe per clip lies within about -10..+8 units; a
     * wrong Euler convention throws the feet far off the floor. */
    CHECK(floor_lo > -15.0 && floor_hi < 12.0);
}

int main(void)
{
    log_set_level(LOG_QUIET);
    test_fixture();
    log_set_level(LOG_ERROR);
    test_errors();
    log_set_level(LOG_QUIET);
    test_cmu();
    return check_summary();
}
