/* sample_cull against a brute-force rasteriser: every triangle it leaves
 * out covers no pixel centre (tested in double precision with the edges
 * included, so the real fill rule can only cover fewer), for random
 * triangles of every size from slivers to screen-filling ones, partly off
 * screen, degenerate, behind the eye and not finite; and it does leave out
 * the small ones that miss every centre (a cull that keeps everything
 * would pass the first check). Its decisions are also those of the box
 * test written plainly (the box of the three window positions against the
 * centres), which it computes a vertex at a time. The projection of many
 * vertices at once (four at a time where the CPU has SSE2) gives records
 * with the bits of the same vertices projected one by one (the scalar
 * loop; a NaN window position may be another NaN), under perspective,
 * behind and at the eye, far outside the view and for coordinates that
 * are not finite. The AVX-512 loop (where the CPU has it) keeps the same
 * indices as the scalar one, with and without back faces, for triangles
 * of every kind and counts that leave a scalar tail. */
#include "render/sample_cull.h"
#include "render/sample_cull_internal.h"

#include "core/cpu.h"

#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W = 64, H = 48, TRIANGLES = 20000 };

static test_rng_t g_rng = {0x2545f491u};
static float rnd(float lo, float hi) { return lo + (hi - lo) * test_rand01(&g_rng); }

static double edge(const double *a, const double *b, double px, double py)
{
    return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
}

/* Whether any pixel centre lies inside or on the triangle (window coords);
 * a triangle of no area makes no fragments. */
static bool covers_centre(const double *a, const double *b, const double *c)
{
    double area = edge(a, b, c[0], c[1]);
    if (area == 0.0)
        return false;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double px = x + 0.5, py = y + 0.5;
            double e0 = edge(a, b, px, py), e1 = edge(b, c, px, py), e2 = edge(c, a, px, py);
            const double eps = 1e-9;
            if (area > 0.0 ? (e0 >= -eps && e1 >= -eps && e2 >= -eps) : (e0 <= eps && e1 <= eps && e2 <= eps))
                return true;
        }
    return false;
}

/* Whether some centre k + 0.5 (0 <= k < size) lies in [lo, hi] widened by
 * the margin. */
static bool centre_between(float lo, float hi, int size)
{
    float first = ceilf(lo - SAMPLE_CULL_MARGIN_PX - 0.5f);
    float last = floorf(hi + SAMPLE_CULL_MARGIN_PX - 0.5f);
    return fmaxf(first, 0.0f) <= fminf(last, (float)(size - 1));
}

/* The box test on the triangle's window positions (all projected). */
static bool box_keeps(const sample_cull_vertex_t *a, const sample_cull_vertex_t *b, const sample_cull_vertex_t *c)
{
    return centre_between(fminf(a->x, fminf(b->x, c->x)), fmaxf(a->x, fmaxf(b->x, c->x)), W) &&
           centre_between(fminf(a->y, fminf(b->y, c->y)), fmaxf(a->y, fmaxf(b->y, c->y)), H);
}

/* Triangle T's corners (x, y) of POS, 9 floats a triangle. */
static void corners(const float *pos, int t, double v[3][2])
{
    for (int k = 0; k < 3; k++) {
        v[k][0] = pos[9 * t + 3 * k];
        v[k][1] = pos[9 * t + 3 * k + 1];
    }
}

/* Whether two window coordinates are the same bits, or both NaN (which NaN
 * a sum of two NaNs gives depends on the order of its operands, which the
 * compiler may swap). */
static bool same_coordinate(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* Projects N vertices of POS in one call and one at a time under MVP onto a
 * WIDTH x HEIGHT viewport; returns how many records differ: in any bit of
 * their centre ranges or window position (NaN for NaN). */
static int project_unlike_one_by_one(const float mvp[16], int width, int height, const float *pos, uint32_t n)
{
    sample_cull_vertex_t *all = calloc(n, sizeof *all), *one = calloc(n, sizeof *one);
    if (!all || !one) {
        free(all);
        free(one);
        return (int)n;
    }
    sample_cull_project(mvp, width, height, pos, n, all);
    for (uint32_t v = 0; v < n; v++)
        sample_cull_project(mvp, width, height, pos + 3 * (size_t)v, 1, one + v);
    int unlike = 0;
    for (uint32_t v = 0; v < n; v++)
        unlike += !same_coordinate(all[v].x, one[v].x) || !same_coordinate(all[v].y, one[v].y) ||
                  memcmp(all[v].first, one[v].first, sizeof all[v].first) != 0 ||
                  memcmp(all[v].last, one[v].last, sizeof all[v].last) != 0;
    free(all);
    free(one);
    return unlike;
}

static void check_batched_projection(void)
{
    enum { N = 40003 }; /* not a multiple of 4: the scalar tail runs too */
    static float pos[N * 3];
    static const float special[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f, -0.0f, 1e-30f};
    for (int i = 0; i < N * 3; i++) {
        float r = test_rand01(&g_rng);
        pos[i] = r < 0.01f ? special[(int)(r * 800.0f) % 8] : powf(10.0f, rnd(-3.0f, 4.0f)) * rnd(-1.0f, 1.0f);
    }
    /* A perspective view from 3 m back (w from the distance: some vertices
     * behind or at the eye), a tilted one and the orthographic one. */
    float persp[16] = {1.2f, 0, 0, 0, 0, 1.8f, 0, 0, 0, 0, -1.002f, -1, 0, 0, 299.0f, 300.0f};
    float tilted[16] = {0.9f, 0.3f, 0.1f, 0.1f, -0.2f, 1.1f, 0.4f, 0.05f, 0.3f, -0.5f, 0.8f, -0.9f, 10, -20, 5, 40};
    float ortho[16] = {2.0f / W, 0, 0, 0, 0, 2.0f / H, 0, 0, 0, 0, 1, 0, -1, -1, 0, 1};
    const float *views[3] = {persp, tilted, ortho};
    const int sizes[3][2] = {{W, H}, {1, 1}, {SAMPLE_CULL_MAX_SIZE, SAMPLE_CULL_MAX_SIZE}};
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            int unlike = project_unlike_one_by_one(views[v], sizes[k][0], sizes[k][1], pos, N);
            CHECKF(unlike == 0, "view %d, %dx%d: %d of %d records projected at once differ from one by one", v,
                   sizes[k][0], sizes[k][1], unlike, N);
        }
}

