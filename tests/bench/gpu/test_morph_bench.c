/* test_morph_bench: the three GPU blend-shape methods of bench/gpu/
 * gfx_morph_bench (shaders/morph.glsl dense and sparse in one SSBO pass,
 * and the stream-out multipass baseline) against the CPU job bshape_run(),
 * on the morphed mesh of a character with >= 256 shapes.
 *  1. Active sets of 0, 1, 5, 54 and all shapes (>= 256), plus one with
 *     duplicate entries in random order: every method's read-back vertices
 *     match bshape_run (dense and sparse layouts) within 1e-4 of the mesh
 *     height (positions) and 1e-3 (normals, tangents, AO). Errors printed.
 *  2. Negative controls, so the comparison can fail: a reference computed
 *     with one weight changed by 0.5 must NOT match; an output cleared and
 *     not rewritten must NOT match; a bad active entry is refused.
 *  3. Timing sanity: wall time positive; the timer query is reported.
 * usage: test_morph_bench FILE.chr
 */
#include "anim/bshape.h"
#include "asset/chr_bshape.h"
#include "asset/character.h"
#include "bench/bench_gl.h"
#include "bench/gpu/gfx_morph_bench.h"
#include "core/paths.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POS_TOL_REL 1e-4
#define DIR_TOL 1e-3

static uint32_t g_rng = 777u;
static uint32_t rnd(void)
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return g_rng >> 8;
}

typedef struct arrays_t {
    float *pos, *nrm, *tan, *ao;
} arrays_t;

static bool arrays_alloc(arrays_t *a, uint32_t n)
{
    a->pos = calloc((size_t)n * 3, sizeof(float));
    a->nrm = calloc((size_t)n * 3, sizeof(float));
    a->tan = calloc((size_t)n * 4, sizeof(float));
    a->ao = calloc(n ? n : 1, sizeof(float));
    return a->pos && a->nrm && a->tan && a->ao;
}

static void arrays_free(arrays_t *a)
{
    free(a->pos);
    free(a->nrm);
    free(a->tan);
    free(a->ao);
}

typedef struct errs_t {
    double pos, dir;
} errs_t;

static double maxdiff(const float *a, const float *b, size_t count)
{
    double m = 0.0;
    for (size_t k = 0; k < count; k++) {
        double d = fabs((double)a[k] - (double)b[k]);
        m = fmax(m, isfinite(d) ? d : INFINITY);
    }
    return m;
}

/* GPU morph vertices (position + AO, normal + 0, tangent) against REF. */
static errs_t compare(const float *gpu, uint32_t n, const arrays_t *ref)
{
    errs_t e = {0.0, 0.0};
    for (uint32_t v = 0; v < n; v++) {
        const float *g = gpu + (size_t)v * GFX_MORPH_VERTEX_FLOATS;
        e.pos = fmax(e.pos, maxdiff(g, ref->pos + (size_t)v * 3, 3));
        e.dir = fmax(e.dir, maxdiff(g + 3, ref->ao + v, 1));
        e.dir = fmax(e.dir, maxdiff(g + 4, ref->nrm + (size_t)v * 3, 3));
        e.dir = fmax(e.dir, maxdiff(g + 8, ref->tan + (size_t)v * 4, 4));
    }
    return e;
}

static bool cpu_run(bshape_set_t *set, bshape_layout_t layout, int count, const uint32_t *t, const float *w,
                    const arrays_t *base, arrays_t *out)
{
    bshape_job_t job = {.set = set,
                        .layout = layout,
                        .active_count = count,
                        .active_target = t,
                        .active_weight = w,
                        .positions = base->pos,
                        .normals = base->nrm,
                        .tangents = base->tan,
                        .ao = base->ao,
                        .out_positions = out->pos,
                        .out_normals = out->nrm,
                        .out_tangents = out->tan,
                        .out_ao = out->ao};
    return bshape_run(&job);
}

