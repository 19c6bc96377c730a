/* bench_skin: runs the skin_bench engine alone over every method,
 * instruction set and the given thread counts, one line each.
 *   bench_skin [--vertices N] [--repeats N] [--threads a,b,...] [--tangents]
 *              [--positions-only] [--influences K] [--smoke]
 * --smoke: tiny sizes; checks that every thread count gives the checksum of
 * one thread, and that the same configurations timed in alternation as one
 * set (skin_bench_run_set) give the results of their runs alone, and exits
 * non-zero otherwise (a ctest, not a timing). */
#include "anim/skin.h"
#include "bench/skin_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREAD_COUNTS = 8 };

enum { SET_MAX = 64 };

/* Every method, ISA, influence count and weighting of BASE's mesh as one set
 * at THREADS: each result has the checksum and errors of the same
 * configuration run alone, and the set refuses configurations of another
 * mesh size. Returns the count of failures. */
static int check_set(const skin_bench_desc_t *base, const int *threads, int nthreads)
{
    static const skin_method_t methods[] = {SKIN_LBS_POINTS, SKIN_LBS_MATRIX, SKIN_LBS_MATRIX, SKIN_DQS};
    static const skin_isa_t isas[] = {SKIN_ISA_SCALAR, SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AUTO};
    static skin_bench_desc_t set[SET_MAX];
    static skin_bench_result_t out[SET_MAX * MAX_THREAD_COUNTS];
    int n = 0, failures = 0;
    for (int m = 0; m < 4; m++) {
        if (!skin_isa_supported(isas[m]) && isas[m] != SKIN_ISA_AUTO)
            continue;
        for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++)
            for (int given = 0; given < 2 && n < SET_MAX; given++) {
                set[n] = *base;
                set[n].method = methods[m];
                set[n].isa = isas[m];
                set[n].influences = k;
                set[n++].prenormalized = given == 1;
            }
    }
    if (!skin_bench_run_set(set, n, threads, nthreads, out)) {
        fprintf(stderr, "bench_skin: a set of %d configurations failed\n", n);
        return 1;
    }
    for (int c = 0; c < n; c++) {
        skin_bench_result_t alone;
        skin_bench_desc_t d = set[c];
        d.threads = threads[nthreads - 1];
        if (!skin_bench_run(&d, &alone)) {
            failures++;
            continue;
        }
        for (int t = 0; t < nthreads; t++) {
            const skin_bench_result_t *r = &out[c * nthreads + t];
            if (r->checksum != alone.checksum || r->max_pos_err_cm != alone.max_pos_err_cm ||
                r->desc.threads != threads[t] || r->desc.influences != d.influences || r->median_s <= 0.0) {
                fprintf(stderr,
                        "bench_skin: set entry %d (%s, %s, %d influences, %d threads) differs from its "
                        "run alone (checksum %08x vs %08x)\n",
                        c, skin_method_name(d.method), skin_isa_name(r->isa), d.influences, threads[t], r->checksum,
                        alone.checksum);
                failures++;
            }
        }
    }
    skin_bench_desc_t mixed[2] = {*base, *base};
    mixed[1].vertex_count = base->vertex_count + 1;
    if (skin_bench_run_set(mixed, 2, threads, nthreads, out)) {
        fprintf(stderr, "bench_skin: a set of two mesh sizes was accepted\n");
        failures++;
    }
    if (skin_bench_run_set(set, 0, threads, nthreads, out) ||
        skin_bench_run_set(set, SKIN_BENCH_MAX_SET + 1, threads, nthreads, out)) {
        fprintf(stderr, "bench_skin: a set of 0 or too many configurations was accepted\n");
        failures++;
    }
    printf("bench_skin: %d configurations at %d thread counts timed in alternation agree with their runs alone\n", n,
           nthreads);
    return failures;
}

int main(int argc, char **argv)
{
    skin_bench_desc_t base = {0};
    int thread_counts[MAX_THREAD_COUNTS] = {1, 2};
    int n_counts = 2;
    bool smoke = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--vertices") && v) {
            base.vertex_count = atoi(v);
            i++;
        } else if (!strcmp(a, "--repeats") && v) {
            base.repeats = atoi(v);
            i++;
        } else if (!strcmp(a, "--threads") && v) {
            n_counts = 0;
            for (const char *p = v; *p && n_counts < MAX_THREAD_COUNTS; p++) {
                thread_counts[n_counts++] = atoi(p);
                while (p[1] && *p != ',')
                    p++;
            }
            i++;
        } else if (!strcmp(a, "--tangents")) {
            base.tangents = true;
        } else if (!strcmp(a, "--positions-only")) {
            base.positions_only = true;
        } else if (!strcmp(a, "--influences") && v) {
            base.influences = atoi(v);
            i++;
        } else if (!strcmp(a, "--smoke")) {
            smoke = true;
        } else {
            fprintf(stderr, "usage: bench_skin [--vertices N] [--repeats N] [--threads 1,2] "
                            "[--tangents] [--positions-only] [--influences K] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) {
        base.vertex_count = 3001;
        base.repeats = 3;
        base.warmup = 1;
        thread_counts[0] = 1;
        thread_counts[1] = 2;
        thread_counts[2] = 3;
        n_counts = 3;
    }
    static const skin_method_t methods[] = {SKIN_LBS_POINTS, SKIN_LBS_MATRIX, SKIN_DQS};
    static const skin_isa_t isas[] = {SKIN_ISA_SCALAR, SKIN_ISA_SSE2, SKIN_ISA_AVX2};
    int failures = 0;
    if (smoke)
        failures += check_set(&base, thread_counts, n_counts);
    for (int m = 0; m < 3; m++) {
        for (int s = 0; s < 3; s++) {
            if (!skin_isa_supported(isas[s]) || (methods[m] == SKIN_LBS_POINTS && s > 0))
                continue;
            uint32_t first = 0;
            for (int t = 0; t < n_counts; t++) {
                skin_bench_desc_t d = base;
                d.method = methods[m];
                d.isa = isas[s];
                d.threads = thread_counts[t];
                skin_bench_result_t r;
                char line[256];
                if (!skin_bench_run(&d, &r)) {
                    failures++;
                    continue;
                }
                skin_bench_format(&r, line, sizeof line);
                printf("%s\n", line);
                fflush(stdout);
                if (t == 0)
                    first = r.checksum;
                else if (r.checksum != first) {
                    fprintf(stderr, "bench_skin: checksum differs between 1 and %d threads\n", d.threads);
                    failures++;
                }
            }
        }
    }
    return failures ? 1 : 0;
}
