/* libFuzzer harness for clip_parse: any byte string must either load into a
 * clip whose every index and time passes the checks (and then tweens at
 * any time, both modes, without reading out of bounds), or fail with one
 * message. Each input is parsed twice: as given, and resealed
 * (fuzz_header.h). */
#include "anim/tween.h"
#include "asset/clip.h"
#include "core/log.h"
#include "fuzz_header.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_one(const uint8_t *data, size_t size)
{
    static clip_t c;
    if (!clip_parse(&c, data, size, "fuzz.vac"))
        return;
    for (uint32_t i = 0; i < c.vertex_count; i++)
        if (c.vertex[i] >= c.mesh_vertex_count)
            abort();
    tween_timing_t t = clip_timing(&c);
    if (!tween_timing_check(&t))
        abort();
    float *out_p = malloc((size_t)c.vertex_count * 3 * sizeof(float));
    float *out_n = malloc((size_t)c.vertex_count * 3 * sizeof(float));
    float *out_a = malloc((size_t)c.vertex_count * sizeof(float));
    if (out_p && out_n && out_a) {
        static const double times[] = {-1.75, 0.0, 0.031, 0.5, 7.3};
        for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++)
            for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
                tween_job_t j = {.mode = (tween_mode_t)mode,
                                 .timing = t,
                                 .time_s = times[k] * (double)c.duration_s + times[k],
                                 .vertex_count = (int)c.vertex_count,
                                 .positions = c.offset,
                                 .normals = c.normal,
                                 .ao = c.ao,
                                 .out_positions = out_p,
                                 .out_normals = out_n,
                                 .out_ao = out_a};
                if (!tween_run(&j))
                    abort();
            }
    }
    free(out_p);
    free(out_n);
    free(out_a);
    clip_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    fuzz_sealed(data, size, fuzz_one);
    return 0;
}
