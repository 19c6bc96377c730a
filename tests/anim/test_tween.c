/* Tests of anim/tween: keys come back bit for bit at their times (both
 * modes, looping and clamped, negative times), loop wrap and negative time
 * land between the last and the first key, clamping holds the end keys,
 * Catmull-Rom reproduces linear motion (uniform and non-uniform keys),
 * normals stay unit length, scattered output leaves other vertices alone,
 * tween-then-skin equals skinning the tweened keys, bad timings are refused. */
#include "anim/tween.h"

#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEYS = 5, VC = 37 };
#define FPS 12.0f

static float g_pos[KEYS][VC][3], g_nrm[KEYS][VC][3], g_ao[KEYS][VC];
static float g_out_p[VC][3], g_out_n[VC][3], g_out_a[VC];

static uint32_t g_rng = 777u;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return (float)(g_rng >> 8) / 8388608.0f - 1.0f;
}

static void fill_keys(void)
{
    for (int k = 0; k < KEYS; k++)
        for (int v = 0; v < VC; v++) {
            float l = 0.0f;
            for (int c = 0; c < 3; c++) {
                g_pos[k][v][c] = frand() * 20.0f;
                g_nrm[k][v][c] = frand() + (c == 1 ? 2.0f : 0.0f);
                l += g_nrm[k][v][c] * g_nrm[k][v][c];
            }
            for (int c = 0; c < 3; c++)
                g_nrm[k][v][c] /= sqrtf(l);
            /* Half the vertices sit at the ends of the AO range, so the cubic overshoots. */
            g_ao[k][v] = v % 2 ? 0.5f + 0.5f * frand() : (k % 2 ? 1.0f : 0.0f);
        }
}

static tween_job_t make_job(tween_mode_t mode, bool loop, double t)
{
    tween_job_t j = {.mode = mode,
                     .timing = {.key_count = KEYS, .fps = FPS, .loop = loop},
                     .time_s = t,
                     .vertex_count = VC,
                     .positions = &g_pos[0][0][0],
                     .normals = &g_nrm[0][0][0],
                     .ao = &g_ao[0][0],
                     .out_positions = &g_out_p[0][0],
                     .out_normals = &g_out_n[0][0],
                     .out_ao = g_out_a};
    return j;
}

static bool equals_key(int k)
{
    return memcmp(g_out_p, g_pos[k], sizeof g_out_p) == 0 && memcmp(g_out_n, g_nrm[k], sizeof g_out_n) == 0 &&
           memcmp(g_out_a, g_ao[k], sizeof g_out_a) == 0;
}

static float max_diff_lerp(int a, int b, float f)
{
    float e = 0.0f;
    for (int v = 0; v < VC; v++)
        for (int c = 0; c < 3; c++)
            e = fmaxf(e, fabsf(g_out_p[v][c] - ((1.0f - f) * g_pos[a][v][c] + f * g_pos[b][v][c])));
    return e;
}

static float max_ao_diff_lerp(int a, int b, float f)
{
    float e = 0.0f;
    for (int v = 0; v < VC; v++)
        e = fmaxf(e, fabsf(g_out_a[v] - ((1.0f - f) * g_ao[a][v] + f * g_ao[b][v])));
    return e;
}

static float max_normal_error(void)
{
    float e = 0.0f;
    for (int v = 0; v < VC; v++)
        e = fmaxf(e, fabsf(sqrtf(g_out_n[v][0] * g_out_n[v][0] + g_out_n[v][1] * g_out_n[v][1] +
                                 g_out_n[v][2] * g_out_n[v][2]) -
                           1.0f));
    return e;
}

static void test_keys_exact(void)
{
    for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++) {
        /* Looping: every integer key time, negative ones and later periods included. */
        for (int k = -3 * KEYS; k <= 3 * KEYS; k++) {
            tween_job_t j = make_job((tween_mode_t)mode, true, k / (double)FPS);
            CHECK(tween_run(&j));
            CHECK(equals_key(((k % KEYS) + KEYS) % KEYS));
            /* Times computed in float land on the key too. */
            j.time_s = (double)((float)k / FPS);
            CHECK(tween_run(&j));
            CHECK(equals_key(((k % KEYS) + KEYS) % KEYS));
        }
        /* Clamped: keys inside, the end keys outside. */
        for (int k = -4; k <= KEYS + 4; k++) {
            tween_job_t j = make_job((tween_mode_t)mode, false, k / (double)FPS);
            CHECK(tween_run(&j));
            CHECK(equals_key(k < 0 ? 0 : (k >= KEYS ? KEYS - 1 : k)));
        }
    }
}

