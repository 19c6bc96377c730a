/* `strider bench skinning`: CPU skinning paths (reference, scalar, SSE2,
 * AVX2+FMA, threaded, dual quaternion) over vertex counts, bone counts and
 * influence counts. Every row is checked against the scalar reference on
 * the same inputs, and thread counts must give bit-identical checksums. */
#include "bench/bench_internal.h"

#include "anim/skin_bench.h"

#include <stdio.h>
#include <string.h>

/* Positions are within ±50 cm before a palette translation of up to ±50 cm;
 * 1e-4 of a 170 cm character is the bound the GPU paths are held to. */
#define SKIN_AGREE_POS_CM 0.017
#define SKIN_AGREE_NRM 1e-4

enum { PATH_REFERENCE, PATH_SCALAR, PATH_SSE2, PATH_AVX2, PATH_DQS, PATH_COUNT };
static const char *const k_paths[PATH_COUNT] = {"cpu-reference", "cpu-scalar", "cpu-sse2", "cpu-avx2", "cpu-dqs"};

static void usage(FILE *out)
{
    fputs("usage: strider bench skinning [options]\n"
          "  --paths LIST        cpu-reference (transform-then-blend), cpu-scalar, cpu-sse2,\n"
          "                      cpu-avx2 (accumulated matrix), cpu-dqs (dual quaternions, widest ISA)\n"
          "                      default: all this CPU runs\n"
          "  --vertices LIST     default 90000 (a mesh of about 180k triangles)\n"
          "  --bones N           palette size, 1..256, default 98\n"
          "  --influences LIST   1..4, default 1,2,3,4\n"
          "  --threads LIST      1..64, default 1,2\n"
          "  --tangents          also skin tangents\n"
          "  --repeats N --warmup N --csv PATH --json PATH --smoke\n",
          out);
}

