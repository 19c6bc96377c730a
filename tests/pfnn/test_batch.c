/* Tests of the batched forward pass (src/pfnn/batch.h).
 *
 * Usage: test_batch [--net PFNN.BIN [--skip-missing]]
 * Without arguments: random networks built in memory (the shipped dims at
 * 64 and 512 wide, and odd dims that leave partial panels and odd input
 * counts) and the tiny fixture. With --net: that file (the shipped
 * assets/network/pfnn.bin in ctest); --skip-missing exits 77 (ctest SKIP)
 * when it does not exist.
 *
 * Tolerance: none. The batch applies to every output element the operations
 * pfnn_run() applies (the same chains, in the same order, FMA where the gemv
 * uses FMA; see batch.h), so every comparison here is bit for bit (memcmp):
 * batch vs pfnn_run per character, 1 vs 2 vs 3 threads, and a character's
 * row wherever it sits in the batch. A looser bound would hide a kernel
 * that reorders a sum.
 */
#define _POSIX_C_SOURCE 200809L
#include "pfnn/batch.h"

#include "core/log.h"
#include "testnet.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_TWO_PI 6.283185307179586
enum {
    SKIP_CODE = 77,
    /* Characters per test batch: several blocks and a partial one. */
    N_CHARS = 2 * PFNN_BATCH_BLOCK + 7,
    /* Padding floats after each row, to test strides. */
    PAD = 5
};
/* What the padding holds; a run must leave it alone. */
#define SENTINEL 12345.0f

static const pfnn_isa_t isas[] = {PFNN_ISA_SCALAR, PFNN_ISA_SSE2, PFNN_ISA_AVX2};

static uint32_t rng = 1;
static float rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (float)(rng >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
}

/* Inputs and phases for N characters: inputs about the training mean by
 * one std; phases random over three cycles (negative too), with the exact
 * control points and LINEAR slice edges mixed in (where a Catmull-Rom or
 * slice weight is exactly 0, which the pass skips). */
static void make_inputs(const pfnn_network_t *net, int n, size_t xs, float *x, float *phase)
{
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < net->n_in; i++)
            x[(size_t)c * xs + (size_t)i] = net->x_mean[i] + net->x_std[i] * rnd();
        for (size_t i = (size_t)net->n_in; i < xs; i++)
            x[(size_t)c * xs + i] = SENTINEL;
        phase[c] = (float)(3.0 * TEST_TWO_PI * rnd());
        if (c % 5 == 1)
            phase[c] = (float)(TEST_TWO_PI / 4 * (c % 4));
        if (c % 7 == 2)
            phase[c] = (float)(TEST_TWO_PI / 10 * (c % 10));
    }
}

/* pfnn_run on each character: N rows of n_out at stride YS. */
static void run_singles(const pfnn_network_t *net, pfnn_mode_t mode, pfnn_dtype_t dtype, pfnn_isa_t isa, int n,
                        const float *x, size_t xs, const float *phase, float *y, size_t ys)
{
    pfnn_workspace_t ws;
    CHECK(pfnn_workspace_init(&ws, net));
    for (int c = 0; c < n; c++) {
        pfnn_job_t job = {net, &ws, mode, dtype, isa, phase[c], x + (size_t)c * xs, y + (size_t)c * ys};
        CHECK(pfnn_run(&job));
    }
    pfnn_workspace_free(&ws);
}

static bool run_batch(pfnn_batch_t *b, pfnn_mode_t mode, pfnn_dtype_t dtype, pfnn_isa_t isa, int n, const float *x,
                      size_t xs, const float *phase, float *y, size_t ys)
{
    for (size_t i = 0; i < (size_t)n * ys; i++)
        y[i] = SENTINEL;
    pfnn_batch_job_t job = {.batch = b,
                            .mode = mode,
                            .dtype = dtype,
                            .isa = isa,
                            .count = n,
                            .phase = phase,
                            .x = x,
                            .x_stride = xs,
                            .y = y,
                            .y_stride = ys};
    return pfnn_batch_run(&job);
}

/* Rows of N_OUT floats at stride YS equal bit for bit; padding untouched. */
static bool same_rows(const float *a, const float *b, int n, int n_out, size_t ys)
{
    for (int c = 0; c < n; c++) {
        if (memcmp(a + (size_t)c * ys, b + (size_t)c * ys, (size_t)n_out * sizeof(float)) != 0)
            return false;
        for (size_t i = (size_t)n_out; i < ys; i++)
            if (b[(size_t)c * ys + i] != SENTINEL)
                return false;
    }
    return true;
}