static const char *const k_names[GFX_MORPH_METHOD_COUNT] = {"ssbo-dense", "ssbo-sparse", "tf-multipass",
                                                            "compute-dense", "compute-sparse"};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_morph_bench FILE.chr\n");
        return 2;
    }
    paths_init(NULL);
    bench_gl_t gl;
    if (!bench_gl_open(&gl, NULL))
        return 1;
    chr_character_t *ch = calloc(1, sizeof *ch);
    if (!ch || !chr_load(ch, argv[1])) {
        free(ch);
        bench_gl_close(&gl);
        return 1;
    }
    int mesh = -1;
    for (uint32_t m = 0; m < ch->mesh_count && mesh < 0; m++)
        if (ch->meshes[m].flags & CHR_MESH_MORPHED)
            mesh = (int)m;
    bshape_set_t set;
    CHECKF(mesh >= 0, "%s has no morphed mesh", argv[1]);
    if (mesh < 0 || !chr_bshape_set_build(&set, ch, (uint32_t)mesh, BSHAPE_BUILD_DENSE | BSHAPE_BUILD_SPARSE)) {
        chr_free(ch);
        free(ch);
        bench_gl_close(&gl);
        return 1;
    }
    const chr_mesh_t *cm = &ch->meshes[mesh];
    uint32_t n = cm->vertex_count, shapes = set.shape_count;
    CHECKF(shapes >= 256, "the test mesh needs >= 256 shapes, has %u", shapes);
    arrays_t base, ref, ref_dense, wrong;
    bool ok = arrays_alloc(&base, n) && arrays_alloc(&ref, n) && arrays_alloc(&ref_dense, n) && arrays_alloc(&wrong, n);
    float *gpu = malloc((size_t)(n ? n : 1) * GFX_MORPH_VERTEX_FLOATS * sizeof(float));
    enum { MAX_LIST = 2 * (BSHAPE_MAX_ACTIVE) };
    uint32_t *targets = malloc(MAX_LIST * sizeof *targets);
    float *weights = malloc(MAX_LIST * sizeof *weights);
    float lo = INFINITY, hi = -INFINITY;
    if (!ok || !gpu || !targets || !weights) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (uint32_t v = 0; v < n; v++) {
        memcpy(base.pos + (size_t)v * 3, cm->vertices[v].pos, 3 * sizeof(float));
        memcpy(base.nrm + (size_t)v * 3, cm->vertices[v].normal, 3 * sizeof(float));
        memcpy(base.tan + (size_t)v * 4, cm->vertices[v].tangent, 4 * sizeof(float));
        base.ao[v] = cm->vertices[v].ao;
        lo = fminf(lo, base.pos[(size_t)v * 3 + 1]);
        hi = fmaxf(hi, base.pos[(size_t)v * 3 + 1]);
    }
    double pos_tol = POS_TOL_REL * (double)(hi - lo);
    printf("mesh '%s': %u vertices, %.2f cm high, %u shapes, %u targets; bound %.3g cm, directions %.0e\n", cm->name, n,
           (double)(hi - lo), shapes, set.target_count, pos_tol, DIR_TOL);

    gfx_morph_bench_t gb;
    gfx_morph_bench_desc_t gd = {.vertex_count = n,
                                 .positions = base.pos,
                                 .normals = base.nrm,
                                 .tangents = base.tan,
                                 .ao = base.ao,
                                 .target_count = set.target_count,
                                 .dense = set.dense,
                                 .vertex_offset = set.vertex_offset,
                                 .pair_target = set.pair_target,
                                 .pair_delta = set.pair_delta,
                                 .pair_count = set.pair_count,
                                 .methods = {true, true, true, true, true},
                                 .label = "test_morph_bench"};
    if (!gfx_morph_bench_create(&gb, &gd)) {
        fprintf(stderr, "FAIL: gfx_morph_bench_create\n");
        return 1;
    }
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++)
        CHECKF(gfx_morph_bench_ready(&gb, (gfx_morph_method_t)m), "%s not ready: %s", k_names[m],
               gfx_morph_bench_reason(&gb, (gfx_morph_method_t)m));

    /* Active sets: first k shapes of a random permutation; the last case
     * lists every shape twice in random order with split weights (duplicates
     * add, order must not matter). */
    int counts[] = {0, 1, 5, 54, (int)shapes, -1};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int count = counts[ci];
        bool dup = count < 0;
        if (dup)
            count = (int)(2 * shapes);
        for (uint32_t k = 0; k < shapes; k++)
            targets[k] = k;
        for (uint32_t k = 0; k + 1 < shapes; k++) {
            uint32_t j = k + rnd() % (shapes - k);
            uint32_t tmp = targets[k];
            targets[k] = targets[j];
            targets[j] = tmp;
        }
        for (int k = 0; k < count; k++)
            weights[k] = 0.1f + 0.9f * (float)(rnd() & 0xffff) / 65535.0f;
        if (dup)
            for (uint32_t k = 0; k < shapes; k++) {
                targets[shapes + k] = targets[(k * 7u + 3u) % shapes];
                weights[shapes + k] = -0.3f * weights[k];
            }
        CHECKF(cpu_run(&set, BSHAPE_SPARSE, count, targets, weights, &base, &ref) &&
                   cpu_run(&set, BSHAPE_DENSE, count, targets, weights, &base, &ref_dense),
               "bshape_run failed at %d", count);
        for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
            gfx_morph_time_t t = {0};
            bool ran = gfx_morph_bench_clear_output(&gb) &&
                       gfx_morph_bench_run(&gb, (gfx_morph_method_t)m, count, targets, weights, &t) &&
                       gfx_morph_bench_read(&gb, gpu);
            CHECKF(ran, "%s did not run at %d entries", k_names[m], count);
            errs_t es = compare(gpu, n, &ref), ed = compare(gpu, n, &ref_dense);
            printf("%-13s %4d entries%s: %2d passes, vs sparse job: pos %.3g cm, dir %.3g; vs dense job: pos %.3g cm, "
                   "dir %.3g; wall %.3f ms, query %.4f ms\n",
                   k_names[m], count, dup ? " (duplicates)" : "", t.passes, es.pos, es.dir, ed.pos, ed.dir, t.wall_ms,
                   t.query_ms);
            CHECKF(es.pos <= pos_tol && es.dir <= DIR_TOL, "%s at %d entries: pos %.3g cm dir %.3g vs the sparse job",
                   k_names[m], count, es.pos, es.dir);
            CHECKF(ed.pos <= pos_tol && ed.dir <= DIR_TOL, "%s at %d entries: pos %.3g cm dir %.3g vs the dense job",
                   k_names[m], count, ed.pos, ed.dir);
            CHECKF(t.wall_ms > 0.0, "%s: wall time %.3g ms", k_names[m], t.wall_ms);
            if (m == GFX_MORPH_TF_MULTIPASS) {
                int distinct = dup ? (int)shapes : count;
                CHECKF(t.passes == (distinct + 3) / 4 + 1, "tf passes %d for %d shapes", t.passes, distinct);
            }
        }
    }

    /* Negative controls on the 5-shape set: the comparison must be able to fail. */
    for (uint32_t k = 0; k < 5; k++) {
        targets[k] = k * 37u % shapes;
        weights[k] = 0.5f + 0.1f * (float)k;
    }
    cpu_run(&set, BSHAPE_SPARSE, 5, targets, weights, &base, &ref);
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
        bool ran = gfx_morph_bench_run(&gb, (gfx_morph_method_t)m, 5, targets, weights, NULL) &&
                   gfx_morph_bench_read(&gb, gpu);
        CHECKF(ran && compare(gpu, n, &ref).pos <= pos_tol, "%s: control run", k_names[m]);
        weights[2] += 0.5f;
        cpu_run(&set, BSHAPE_SPARSE, 5, targets, weights, &base, &wrong);
        weights[2] -= 0.5f;
        errs_t e = compare(gpu, n, &wrong);
        printf("%-13s against a reference with one weight +0.5: pos %.3g cm (must exceed %.3g)\n", k_names[m], e.pos,
               pos_tol);
        CHECKF(e.pos > pos_tol, "%s: a changed weight went unnoticed (%.3g cm)", k_names[m], e.pos);
        CHECKF(gfx_morph_bench_clear_output(&gb) && gfx_morph_bench_read(&gb, gpu), "clear/read");
        e = compare(gpu, n, &ref);
        CHECKF(!(e.pos <= pos_tol), "%s: a cleared, unwritten output compared equal", k_names[m]);
    }
    printf("expect one error line for an out-of-range target:\n");
    fflush(stdout);
    uint32_t bad_target = set.target_count;
    float one = 1.0f;
    CHECKF(!gfx_morph_bench_run(&gb, GFX_MORPH_SSBO_DENSE, 1, &bad_target, &one, NULL),
           "an out-of-range target was accepted");

    gfx_morph_bench_destroy(&gb);
    free(gpu);
    free(targets);
    free(weights);
    arrays_free(&base);
    arrays_free(&ref);
    arrays_free(&ref_dense);
    arrays_free(&wrong);
    bshape_set_free(&set);
    chr_free(ch);
    free(ch);
    bench_gl_close(&gl);
    return check_summary();
}
