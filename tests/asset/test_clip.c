/* Tests for the vertex-animated clip (.vac) loader and the key reduction:
 *   (no arguments) a synthetic clip round-trips through clip_serialize /
 *   clip_parse bit for bit; truncation, a corrupt checksum, a bad count,
 *   an out-of-range or unsorted vertex index, NaN and unsorted key times,
 *   -128, a zero normal and non-zero padding each fail with one line naming
 *   the problem;
 *   linear motion reduces to its two end keys (linear and Hermite); a
 *   random clip reduced under a bound stays within it at every original
 *   key time, rebuilt by anim/tween as the player does.
 *   --check ORIG.vac REDUCED.vac BOUND_CM linear|hermite: the same bound
 *   check on files (used on the shipped clip by the regeneration test).
 */
#define _POSIX_C_SOURCE 200809L
#include "asset/clip.h"
#include "core/file.h"
#include "core/log.h"
#include "kr.h"
#include "capture.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Float rounding between the reducer's sums and tween_run's (cm). */
#define ROUNDING_CM 1e-5f

static bool parse_capture(const uint8_t *data, size_t size, clip_t *c)
{
    capture_begin();
    bool ok = clip_parse(c, data, size, "test.vac");
    capture_end();
    return ok;
}

static uint32_t g_rng = 99u;
static float frand(void) /* [-1, 1) */
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return (float)(g_rng >> 8) / 8388608.0f - 1.0f;
}

/* VC animated vertices of a 50-vertex mesh, KEYS keys at FPS. MOTION 0:
 * random walk; 1: linear (offset q = 3 k steps, exactly linear). */
static void make_clip(clip_t *c, uint32_t vc, uint32_t keys, bool loop, int motion)
{
    memset(c, 0, sizeof *c);
    CHECK(clip_alloc(c, vc, keys));
    snprintf(c->mesh, sizeof c->mesh, "head");
    c->mesh_vertex_count = 50;
    c->flags = loop ? CLIP_LOOP : 0u;
    c->fps = 10.0f;
    c->pos_step_cm = 0.01f;
    for (uint32_t i = 0; i < vc; i++)
        c->vertex[i] = 2 * i + 1;
    for (uint32_t k = 0; k < keys; k++)
        c->key_time[k] = (float)(k / 10.0);
    c->duration_s = loop ? (float)(keys / 10.0) : c->key_time[keys - 1];
    float *off = calloc((size_t)vc * 3, sizeof(float)), *nrm = calloc((size_t)vc * 3, sizeof(float));
    float *walk = calloc((size_t)vc * 3, sizeof(float)), *ao = calloc(vc, sizeof(float));
    for (uint32_t k = 0; k < keys; k++) {
        for (uint32_t i = 0; i < vc * 3; i++) {
            walk[i] += frand() * 0.1f;
            off[i] = motion == 1 ? (float)(3 * k * (i % 3 + 1)) * c->pos_step_cm : walk[i];
            nrm[i] = i % 3 == 1 ? 1.0f : 0.1f * frand();
            ao[i / 3] = 0.5f + 0.5f * frand();
        }
        clip_set_key(c, k, off, nrm, ao);
    }
    free(off);
    free(nrm);
    free(walk);
    free(ao);
}

/* Largest vertex distance (cm) between ORIG's keys and REDUCED rebuilt by
 * tween_run at every original key time. */
static float reduced_error(const clip_t *orig, const clip_t *reduced, tween_mode_t mode)
{
    size_t n = (size_t)orig->vertex_count * 3;
    float *out = calloc(n, sizeof(float));
    float worst = 0.0f;
    for (uint32_t k = 0; k < orig->key_count; k++) {
        tween_job_t j = {.mode = mode,
                         .timing = clip_timing(reduced),
                         .time_s = orig->key_time[k],
                         .vertex_count = (int)reduced->vertex_count,
                         .positions = reduced->offset,
                         .out_positions = out};
        CHECK(tween_run(&j));
        for (size_t v = 0; v < n; v += 3) {
            float d = 0.0f;
            for (int c = 0; c < 3; c++) {
                float e = out[v + c] - orig->offset[k * n + v + c];
                d += e * e;
            }
            worst = fmaxf(worst, sqrtf(d));
        }
    }
    free(out);
    return worst;
}