/* Largest |a - b| / Ystd over the rows (for the failure message). */
static double max_err(const pfnn_network_t *net, const float *a, const float *b, int n, size_t ys)
{
    double e = 0.0;
    for (int c = 0; c < n; c++)
        for (int o = 0; o < net->n_out; o++) {
            double d = fabs((double)a[(size_t)c * ys + o] - b[(size_t)c * ys + o]) / net->y_std[o];
            if (!(d <= e))
                e = isnan(d) ? INFINITY : d;
        }
    return e;
}

/* Every mode, dtype and ISA of NET: a batch of N_CHARS against pfnn_run per
 * character, on 1, 2 and 3 threads; a batch of one for each character; the
 * batch reversed (every character at another position and in other blocks);
 * strided rows. */
static void test_against_single(const pfnn_network_t *net, const char *what)
{
    const size_t xs = (size_t)net->n_in + PAD, ys = (size_t)net->n_out + PAD;
    float *x = malloc((size_t)N_CHARS * xs * sizeof(float));
    float *xr = malloc((size_t)N_CHARS * xs * sizeof(float));
    float *phase = malloc(N_CHARS * sizeof(float)), *phase_r = malloc(N_CHARS * sizeof(float));
    float *y1 = malloc((size_t)N_CHARS * ys * sizeof(float));
    float *yb = malloc((size_t)N_CHARS * ys * sizeof(float));
    float *yr = malloc((size_t)N_CHARS * ys * sizeof(float));
    pfnn_batch_t *b[3] = {NULL, NULL, NULL};
    for (int t = 0; t < 3; t++) {
        b[t] = pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = N_CHARS, .thread_count = t + 1});
        CHECKF(b[t] != NULL, "%s: batch on %d threads", what, t + 1);
    }
    if (!x || !xr || !phase || !phase_r || !y1 || !yb || !yr || !b[0] || !b[1] || !b[2])
        goto done;
    make_inputs(net, N_CHARS, xs, x, phase);
    for (int c = 0; c < N_CHARS; c++) {
        memcpy(xr + (size_t)(N_CHARS - 1 - c) * xs, x + (size_t)c * xs, xs * sizeof(float));
        phase_r[N_CHARS - 1 - c] = phase[c];
    }
    int combos = 0;
    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
        for (int d = 0; d < PFNN_DTYPE_COUNT; d++)
            for (size_t ii = 0; ii < sizeof isas / sizeof isas[0]; ii++) {
                const pfnn_mode_t mode = (pfnn_mode_t)m;
                const pfnn_dtype_t dtype = (pfnn_dtype_t)d;
                const pfnn_isa_t isa = isas[ii];
                if (!pfnn_has_mode(net, mode, dtype) || !pfnn_isa_supported(isa, dtype))
                    continue;
                combos++;
                for (size_t i = 0; i < (size_t)N_CHARS * ys; i++)
                    y1[i] = SENTINEL;
                run_singles(net, mode, dtype, isa, N_CHARS, x, xs, phase, y1, ys);
                for (int t = 0; t < 3; t++) {
                    CHECK(run_batch(b[t], mode, dtype, isa, N_CHARS, x, xs, phase, yb, ys));
                    CHECKF(same_rows(y1, yb, N_CHARS, net->n_out, ys),
                           "%s %s %s %s, %d threads: batch differs from pfnn_run by %.3g std", what,
                           pfnn_mode_name(mode), pfnn_dtype_name(dtype), pfnn_isa_name(isa), t + 1,
                           max_err(net, y1, yb, N_CHARS, ys));
                }
                /* Reversed: each character at another position. */
                CHECK(run_batch(b[1], mode, dtype, isa, N_CHARS, xr, xs, phase_r, yr, ys));
                bool same = true;
                for (int c = 0; c < N_CHARS; c++)
                    same = same && memcmp(y1 + (size_t)c * ys, yr + (size_t)(N_CHARS - 1 - c) * ys,
                                          (size_t)net->n_out * sizeof(float)) == 0;
                CHECKF(same, "%s %s %s %s: a row depends on its position in the batch", what, pfnn_mode_name(mode),
                       pfnn_dtype_name(dtype), pfnn_isa_name(isa));
                /* Batches of one, packed rows (strides 0). */
                same = true;
                for (int c = 0; c < N_CHARS; c += 3) {
                    float *yc = yb;
                    CHECK(
                        run_batch(b[2], mode, dtype, isa, 1, x + (size_t)c * xs, 0, phase + c, yc, (size_t)net->n_out));
                    same = same && memcmp(y1 + (size_t)c * ys, yc, (size_t)net->n_out * sizeof(float)) == 0;
                }
                CHECKF(same, "%s %s %s %s: a batch of one differs from pfnn_run", what, pfnn_mode_name(mode),
                       pfnn_dtype_name(dtype), pfnn_isa_name(isa));
            }
    CHECKF(combos >= PFNN_PHASE_MODE_COUNT * 2, "%s: only %d mode/dtype/ISA combinations ran", what, combos);
    printf("%s: %d mode/dtype/ISA combinations, batch == pfnn_run bit for bit on 1, 2 and 3 threads\n", what, combos);