static void test_loop_wrap_negative_clamp(void)
{
    /* Half way from the last key back to key 0. */
    tween_job_t j = make_job(TWEEN_LINEAR, true, (KEYS - 0.5) / FPS);
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(KEYS - 1, 0, 0.5f) < 1e-5f);
    CHECK(max_ao_diff_lerp(KEYS - 1, 0, 0.5f) < 1e-6f);
    CHECK(max_normal_error() < 1e-5f);
    /* -0.25 key: three quarters of the way from the last key to key 0,
     * and the same as one period later. */
    j.time_s = -0.25 / FPS;
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(KEYS - 1, 0, 0.75f) < 1e-5f);
    float first[VC][3];
    memcpy(first, g_out_p, sizeof first);
    j.time_s = (KEYS - 0.25) / FPS;
    CHECK(tween_run(&j));
    float e = 0.0f;
    for (int v = 0; v < VC; v++)
        for (int c = 0; c < 3; c++)
            e = fmaxf(e, fabsf(first[v][c] - g_out_p[v][c]));
    CHECK(e < 1e-4f);
    /* Gosselin's key index and fraction. */
    tween_span_t s;
    tween_locate(&j.timing, -0.25 / FPS, &s);
    CHECK(s.key[1] == KEYS - 1 && s.key[2] == 0 && fabs(s.frac - 0.75) < 1e-9);
    CHECK(s.key[0] == KEYS - 2 && s.key[3] == 1);
    tween_locate(&j.timing, 2.3 / FPS, &s);
    CHECK(s.key[1] == 2 && s.key[2] == 3 && fabs(s.frac - 0.3) < 1e-6);
    /* Clamped: between keys is a lerp, past the ends the end keys, and the
     * neighbours at the ends repeat the end key. */
    j = make_job(TWEEN_LINEAR, false, 1.6 / FPS);
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(1, 2, 0.6f) < 1e-5f);
    tween_locate(&j.timing, 0.5 / FPS, &s);
    CHECK(s.key[0] == 0 && s.key[1] == 0 && s.key[2] == 1 && s.time[0] == s.time[1]);
    tween_locate(&j.timing, (KEYS - 1.5) / FPS, &s);
    CHECK(s.key[2] == KEYS - 1 && s.key[3] == KEYS - 1 && s.time[2] == s.time[3]);
    tween_locate(&j.timing, -100.0, &s);
    CHECK(s.key[1] == 0 && s.frac == 0.0);
    tween_locate(&j.timing, 100.0, &s);
    CHECK(s.key[1] == KEYS - 1 && s.frac == 0.0);
}

/* Catmull-Rom reproduces p(t) = a + b t exactly (up to rounding) when the
 * tangents use the real key spacing: uniform and non-uniform keys. */
static void test_hermite_linear_motion(void)
{
    enum { N = 6 };
    static const float times[N] = {0.0f, 0.1f, 0.35f, 0.4f, 0.7f, 1.25f};
    static float p[N][2][3], n[N][2][3];
    float out_p[2][3], out_n[2][3];
    const float a[3] = {1.0f, -2.0f, 3.0f}, b[3] = {10.0f, 4.0f, -6.0f};
    for (int uniform = 0; uniform < 2; uniform++) {
        for (int k = 0; k < N; k++)
            for (int v = 0; v < 2; v++)
                for (int c = 0; c < 3; c++) {
                    float t = uniform ? k / FPS : times[k];
                    p[k][v][c] = a[c] + b[c] * t + (float)v;
                    n[k][v][c] = c == 1 ? 1.0f : 0.0f;
                }
        tween_job_t j = {.mode = TWEEN_HERMITE,
                         .timing = {.key_count = N, .fps = FPS, .key_times = uniform ? NULL : times},
                         .vertex_count = 2,
                         .positions = &p[0][0][0],
                         .normals = &n[0][0][0],
                         .out_positions = &out_p[0][0],
                         .out_normals = &out_n[0][0]};
        CHECK(tween_timing_check(&j.timing));
        float span = uniform ? (N - 1) / FPS : times[N - 1];
        float e = 0.0f;
        /* Interior segments only: clamped ends use one-sided tangents,
         * which are exact for linear motion as well. */
        for (int i = 0; i <= 100; i++) {
            double t = span * i / 100.0;
            j.time_s = t;
            CHECK(tween_run(&j));
            for (int c = 0; c < 3; c++)
                e = fmaxf(e, fabsf(out_p[1][c] - (a[c] + b[c] * (float)t + 1.0f)));
        }
        CHECK(e < 1e-4f);
        printf("hermite on linear motion (%s keys): max error %.2g cm\n", uniform ? "uniform" : "non-uniform",
               (double)e);
    }
}