static void test_round_trip(void)
{
    clip_t c, back;
    make_clip(&c, 7, 5, true, 0);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK(clip_serialize(&c, &data, &size));
    CHECK(size % 4 == 0 && size == 96 + 7 * 4 + 5 * 4 + 5 * 7 * 7 + 3);
    CHECK(parse_capture(data, size, &back));
    CHECK(back.key_count == 5 && back.vertex_count == 7 && back.mesh_vertex_count == 50 && (back.flags & CLIP_LOOP));
    CHECK(strcmp(back.mesh, "head") == 0 && back.fps == 10.0f && back.duration_s == c.duration_s);
    CHECK(memcmp(back.q_offset, c.q_offset, 5 * 7 * 3) == 0 && memcmp(back.q_normal, c.q_normal, 5 * 7 * 3) == 0);
    CHECK(memcmp(back.offset, c.offset, 5 * 7 * 3 * sizeof(float)) == 0);
    CHECK(memcmp(back.normal, c.normal, 5 * 7 * 3 * sizeof(float)) == 0);
    CHECK(memcmp(back.q_ao, c.q_ao, 5 * 7) == 0 && memcmp(back.ao, c.ao, 5 * 7 * sizeof(float)) == 0);
    CHECK(back.ao[3] >= 0.0f && back.ao[3] <= 1.0f && fabsf(back.ao[3] - back.q_ao[3] / 255.0f) < 1e-7f);
    CHECK(memcmp(back.key_time, c.key_time, 5 * sizeof(float)) == 0);
    /* Decoded normals are unit; absolute keys add the bind pose. */
    float len = sqrtf(back.normal[0] * back.normal[0] + back.normal[1] * back.normal[1] +
                      back.normal[2] * back.normal[2]);
    CHECK(fabsf(len - 1.0f) < 1e-6f);
    float bind[50 * 3], keys[5 * 7 * 3];
    for (int i = 0; i < 150; i++)
        bind[i] = (float)i;
    clip_keys_absolute(&back, bind, keys);
    CHECK(keys[3 * 7 * 3 + 2 * 3 + 1] == bind[back.vertex[2] * 3 + 1] + back.offset[3 * 7 * 3 + 2 * 3 + 1]);
    clip_free(&back);

    /* Each corruption fails with one line naming the problem. */
    struct {
        size_t at;
        uint8_t value;
        bool fix_checksum;
        const char *message;
    } cases[] = {
        {20, 0xAB, false, "checksum"},
        {52, 60, true, "animated vertices"}, /* vertex_count > mesh_vertex_count */
        {60, 4, true, "unknown flags"},
        {96 + 4, 0, true, "not strictly increasing"}, /* vertex 1 index 3 -> 0 */
        {96 + 2, 1, true, ">= mesh vertex count"},    /* vertex 0 index 1 + 65536 */
        {96 + 28 + 7, 0x7f, true, "not finite"},      /* key 1 time -> NaN-ish exponent */
        {96 + 28 + 4 + 3, 0x3f, true, "not after"},   /* key 1 time -> ~0.5 s, after key 2? */
        {96 + 48, 0x80, true, "-128"},
        {80, 1, true, "reserved"},
        {96 + 48 + 5 * 7 * 7 + 1, 1, true, "padding"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *bad = malloc(size);
        memcpy(bad, data, size);
        bad[cases[i].at] = cases[i].value;
        if (cases[i].fix_checksum) {
            uint32_t sum = file_checksum32(bad + 16, size - 16);
            for (int k = 0; k < 4; k++)
                bad[12 + k] = (uint8_t)(sum >> (8 * k));
        }
        clip_t x;
        bool ok = parse_capture(bad, size, &x);
        CHECK(!ok);
        if (ok)
            clip_free(&x);
        bool named = strstr(capture_text, cases[i].message) != NULL && strstr(capture_text, "test.vac") != NULL;
        if (!named)
            fprintf(stderr, "case %zu: expected '%s' in: %s", i, cases[i].message, capture_text);
        CHECK(named);
        CHECK(strchr(capture_text, '\n') == capture_text + strlen(capture_text) - 1);
        free(bad);
    }
    /* Truncated: every shorter prefix fails. */
    for (size_t n = 0; n < size; n += 7) {
        clip_t x;
        CHECK(!parse_capture(data, n, &x));
    }
    /* A zero normal. */
    memset(c.q_normal, 0, 3);
    log_set_level(LOG_QUIET);
    CHECK(!clip_validate(&c, "zero normal"));
    log_set_level(LOG_INFO);
    free(data);
    clip_free(&c);
}

static void test_linear_motion(void)
{
    for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++) {
        clip_t c, r;
        make_clip(&c, 9, 12, false, 1);
        kr_result_t res;
        CHECK(kr_reduce(&c, (tween_mode_t)mode, 1e-4f, &r, &res));
        CHECK(res.kept == 2 && res.removed == 10);
        CHECK(r.key_count == 2 && r.key_time[0] == 0.0f && r.key_time[1] == c.key_time[11]);
        float e = reduced_error(&c, &r, (tween_mode_t)mode);
        CHECK(e <= 1e-4f + ROUNDING_CM);
        printf("linear motion, %s: %u keys -> %u, max error %.2g cm\n", tween_mode_name((tween_mode_t)mode),
               c.key_count, r.key_count, (double)e);
        clip_free(&r);
        clip_free(&c);
    }
}