done:
    for (int t = 0; t < 3; t++)
        pfnn_batch_destroy(b[t]);
    free(x);
    free(xr);
    free(phase);
    free(phase_r);
    free(y1);
    free(yb);
    free(yr);
}

/* A NaN or infinite input value, or phase, of one character makes its
 * outputs non-finite and leaves every other character's bit-identical. */
static void test_nonfinite(const pfnn_network_t *net, const char *what)
{
    const size_t xs = (size_t)net->n_in, ys = (size_t)net->n_out;
    float *x = malloc((size_t)N_CHARS * xs * sizeof(float));
    float *phase = malloc(N_CHARS * sizeof(float));
    float *clean = malloc((size_t)N_CHARS * ys * sizeof(float));
    float *y = malloc((size_t)N_CHARS * ys * sizeof(float));
    pfnn_batch_t *b = pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = N_CHARS, .thread_count = 2});
    CHECK(b != NULL);
    if (!x || !phase || !clean || !y || !b)
        goto done;
    make_inputs(net, N_CHARS, xs, x, phase);
    const float bad[] = {NAN, INFINITY, -INFINITY};
    /* One in the first block, one in the last (partial) block. */
    const int victims[] = {3, N_CHARS - 2};
    for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
        for (int d = 0; d < PFNN_DTYPE_COUNT; d++) {
            const pfnn_mode_t mode = (pfnn_mode_t)m;
            const pfnn_dtype_t dtype = (pfnn_dtype_t)d;
            if (!pfnn_has_mode(net, mode, dtype))
                continue;
            CHECK(run_batch(b, mode, dtype, PFNN_ISA_AUTO, N_CHARS, x, xs, phase, clean, ys));
            for (int c = 0; c < N_CHARS; c++)
                CHECKF(pfnn_output_is_finite(clean + (size_t)c * ys, net->n_out), "%s: finite input, row %d", what, c);
            for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++)
                for (int where = 0; where < 2; where++) {
                    /* An infinite input can end as ELU's -1 when a layer
                     * is a single unit (1-1-1-1); NaN cannot. */
                    if (where == 0 && !isnan(bad[v]) && net->h0 < 8)
                        continue;
                    const int c = victims[where];
                    float *slot = where == 0 ? &x[(size_t)c * xs + (size_t)(net->n_in / 2)] : &phase[c];
                    const float keep = *slot;
                    *slot = bad[v];
                    CHECK(run_batch(b, mode, dtype, PFNN_ISA_AUTO, N_CHARS, x, xs, phase, y, ys));
                    *slot = keep;
                    CHECKF(!pfnn_output_is_finite(y + (size_t)c * ys, net->n_out),
                           "%s %s %s: %s %g of character %d not propagated", what, pfnn_mode_name(mode),
                           pfnn_dtype_name(dtype), where == 0 ? "input" : "phase", (double)bad[v], c);
                    bool others = true;
                    for (int o = 0; o < N_CHARS; o++)
                        if (o != c)
                            others = others &&
                                     memcmp(clean + (size_t)o * ys, y + (size_t)o * ys, ys * sizeof(float)) == 0;
                    CHECKF(others, "%s %s %s: a non-finite %s of character %d changed another character", what,
                           pfnn_mode_name(mode), pfnn_dtype_name(dtype), where == 0 ? "input" : "phase", c);
                }
        }
done:
    pfnn_batch_destroy(b);
    free(x);
    free(phase);
    free(clean);
    free(y);
}