static void test_hermite_through_keys_and_normals(void)
{
    float e_near = 0.0f, n_err = 0.0f, ao_lo = 1.0f, ao_hi = 0.0f;
    for (int k = 0; k < KEYS; k++) {
        /* Just after key k the curve is at key k (continuity). */
        tween_job_t j = make_job(TWEEN_HERMITE, true, (k + 1e-3) / FPS);
        CHECK(tween_run(&j));
        for (int v = 0; v < VC; v++)
            for (int c = 0; c < 3; c++)
                e_near = fmaxf(e_near, fabsf(g_out_p[v][c] - g_pos[k][v][c]));
    }
    /* A thousandth of a key from the key, on 20 cm random keys. */
    CHECK(e_near < 0.2f);
    for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++)
        for (int loop = 0; loop < 2; loop++)
            for (int i = -50; i < 150; i++) {
                tween_job_t j = make_job((tween_mode_t)mode, loop, i * 0.0137);
                CHECK(tween_run(&j));
                n_err = fmaxf(n_err, max_normal_error());
                for (int v = 0; v < VC; v++) {
                    ao_lo = fminf(ao_lo, g_out_a[v]);
                    ao_hi = fmaxf(ao_hi, g_out_a[v]);
                }
            }
    CHECK(n_err < 1e-5f);
    /* AO stays in 0..1 (clamped where the cubic overshoots) and reaches both ends. */
    CHECK(ao_lo == 0.0f && ao_hi == 1.0f);
    printf("normals: max | |n| - 1 | = %.2g over 800 tweens\n", (double)n_err);
    /* The Hermite curve differs from the lerp between keys (it is a cubic). */
    tween_job_t j = make_job(TWEEN_HERMITE, true, 1.5 / FPS);
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(1, 2, 0.5f) > 1e-2f);
}

static void test_non_uniform(void)
{
    static const float times[4] = {0.0f, 0.1f, 0.35f, 0.4f};
    tween_job_t j = make_job(TWEEN_LINEAR, true, 0.35);
    j.timing.key_count = 4;
    j.timing.key_times = times;
    j.timing.duration_s = 0.6f;
    CHECK(tween_timing_check(&j.timing));
    CHECK(tween_run(&j));
    CHECK(equals_key(2));
    j.time_s = 0.6 + 0.1;
    CHECK(tween_run(&j));
    CHECK(equals_key(1));
    /* Between the last key (0.4 s) and key 0 again at 0.6 s. */
    j.time_s = 0.5;
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(3, 0, 0.5f) < 1e-5f);
    j.time_s = -0.05; /* = 0.55 s */
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(3, 0, 0.75f) < 1e-5f);
    j.time_s = 0.2;
    CHECK(tween_run(&j));
    CHECK(max_diff_lerp(1, 2, 0.4f) < 1e-5f);
    /* Clamped: past the last key is the last key. */
    j.timing.loop = false;
    j.time_s = 0.5;
    CHECK(tween_run(&j));
    CHECK(equals_key(3));
}

static void test_scatter(void)
{
    static float big_p[2 * VC][3], big_n[2 * VC][3], big_a[2 * VC];
    static uint32_t idx[VC];
    for (int v = 0; v < VC; v++)
        idx[v] = (uint32_t)(2 * v + 1);
    for (int v = 0; v < 2 * VC; v++)
        for (int c = 0; c < 3; c++)
            big_p[v][c] = big_n[v][c] = big_a[v] = -7.0f;
    tween_job_t j = make_job(TWEEN_HERMITE, true, 2.0 / FPS);
    j.out_vertex = idx;
    j.out_positions = &big_p[0][0];
    j.out_normals = &big_n[0][0];
    j.out_ao = big_a;
    CHECK(tween_run(&j));
    bool ok = true;
    for (int v = 0; v < VC; v++) {
        ok = ok && big_p[2 * v][0] == -7.0f && big_n[2 * v][2] == -7.0f && big_a[2 * v] == -7.0f;
        ok = ok && big_a[2 * v + 1] == g_ao[2][v];
        ok = ok && memcmp(big_p[2 * v + 1], g_pos[2][v], sizeof big_p[0]) == 0;
        ok = ok && memcmp(big_n[2 * v + 1], g_nrm[2][v], sizeof big_n[0]) == 0;
    }
    CHECK(ok);
    j.time_s = 2.4 / FPS;
    CHECK(tween_run(&j));
    tween_job_t dense = make_job(TWEEN_HERMITE, true, 2.4 / FPS);
    CHECK(tween_run(&dense));
    ok = true;
    for (int v = 0; v < VC; v++) {
        ok = ok && memcmp(big_p[2 * v + 1], g_out_p[v], sizeof big_p[0]) == 0 && big_p[2 * v][1] == -7.0f;
        ok = ok && big_a[2 * v + 1] == g_out_a[v] && big_a[2 * v] == -7.0f;
    }
    CHECK(ok);
}

