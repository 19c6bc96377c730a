/* `strider bench blendshapes`: time to apply N active blend shapes to the
 * morphed (head) mesh of a character, per method, for each N. The active
 * set is drawn at random (seeded) from the character's shapes with weights
 * in [0.1, 1]; every method must produce the same vertices. */
#include "bench/bench_internal.h"

#include "anim/bshape.h"
#include "asset/character.h"
#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dense and sparse add the same deltas in the same order, so they must agree
 * to rounding; 1e-4 cm is far below anything visible. */
#define BSHAPE_AGREE_CM 1e-4

enum { METHOD_CPU_DENSE, METHOD_CPU_SPARSE, METHOD_COUNT };
static const char *const k_methods[METHOD_COUNT] = {"cpu-dense", "cpu-sparse"};
static const int k_default_counts[] = {0, 1, 2, 4, 8, 16, 32, 50, 64, 128, 256};

static void usage(FILE *out)
{
    fputs("usage: strider bench blendshapes [options]\n"
          "  --methods LIST      cpu-dense, cpu-sparse (default: both)\n"
          "  --counts LIST       active shapes, 0..4096, default 0,1,2,4,8,16,32,50,64,128,256\n"
          "  --character PATH    .chr file (default assets/characters/strider.chr); counts above its\n"
          "                      shape count are skipped with a note (make one with more shapes:\n"
          "                      strider-chargen --shapes 256 --out FILE)\n"
          "  --seed N            active-set seed (default 1)\n"
          "  --repeats N --warmup N --csv PATH --json PATH --smoke\n",
          out);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

typedef struct bs_buffers {
    float *pos, *nrm, *tan, *ao;
    float *out_pos[METHOD_COUNT], *out_nrm[METHOD_COUNT], *out_tan[METHOD_COUNT], *out_ao[METHOD_COUNT];
    double *times;
} bs_buffers;

static void bs_free(bs_buffers *b)
{
    free(b->pos);
    free(b->nrm);
    free(b->tan);
    free(b->ao);
    for (int m = 0; m < METHOD_COUNT; m++) {
        free(b->out_pos[m]);
        free(b->out_nrm[m]);
        free(b->out_tan[m]);
        free(b->out_ao[m]);
    }
    free(b->times);
}

static bool bs_alloc(bs_buffers *b, uint32_t n, int repeats)
{
    memset(b, 0, sizeof *b);
    b->pos = malloc(n * 3 * sizeof(float));
    b->nrm = malloc(n * 3 * sizeof(float));
    b->tan = malloc(n * 4 * sizeof(float));
    b->ao = malloc(n * sizeof(float));
    bool ok = b->pos && b->nrm && b->tan && b->ao;
    for (int m = 0; m < METHOD_COUNT; m++) {
        b->out_pos[m] = malloc(n * 3 * sizeof(float));
        b->out_nrm[m] = malloc(n * 3 * sizeof(float));
        b->out_tan[m] = malloc(n * 4 * sizeof(float));
        b->out_ao[m] = malloc(n * sizeof(float));
        ok = ok && b->out_pos[m] && b->out_nrm[m] && b->out_tan[m] && b->out_ao[m];
    }
    b->times = malloc((size_t)repeats * sizeof(double));
    return ok && b->times;
}

int bench_blendshapes(int argc, char **argv, const bench_env *env)
{
    bench_common c = {.repeats = 51, .warmup = 5};
    int methods[BENCH_LIST_MAX] = {METHOD_CPU_DENSE, METHOD_CPU_SPARSE}, nmethods = 2;
    int counts[BENCH_LIST_MAX], ncounts = (int)(sizeof k_default_counts / sizeof k_default_counts[0]);
    memcpy(counts, k_default_counts, sizeof k_default_counts);
    const char *path = NULL;
    int seed = 1;
    for (int i = 2; i < argc; i++) {
        int r = bench_parse_common(argc, argv, &i, &c);
        if (r < 0)
            return BENCH_EXIT_USAGE;
        if (r > 0)
            continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--methods"))
            ok = bench_parse_name_list(a, v, k_methods, METHOD_COUNT, methods, &nmethods), i++;
        else if (!strcmp(a, "--counts"))
            ok = bench_parse_int_list(a, v, 0, CHR_MAX_SHAPES, counts, &ncounts), i++;
        else if (!strcmp(a, "--seed"))
            ok = bench_parse_int(a, v, 0, 2147483647, &seed), i++;
        else if (!strcmp(a, "--character") && v)
            path = v, i++;
        else if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "strider bench blendshapes: unknown option '%s'\n", a);
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
        if (!ok)
            return BENCH_EXIT_USAGE;
    }
    char default_path[PATHS_MAX];
    if (!path) {
        if (!paths_join("assets/characters/strider.chr", default_path, sizeof default_path))
            return BENCH_EXIT_RUNTIME;
        path = default_path;
    }
    if (c.smoke) {
        c.repeats = 3;
        c.warmup = 1;
    }

    chr_character_t *ch = calloc(1, sizeof *ch);
    if (!ch || !chr_load(ch, path)) {
        free(ch);
        return BENCH_EXIT_RUNTIME;
    }
    int mesh = -1;
    for (uint32_t m = 0; m < ch->mesh_count && mesh < 0; m++)
        if (ch->meshes[m].flags & CHR_MESH_MORPHED)
            mesh = (int)m;
    bshape_set_t set;
    if (mesh < 0) {
        log_error("%s: no morphed mesh to benchmark", path);
        chr_free(ch);
        free(ch);
        return BENCH_EXIT_RUNTIME;
    }
    if (!bshape_set_build(&set, ch, (uint32_t)mesh, BSHAPE_BUILD_DENSE | BSHAPE_BUILD_SPARSE)) {
        chr_free(ch);
        free(ch);
        return BENCH_EXIT_RUNTIME;
    }
    const chr_mesh_t *cm = &ch->meshes[mesh];
    uint32_t n = cm->vertex_count;
    /* Facial shapes only: correctives are driven by the pose, not chosen. */
    uint32_t shapes = set.shape_count;
    bs_buffers b;
    int rc = BENCH_EXIT_OK;
    if (!bs_alloc(&b, n, c.repeats)) {
        log_error("bench blendshapes: out of memory for %u vertices", n);
        rc = BENCH_EXIT_RUNTIME;
        goto out;
    }
    for (uint32_t v = 0; v < n; v++) {
        memcpy(&b.pos[3 * v], cm->vertices[v].pos, 3 * sizeof(float));
        memcpy(&b.nrm[3 * v], cm->vertices[v].normal, 3 * sizeof(float));
        memcpy(&b.tan[4 * v], cm->vertices[v].tangent, 4 * sizeof(float));
        b.ao[v] = cm->vertices[v].ao;
    }

    bench_env_print(env, stdout);
    printf("# character: %s, mesh '%s': %u vertices, %u shapes, %u sparse (shape, vertex) pairs\n", path, cm->name,
           n, shapes, set.pair_count);
    static const char *const cols[] = {"method", "mesh_vertices", "active", "median_us", "min_us", "max_us",
                                       "ns_per_vertex", "max_diff_cm", "checksum"};
    bench_table t;
    bench_table_init(&t, "blendshapes: time per frame vs active shape count", 9, cols);
    uint32_t *active = malloc((shapes ? shapes : 1) * sizeof *active);
    float *weight = malloc((shapes ? shapes : 1) * sizeof *weight);
    int failures = 0;
    if (!active || !weight) {
        rc = BENCH_EXIT_RUNTIME;
        goto out_table;
    }
    for (int ci = 0; ci < ncounts; ci++) {
        int count = counts[ci];
        if ((uint32_t)count > shapes) {
            fprintf(stderr, "strider bench blendshapes: skipped %d active shapes: %s has %u\n", count, path, shapes);
            continue;
        }
        /* A random subset: partial Fisher-Yates over the shape indices. */
        uint32_t s = (uint32_t)seed * 2654435761u + (uint32_t)count;
        for (uint32_t k = 0; k < shapes; k++)
            active[k] = k;
        for (int k = 0; k < count; k++) {
            uint32_t j = (uint32_t)k + lcg(&s) % (shapes - (uint32_t)k);
            uint32_t tmp = active[k];
            active[k] = active[j];
            active[j] = tmp;
            weight[k] = 0.1f + 0.9f * (float)(lcg(&s) & 0xffff) / 65535.0f;
        }
        for (int mi = 0; mi < nmethods; mi++) {
            int m = methods[mi];
            bshape_job_t job = {.set = &set, .layout = m == METHOD_CPU_DENSE ? BSHAPE_DENSE : BSHAPE_SPARSE,
                                .active_count = count, .active_target = active, .active_weight = weight,
                                .positions = b.pos, .normals = b.nrm, .tangents = b.tan, .ao = b.ao,
                                .out_positions = b.out_pos[m], .out_normals = b.out_nrm[m],
                                .out_tangents = b.out_tan[m], .out_ao = b.out_ao[m]};
            bool ok = true;
            for (int r = 0; ok && r < c.warmup; r++)
                ok = bshape_run(&job);
            for (int r = 0; ok && r < c.repeats; r++) {
                double t0 = bench_now_s();
                ok = bshape_run(&job);
                b.times[r] = bench_now_s() - t0;
            }
            if (!ok) {
                rc = BENCH_EXIT_RUNTIME;
                goto out_table;
            }
            double med, mn, mx;
            bench_stats(b.times, c.repeats, &med, &mn, &mx);
            /* Compare with the first method of the list on the same active set. */
            int ref = methods[0];
            double diff = 0.0;
            for (uint32_t k = 0; k < n * 3; k++) {
                double d = fabs((double)b.out_pos[m][k] - (double)b.out_pos[ref][k]);
                diff = fmax(diff, isfinite(d) ? d : INFINITY);
            }
            if (!(diff <= BSHAPE_AGREE_CM)) {
                fprintf(stderr, "strider bench blendshapes: %s differs from %s by %.3g cm at %d shapes\n",
                        k_methods[m], k_methods[ref], diff, count);
                failures++;
            }
            char sum[16];
            snprintf(sum, sizeof sum, "%08x", file_checksum32(b.out_pos[m], n * 3 * sizeof(float)));
            if (!bench_table_row_begin(&t)) {
                rc = BENCH_EXIT_RUNTIME;
                goto out_table;
            }
            bench_table_str(&t, k_methods[m]);
            bench_table_num(&t, n, 0);
            bench_table_num(&t, count, 0);
            bench_table_num(&t, med * 1e6, 2);
            bench_table_num(&t, mn * 1e6, 2);
            bench_table_num(&t, mx * 1e6, 2);
            bench_table_num(&t, med * 1e9 / (double)n, 3);
            bench_table_num(&t, diff, 7);
            bench_table_str(&t, sum);
        }
    }
out_table:
    free(active);
    free(weight);
    if (rc == BENCH_EXIT_OK)
        rc = bench_finish(&t, env, &c, failures);
    else
        bench_table_free(&t);
out:
    bs_free(&b);
    bshape_set_free(&set);
    chr_free(ch);
    free(ch);
    return rc;
}
