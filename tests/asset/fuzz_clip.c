/* libFuzzer harness for clip_parse: any byte string must either load into a
 * clip whose every index and time passes the checks (and then tweens at
 * any time, both modes, without reading out of bounds), or fail with one
 * message. Each input is parsed twice: as given, and with its header's size
 * and checksum fields patched to match, so mutations reach the checks
 * behind the checksum. */
#include "anim/tween.h"
#include "asset/clip.h"
#include "core/file.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_one(const uint8_t *data, size_t size)
{
    static clip_t c;
    if (!clip_parse(&c, data, size, "fuzz.vac"))
        return;
    for (uint32_t i = 0; i < c.vertex_count; i++)
        if (c.vertex[i] >= c.mesh_vertex_count)
            abort();
    tween_timing t = clip_timing(&c);
    if (!tween_timing_check(&t))
        abort();
    float *out_p = malloc((size_t)c.vertex_count * 3 * sizeof(float));
    float *out_n = malloc((size_t)c.vertex_count * 3 * sizeof(float));
    float *out_a = malloc((size_t)c.vertex_count * sizeof(float));
    if (out_p && out_n && out_a) {
        static const double times[] = {-1.75, 0.0, 0.031, 0.5, 7.3};
        for (int mode = 0; mode < TWEEN_MODE_COUNT; mode++)
            for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
                tween_job_t j = {.mode = (tween_mode)mode,
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
    fuzz_one(data, size);
    /* Header: size at byte 8, checksum of bytes [16, size) at byte 12. */
    if (size >= 16 && size <= UINT32_MAX) {
        uint8_t *copy = malloc(size);
        if (!copy)
            return 0;
        memcpy(copy, data, size);
        uint32_t n = (uint32_t)size, sum = file_checksum32(copy + 16, size - 16);
        for (int k = 0; k < 4; k++) {
            copy[8 + k] = (uint8_t)(n >> (8 * k));
            copy[12 + k] = (uint8_t)(sum >> (8 * k));
        }
        fuzz_one(copy, size);
        free(copy);
    }
    return 0;
}