/* The AVX-512 loop against the scalar one on PROJ and COUNT indices: the
 * same indices kept, in the same order (where the CPU can run it). */
static void check_avx512_like_scalar(const char *what, const sample_cull_vertex_t *proj, const uint32_t *idx,
                                     uint32_t count)
{
    if (!sample_cull_has_avx512() || !cpu_has(CPU_AVX512F) || !cpu_has(CPU_AVX512BW))
        return;
    uint32_t *a = malloc((size_t)count * sizeof *a + 64), *b = malloc((size_t)count * sizeof *b + 64);
    CHECKF(a && b, "out of memory");
    for (int back = 0; a && b && back < 2; back++) {
        uint32_t na = sample_cull_triangles_scalar(proj, back, idx, count, a);
        uint32_t nb = sample_cull_triangles_avx512(proj, back, idx, count, b);
        CHECKF(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0,
               "%s, back faces %s: AVX-512 kept %u indices, the scalar loop %u%s", what, back ? "culled" : "drawn", nb,
               na, na == nb ? " (others)" : "");
    }
    free(a);
    free(b);
}

/* Random triangles over vertices projected in perspective (some behind or
 * at the eye, some not finite), in every block position and with a tail. */
static void check_avx512_perspective(void)
{
    enum { N = 5000, T = 20011 };
    static float pos[N * 3];
    static sample_cull_vertex_t proj[N];
    static uint32_t idx[T * 3];
    for (int i = 0; i < N * 3; i++)
        pos[i] = test_rand01(&g_rng) < 0.002f ? NAN : rnd(-4.0f, 4.0f);
    float persp[16] = {1.2f, 0, 0, 0, 0, 1.8f, 0, 0, 0, 0, -1.002f, -1, 0, 0, -0.2f, 0.0f};
    sample_cull_project(persp, W, H, pos, N, proj);
    for (int t = 0; t < T * 3; t++)
        idx[t] = (uint32_t)(test_rand01(&g_rng) * (N - 1));
    /* Some triangles of neighbours (small, mostly culled). */
    for (int t = 0; t < T; t += 3) {
        uint32_t v = idx[3 * t] % (N - 2);
        idx[3 * t + 1] = v + 1;
        idx[3 * t + 2] = v + 2;
    }
    for (uint32_t count = T * 3; count > T * 3 - 48 * 3; count -= 3 * 17)
        check_avx512_like_scalar("perspective", proj, idx, count);
    check_avx512_like_scalar("one triangle", proj, idx, 3);
    check_avx512_like_scalar("no triangle", proj, idx, 0);
}