/* Bad descs and jobs: refused with one logged line, nothing run. */
static void test_refusals(const pfnn_network_t *net)
{
    log_set_level(LOG_QUIET);
    CHECK(pfnn_batch_create(NULL) == NULL);
    CHECK(pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = 0}) == NULL);
    CHECK(pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = PFNN_BATCH_MAX + 1}) == NULL);
    CHECK(pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = 4, .thread_count = -1}) == NULL);
    CHECK(pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = 4, .thread_count = 17}) == NULL);
    pfnn_network_t empty;
    memset(&empty, 0, sizeof empty);
    CHECK(pfnn_batch_create(&(pfnn_batch_desc_t){.net = &empty, .max_count = 4}) == NULL);

    pfnn_batch_t *b = pfnn_batch_create(&(pfnn_batch_desc_t){.net = net, .max_count = 4});
    CHECK(b != NULL);
    CHECK(pfnn_batch_thread_count(b) == 1 && pfnn_batch_max_count(b) == 4);
    const size_t n_in = (size_t)net->n_in, n_out = (size_t)net->n_out;
    float *buf = calloc(4 * (n_in + n_out), sizeof(float));
    float phase[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    if (b && buf) {
        float *x = buf, *y = buf + 4 * n_in;
        pfnn_batch_job_t ok = {.batch = b, .mode = PFNN_PHASE_CUBIC, .count = 4, .phase = phase, .x = x, .y = y};
        CHECK(pfnn_batch_validate(&ok));
        pfnn_batch_job_t j = ok;
        CHECK(!pfnn_batch_validate(NULL));
        j.batch = NULL;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.count = 5;
        CHECK(!pfnn_batch_validate(&j));
        j.count = -1;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.x = NULL;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.phase = NULL;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.x_stride = n_in - 1;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.y_stride = n_out - 1;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        /* In place: y over x. */
        j.y = x + 1;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.mode = PFNN_PHASE_MODE_COUNT;
        CHECK(!pfnn_batch_validate(&j));
        j = ok;
        j.isa = (pfnn_isa_t)99;
        CHECK(!pfnn_batch_validate(&j));
        /* A zero count runs nothing, with or without arrays. */
        j = (pfnn_batch_job_t){.batch = b, .mode = PFNN_PHASE_CUBIC};
        CHECK(pfnn_batch_run(&j));
    }
    free(buf);
    pfnn_batch_destroy(b);
    pfnn_batch_destroy(NULL);
    log_set_level(LOG_INFO);
}

static void test_network(const pfnn_network_t *net, const char *what)
{
    test_against_single(net, what);
    test_nonfinite(net, what);
}

static void test_random(int n_in, int h0, int h1, int n_out, uint32_t seed)
{
    size_t size;
    uint8_t *img = testnet_make(n_in, h0, h1, n_out, seed, &size);
    CHECK(img != NULL);
    if (!img)
        return;
    char what[64];
    snprintf(what, sizeof what, "random %d-%d-%d-%d", n_in, h0, h1, n_out);
    pfnn_network_t net;
    pfnn_load_desc_t desc = {.fp16 = true, .any_dims = true};
    bool ok = pfnn_load_memory(&net, what, img, size, &desc);
    CHECKF(ok, "load %s", what);
    free(img);
    if (!ok)
        return;
    test_network(&net, what);
    pfnn_free(&net);
}

static bool test_file(const char *path)
{
    pfnn_network_t net;
    pfnn_load_desc_t desc = {.fp16 = true, .any_dims = true};
    bool ok = pfnn_load_ex(&net, path, &desc);
    CHECKF(ok, "load %s", path);
    if (!ok)
        return false;
    test_network(&net, path);
    test_refusals(&net);
    pfnn_free(&net);
    return true;
}

int main(int argc, char **argv)
{
    const char *net_path = NULL;
    bool skip_missing = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--net") && i + 1 < argc)
            net_path = argv[++i];
        else if (!strcmp(argv[i], "--skip-missing"))
            skip_missing = true;
        else {
            fprintf(stderr, "usage: test_batch [--net PFNN.BIN [--skip-missing]]\n");
            return 2;
        }
    }
    if (net_path) {
        if (skip_missing && access(net_path, R_OK) != 0) {
            printf("SKIP: %s does not exist yet\n", net_path);
            return SKIP_CODE;
        }
        test_file(net_path);
    } else {
        test_file("tests/pfnn/fixtures/tiny_pfnn.bin");
        test_random(PFNN_N_IN, 64, 64, PFNN_N_OUT, 11);
        /* Partial panels, odd input counts (the AVX2 chains' tail), n_in 1. */
        test_random(13, 31, 65, 40, 12);
        test_random(7, 33, 5, 3, 13);
        test_random(1, 1, 1, 1, 14);
    }
    return check_summary();
}