static void test_bound(void)
{
    for (int loop = 0; loop < 2; loop++)
        for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++) {
            clip_t c, r;
            make_clip(&c, 20, 40, loop, 0);
            const float bound = 0.15f;
            kr_result_t res;
            CHECK(kr_reduce(&c, (tween_mode_t)mode, bound, &r, &res));
            float e = reduced_error(&c, &r, (tween_mode_t)mode);
            CHECK(res.removed > 0 && res.kept == r.key_count && res.kept + res.removed == 40);
            CHECK(e <= bound + ROUNDING_CM);
            CHECK(fabsf(e - res.max_error_cm) <= ROUNDING_CM);
            /* Kept keys keep their bytes and times. */
            CHECK(r.key_time[0] == 0.0f && (!loop || r.duration_s == c.duration_s));
            printf("random walk (%s, %s): 40 keys -> %u, max error %.4f cm (bound %.2f)\n", loop ? "loop" : "clamped",
                   tween_mode_name((tween_mode_t)mode), r.key_count, (double)e, (double)bound);
            /* A zero bound keeps every key. */
            clip_t all;
            CHECK(kr_reduce(&c, (tween_mode_t)mode, 0.0f, &all, &res));
            CHECK(all.key_count == 40);
            clip_free(&all);
            clip_free(&r);
            clip_free(&c);
        }
}

static int check_files(const char *orig_path, const char *reduced_path, const char *bound_s, const char *mode_s)
{
    clip_t orig, reduced;
    float bound = strtof(bound_s, NULL);
    tween_mode_t mode = strcmp(mode_s, "linear") == 0 ? TWEEN_LINEAR : TWEEN_HERMITE;
    if (!clip_load(&orig, orig_path) || !clip_load(&reduced, reduced_path))
        return 1;
    CHECK(orig.vertex_count == reduced.vertex_count && reduced.key_count <= orig.key_count);
    CHECK(memcmp(orig.vertex, reduced.vertex, orig.vertex_count * sizeof *orig.vertex) == 0);
    float e = reduced_error(&orig, &reduced, mode);
    printf("%s: %u of %u keys, max error %.4f cm at the original key times (bound %.4f cm, %s)\n", reduced_path,
           reduced.key_count, orig.key_count, (double)e, (double)bound, tween_mode_name(mode));
    CHECK(e <= bound + ROUNDING_CM);
    clip_free(&orig);
    clip_free(&reduced);
    return check_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "--check") == 0)
        return check_files(argv[2], argv[3], argv[4], argv[5]);
    test_round_trip();
    log_set_level(LOG_QUIET);
    test_linear_motion();
    test_bound();
    return check_summary();
}