int main(void)
{
    printf("sample_cull: AVX-512 loop %s\n", sample_cull_has_avx512() && cpu_has(CPU_AVX512F) && cpu_has(CPU_AVX512BW)
                                                 ? "checked against the scalar one"
                                                 : "not on this CPU or build: not checked");
    check_batched_projection();
    check_avx512_perspective();
    /* An orthographic view: clip = (2x/W - 1, 2y/H - 1, 0, 1) from
     * positions given in pixels, so window coordinates are the positions. */
    float mvp[16] = {2.0f / W, 0, 0, 0, 0, 2.0f / H, 0, 0, 0, 0, 1, 0, -1, -1, 0, 1};
    static float pos[TRIANGLES * 9];
    static sample_cull_vertex_t proj[TRIANGLES * 3];
    static uint32_t idx[TRIANGLES * 3], out[TRIANGLES * 3];
    for (int t = 0; t < TRIANGLES; t++) {
        /* Sizes from a hundredth of a pixel to the whole target, centres
         * reaching past every side. */
        float size = powf(10.0f, rnd(-2.0f, 2.0f));
        float cx = rnd(-10.0f, W + 10.0f), cy = rnd(-10.0f, H + 10.0f);
        for (int k = 0; k < 3; k++) {
            float *p = pos + 9 * t + 3 * k;
            p[0] = cx + size * rnd(-1.0f, 1.0f);
            p[1] = cy + size * rnd(-1.0f, 1.0f);
            p[2] = 0.0f;
            idx[3 * t + k] = (uint32_t)(3 * t + k);
        }
        if (t % 97 == 0) /* degenerate: a repeated vertex */
            memcpy(pos + 9 * t + 3, pos + 9 * t, 3 * sizeof(float));
        if (t % 89 == 0) /* on pixel centres exactly */
            for (int k = 0; k < 3; k++) {
                pos[9 * t + 3 * k] = floorf(pos[9 * t + 3 * k]) + 0.5f;
                pos[9 * t + 3 * k + 1] = floorf(pos[9 * t + 3 * k + 1]) + 0.5f;
            }
    }
    sample_cull_project(mvp, W, H, pos, TRIANGLES * 3, proj);
    check_avx512_like_scalar("orthographic", proj, idx, TRIANGLES * 3);
    uint32_t kept = sample_cull_triangles(proj, false, idx, TRIANGLES * 3, out);
    CHECKF(kept % 3 == 0 && kept <= TRIANGLES * 3, "%u indices kept", kept);
    bool *in = calloc(TRIANGLES, sizeof(bool));
    CHECKF(in != NULL, "out of memory");
    for (uint32_t i = 0; in && i < kept; i += 3)
        in[out[i] / 3] = true;
    int wrongly_culled = 0, small_culled = 0, small = 0, unlike_box = 0;
    for (int t = 0; in && t < TRIANGLES; t++) {
        double v[3][2];
        corners(pos, t, v);
        unlike_box += box_keeps(&proj[3 * t], &proj[3 * t + 1], &proj[3 * t + 2]) != in[t];
        bool covers = covers_centre(v[0], v[1], v[2]);
        if (!in[t] && covers && wrongly_culled++ < 3)
            printf("left out but covering: (%.4f %.4f) (%.4f %.4f) (%.4f %.4f)\n", v[0][0], v[0][1], v[1][0], v[1][1],
                   v[2][0], v[2][1]);
        if (!covers) {
            small++;
            small_culled += !in[t];
        }
    }
    printf("sample_cull: %d triangles, %u kept; of %d that cover no centre %d left out; %d covering ones left out\n",
           TRIANGLES, kept / 3, small, small_culled, wrongly_culled);
    CHECKF(wrongly_culled == 0, "%d triangles that cover a pixel centre were left out", wrongly_culled);
    CHECKF(unlike_box == 0, "%d triangles decided unlike the box test on their window positions", unlike_box);
    CHECKF(small > 1000 && small_culled > small / 2, "only %d of %d triangles without a centre were left out",
           small_culled, small);

    /* Behind the eye (w < 0), at it (w = 0) and not finite: always kept. */
    float persp[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0};         /* w = -z */
    float odd[9 * 3] = {0.1f, 0.1f, 1.0f,  0.2f, 0.1f, 1.0f,  0.1f, 0.2f, 1.0f,  /* z > 0: behind */
                        0.1f, 0.1f, 0.0f,  0.2f, 0.1f, -1.0f, 0.1f, 0.2f, -1.0f, /* one at w = 0 */
                        NAN,  0.1f, -1.0f, 0.2f, 0.1f, -1.0f, 0.1f, 0.2f, -1.0f};
    uint32_t oi[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, oo[9];
    sample_cull_vertex_t op[9];
    sample_cull_project(persp, W, H, odd, 9, op);
    CHECKF(sample_cull_triangles(op, true, oi, 9, oo) == 9, "triangles behind the eye or not finite are kept");

    /* Back faces: every triangle left out with them on covers no centre or
     * winds clockwise in double precision (GL culls those), and most of
     * the clockwise ones that cover a centre are left out. */
    uint32_t kept_back = sample_cull_triangles(proj, true, idx, TRIANGLES * 3, out);
    memset(in, 0, TRIANGLES * sizeof(bool));
    for (uint32_t i = 0; in && i < kept_back; i += 3)
        in[out[i] / 3] = true;
    int front_dropped = 0, back_covering = 0, back_dropped = 0;
    for (int t = 0; in && t < TRIANGLES; t++) {
        double v[3][2];
        corners(pos, t, v);
        double area = edge(v[0], v[1], v[2][0], v[2][1]);
        if (!covers_centre(v[0], v[1], v[2]))
            continue;
        if (area >= 0.0)
            front_dropped += !in[t];
        else {
            back_covering++;
            back_dropped += !in[t];
        }
    }
    printf("sample_cull, back faces: %u kept; of %d clockwise ones that cover a centre %d left out; %d others\n",
           kept_back / 3, back_covering, back_dropped, front_dropped);
    CHECKF(front_dropped == 0, "%d counter-clockwise triangles that cover a centre were left out", front_dropped);
    CHECKF(back_covering > 1000 && back_dropped > back_covering * 9 / 10, "only %d of %d back faces left out",
           back_dropped, back_covering);
    free(in);
    return check_summary();
}