int bench_skinning(int argc, char **argv, const bench_env *env)
{
    bench_common c = {.repeats = 51, .warmup = 5};
    int paths[BENCH_LIST_MAX], npaths = 0;
    int verts[BENCH_LIST_MAX] = {90000}, nverts = 1;
    int infl[BENCH_LIST_MAX] = {1, 2, 3, 4}, ninfl = 4;
    int threads[BENCH_LIST_MAX] = {1, 2}, nthreads = 2;
    int bones = 98;
    bool tangents = false;
    for (int i = 2; i < argc; i++) {
        int r = bench_parse_common(argc, argv, &i, &c);
        if (r < 0)
            return BENCH_EXIT_USAGE;
        if (r > 0)
            continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--paths"))
            ok = bench_parse_name_list(a, v, k_paths, PATH_COUNT, paths, &npaths), i++;
        else if (!strcmp(a, "--vertices"))
            ok = bench_parse_int_list(a, v, 1, 4000000, verts, &nverts), i++;
        else if (!strcmp(a, "--influences"))
            ok = bench_parse_int_list(a, v, 1, 4, infl, &ninfl), i++;
        else if (!strcmp(a, "--threads"))
            ok = bench_parse_int_list(a, v, 1, 64, threads, &nthreads), i++;
        else if (!strcmp(a, "--bones"))
            ok = bench_parse_int(a, v, 1, 256, &bones), i++;
        else if (!strcmp(a, "--tangents"))
            tangents = true;
        else if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "strider bench skinning: unknown option '%s'\n", a);
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
        if (!ok)
            return BENCH_EXIT_USAGE;
    }
    if (npaths == 0) {
        for (int p = 0; p < PATH_COUNT; p++) {
            if ((p == PATH_SSE2 && !skin_isa_supported(SKIN_ISA_SSE2)) ||
                (p == PATH_AVX2 && !skin_isa_supported(SKIN_ISA_AVX2)))
                continue;
            paths[npaths++] = p;
        }
    }
    if (c.smoke) {
        verts[0] = 3001;
        nverts = 1;
        c.repeats = 3;
        c.warmup = 1;
    }

    bench_env_print(env, stdout);
    static const char *const cols[] = {"path", "method", "isa", "threads", "vertices", "bones", "influences",
                                       "median_us", "min_us", "max_us", "mverts_s", "mverts_s_per_thread",
                                       "max_pos_err_cm", "max_nrm_err", "checksum"};
    bench_table t;
    bench_table_init(&t, "skinning: CPU paths (position + normal)", 15, cols);
    int failures = 0;
    for (int pi = 0; pi < npaths; pi++) {
        int p = paths[pi];
        skin_method method = p == PATH_REFERENCE ? SKIN_LBS_POINTS : p == PATH_DQS ? SKIN_DQS : SKIN_LBS_MATRIX;
        skin_isa isa = p == PATH_SCALAR || p == PATH_REFERENCE ? SKIN_ISA_SCALAR
                       : p == PATH_SSE2                        ? SKIN_ISA_SSE2
                       : p == PATH_AVX2                        ? SKIN_ISA_AVX2
                                                               : SKIN_ISA_AUTO;
        if (isa != SKIN_ISA_AUTO && !skin_isa_supported(isa)) {
            fprintf(stderr, "strider bench skinning: %s needs an instruction set this CPU lacks\n", k_paths[p]);
            bench_table_free(&t);
            return BENCH_EXIT_RUNTIME;
        }
        for (int vi = 0; vi < nverts; vi++) {
            for (int ii = 0; ii < ninfl; ii++) {
                uint32_t first_checksum = 0;
                for (int ti = 0; ti < nthreads; ti++) {
                    skin_bench_desc_t d = {.vertex_count = verts[vi], .joint_count = bones,
                                           .influences = infl[ii], .threads = threads[ti],
                                           .warmup = c.warmup, .repeats = c.repeats, .method = method,
                                           .isa = isa, .tangents = tangents};
                    skin_bench_result_t r;
                    if (!skin_bench_run(&d, &r)) {
                        bench_table_free(&t);
                        return BENCH_EXIT_RUNTIME;
                    }
                    char isa_name[32], sum[16];
                    snprintf(isa_name, sizeof isa_name, "%s", skin_isa_name(r.isa));
                    snprintf(sum, sizeof sum, "%08x", r.checksum);
                    if (ti == 0)
                        first_checksum = r.checksum;
                    bool agree = r.max_pos_err_cm <= SKIN_AGREE_POS_CM && r.max_nrm_err <= SKIN_AGREE_NRM;
                    if (!agree) {
                        fprintf(stderr,
                                "strider bench skinning: %s disagrees with the reference: %.3g cm, normal %.3g\n",
                                k_paths[p], r.max_pos_err_cm, r.max_nrm_err);
                        failures++;
                    }
                    if (r.checksum != first_checksum) {
                        fprintf(stderr, "strider bench skinning: %s with %d threads changed the result "
                                        "(checksum %08x vs %08x with %d)\n",
                                k_paths[p], threads[ti], r.checksum, first_checksum, threads[0]);
                        failures++;
                    }
                    if (!bench_table_row_begin(&t)) {
                        bench_table_free(&t);
                        return BENCH_EXIT_RUNTIME;
                    }
                    bench_table_str(&t, k_paths[p]);
                    bench_table_str(&t, skin_method_name(method));
                    bench_table_str(&t, isa_name);
                    bench_table_num(&t, threads[ti], 0);
                    bench_table_num(&t, verts[vi], 0);
                    bench_table_num(&t, bones, 0);
                    bench_table_num(&t, infl[ii], 0);
                    bench_table_num(&t, r.median_s * 1e6, 1);
                    bench_table_num(&t, r.min_s * 1e6, 1);
                    bench_table_num(&t, r.max_s * 1e6, 1);
                    bench_table_num(&t, r.median_mverts_s, 1);
                    bench_table_num(&t, r.median_mverts_s / threads[ti], 1);
                    bench_table_num(&t, r.max_pos_err_cm, 6);
                    bench_table_num(&t, r.max_nrm_err, 7);
                    bench_table_str(&t, sum);
                }
            }
        }
    }
    return bench_finish(&t, env, &c, failures);
}