/* Two joints: joint 1 turned 90 degrees about Y and moved; vertices split
 * their weights between the joints. */
static void test_tween_then_skin(void)
{
    static uint8_t joints[VC][4];
    static float weights[VC][4];
    static float bind_a[VC][3], bind_n_a[VC][3], bind_b[VC][3], bind_n_b[VC][3];
    static float skin_a[VC][3], skin_na[VC][3], skin_b[VC][3], skin_nb[VC][3];
    const float palette[2][12] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, {0, 0, 1, 5, 0, 1, 0, -2, -1, 0, 0, 3}};
    for (int v = 0; v < VC; v++) {
        float w = (float)(v % 5) / 4.0f;
        joints[v][0] = w >= 0.5f ? 1 : 0;
        joints[v][1] = w >= 0.5f ? 0 : 1;
        weights[v][0] = w >= 0.5f ? w : 1.0f - w;
        weights[v][1] = 1.0f - weights[v][0];
    }
    for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++)
        for (int step = 0; step < 7; step++) {
            double t = -0.3 + step * 0.123;
            /* Reference: tween into A, then skin A. */
            tween_job_t tj = make_job((tween_mode_t)mode, true, t);
            tj.out_positions = &bind_a[0][0];
            tj.out_normals = &bind_n_a[0][0];
            CHECK(tween_run(&tj));
            skin_job_t sj = {.vertex_count = VC,
                             .influences = 2,
                             .method = SKIN_LBS_MATRIX,
                             .isa = SKIN_ISA_SCALAR,
                             .positions = &bind_a[0][0],
                             .normals = &bind_n_a[0][0],
                             .joints_u8 = &joints[0][0],
                             .weights = &weights[0][0],
                             .joint_count = 2,
                             .palette = &palette[0][0],
                             .out_positions = &skin_a[0][0],
                             .out_normals = &skin_na[0][0]};
            CHECK(skin_run(&sj));
            /* The helper with its own scratch. */
            tj.out_positions = &bind_b[0][0];
            tj.out_normals = &bind_n_b[0][0];
            sj.positions = &bind_b[0][0];
            sj.normals = &bind_n_b[0][0];
            sj.out_positions = &skin_b[0][0];
            sj.out_normals = &skin_nb[0][0];
            CHECK(tween_skin_run(&tj, &sj));
            CHECK(memcmp(skin_a, skin_b, sizeof skin_a) == 0);
            CHECK(memcmp(skin_na, skin_nb, sizeof skin_na) == 0);
            /* Skinning something other than the tween's output is refused. */
            sj.positions = &bind_a[0][0];
            log_level_t level = log_get_level();
            log_set_level(LOG_QUIET);
            CHECK(!tween_skin_run(&tj, &sj));
            log_set_level(level);
        }
}

static void test_refusals(void)
{
    static const float bad_first[3] = {0.1f, 0.2f, 0.3f}, not_increasing[3] = {0.0f, 0.2f, 0.2f};
    tween_timing_t t = {.key_count = 3, .key_times = bad_first};
    CHECK(!tween_timing_check(&t));
    t.key_times = not_increasing;
    CHECK(!tween_timing_check(&t));
    static const float ok_times[3] = {0.0f, 0.2f, 0.3f};
    t.key_times = ok_times;
    CHECK(tween_timing_check(&t));
    t.loop = true;
    t.duration_s = 0.3f; /* key 0 would repeat on the last key */
    CHECK(!tween_timing_check(&t));
    t.duration_s = NAN;
    CHECK(!tween_timing_check(&t));
    tween_timing_t u = {.key_count = 3, .fps = NAN};
    CHECK(!tween_timing_check(&u));
    u.fps = 0.0f;
    CHECK(!tween_timing_check(&u));
    u.key_count = 0;
    u.fps = 10.0f;
    CHECK(!tween_timing_check(&u));
    tween_job_t j = make_job(TWEEN_LINEAR, true, NAN);
    CHECK(!tween_run(&j));
    j = make_job((tween_mode_t)7, true, 0.0);
    CHECK(!tween_run(&j));
    j = make_job(TWEEN_LINEAR, true, 0.0);
    j.out_normals = NULL;
    CHECK(!tween_run(&j));
    j = make_job(TWEEN_LINEAR, true, 0.0);
    j.out_ao = NULL;
    CHECK(!tween_run(&j));
}

int main(void)
{
    fill_keys();
    test_keys_exact();
    test_loop_wrap_negative_clamp();
    test_hermite_linear_motion();
    test_hermite_through_keys_and_normals();
    test_non_uniform();
    test_scatter();
    test_tween_then_skin();
    log_set_level(LOG_QUIET);
    test_refusals();
    return check_summary();
}
