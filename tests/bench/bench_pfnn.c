/* bench_pfnn: the pfnn_bench engine alone (`strider bench pfnn` adds tables).
 *
 * Usage: bench_pfnn [--net PFNN.BIN] [--hidden N] [--repeats N] [--isa scalar|sse2|avx2] [--smoke]
 * Without --net it times a random network of the shipped dims (282-N-N-284,
 * N = 512 by default) built in memory; every mode in fp32 and fp16.
 * --smoke: a 64-wide network and few repeats; checks that every mode and
 * dtype ran, that outputs are finite and close to cubic fp32. No timings are checked.
 */
#include "bench/pfnn_bench.h"

#include "testnet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *path = NULL;
    int hidden = 512, repeats = 0;
    bool smoke = false;
    pfnn_isa_t isa = PFNN_ISA_AUTO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--net") && i + 1 < argc)
            path = argv[++i];
        else if (!strcmp(argv[i], "--hidden") && i + 1 < argc)
            hidden = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
            const char *s = argv[++i];
            isa = !strcmp(s, "scalar") ? PFNN_ISA_SCALAR
                  : !strcmp(s, "sse2") ? PFNN_ISA_SSE2
                  : !strcmp(s, "avx2") ? PFNN_ISA_AVX2
                                       : (pfnn_isa_t)-1;
            if ((int)isa < 0) {
                fprintf(stderr, "bench_pfnn: --isa takes scalar, sse2 or avx2\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--smoke"))
            smoke = true;
        else {
            fprintf(stderr, "usage: bench_pfnn [--net PFNN.BIN] [--hidden N] [--repeats N] "
                            "[--isa scalar|sse2|avx2] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) {
        hidden = 64;
        repeats = 21;
    }
    if (hidden < 1 || hidden > PFNN_MAX_DIM || repeats < 0) {
        fprintf(stderr, "bench_pfnn: --hidden 1..%d, --repeats >= 1\n", PFNN_MAX_DIM);
        return 2;
    }
    pfnn_network_t net;
    pfnn_load_desc_t desc = {.fp16 = true};
    bool ok;
    if (path) {
        ok = pfnn_load_ex(&net, path, &desc);
    } else {
        size_t size;
        uint8_t *img = testnet_make(PFNN_N_IN, hidden, hidden, PFNN_N_OUT, 1, &size);
        ok = img && pfnn_load_memory(&net, "random", img, size, &desc);
        free(img);
    }
    if (!ok)
        return 1;
    if (!pfnn_isa_supported(isa, PFNN_F32)) {
        fprintf(stderr, "bench_pfnn: %s does not run on this CPU\n", pfnn_isa_name(isa));
        return 1;
    }
    pfnn_bench_desc_t bd = {.repeats = repeats, .isa = isa};
    if (smoke) {
        bd.warmup = 2;
        bd.copy_bytes = (size_t)8 << 20;
        bd.copy_bytes_l3 = (size_t)1 << 20;
    }
    pfnn_bench_result_t r;
    ok = pfnn_bench_run(&net, &bd, &r);
    if (ok) {
        static char buf[8192];
        pfnn_bench_format(&r, buf, sizeof buf);
        printf("%s (%s)\n%s", path ? path : "random network", isa == PFNN_ISA_AUTO ? "auto isa" : pfnn_isa_name(isa),
               buf);
    }
    if (ok && smoke) {
        ok = r.row_count >= PFNN_PHASE_MODE_COUNT && r.copy_gb_s > 0 && r.copy_l3_gb_s > 0;
        for (int i = 0; i < r.row_count; i++) {
            const pfnn_bench_row_t *w = &r.rows[i];
            /* Cubic fp32 is the reference itself; the others within the test tolerances. */
            double tol = w->mode == PFNN_PHASE_CUBIC ? (w->dtype == PFNN_F32 ? 1e-5 : 1e-2) : 0.5;
            if (!isfinite(w->checksum) || !(w->max_err_vs_cubic32 <= tol) || !(w->median_ms > 0)) {
                fprintf(stderr, "bench_pfnn: row %s %s: err %g checksum %g median %g\n", pfnn_mode_name(w->mode),
                        pfnn_dtype_name(w->dtype), w->max_err_vs_cubic32, w->checksum, w->median_ms);
                ok = false;
            }
        }
    }
    pfnn_free(&net);
    return ok ? 0 : 1;
}
