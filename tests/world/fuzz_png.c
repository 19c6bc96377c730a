/* libFuzzer harness for the heightmap PNG loader: any bytes must either load
 * as a 16-bit greyscale heightmap within the size limits, with heights in the
 * requested range, or fail cleanly with one error line. Almost every
 * mutation breaks a chunk's CRC-32, which the loader checks first, so each
 * input is also tried with every CRC made to match (the sealed-header idea
 * of fuzz_header.h): mutations then reach the chunk and zlib checks and
 * stb_image behind them. */
#include "core/log.h"
#include "world/terrain.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_and_check(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_and_check(data, size);
    uint8_t *copy = size > 8 ? malloc(size) : NULL;
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    for (size_t pos = 8; size - pos >= 12;) {
        uint32_t len = (uint32_t)copy[pos] << 24 | copy[pos + 1] << 16 | copy[pos + 2] << 8 | copy[pos + 3];
        if (len > size - pos - 12)
            break;
        uint32_t crc = (uint32_t)crc32(0L, copy + pos + 4, 4 + len);
        for (int k = 0; k < 4; k++)
            copy[pos + 8 + len + (size_t)k] = (uint8_t)(crc >> (24 - 8 * k));
        pos += 12 + (size_t)len;
    }
    load_and_check(copy, size);
    free(copy);
    return 0;
}

static void load_and_check(const uint8_t *data, size_t size)
{
    static const float lo = -100.0f, hi = 300.0f;
    terrain_t t;
    log_set_level(LOG_QUIET);
    if (!terrain_load_png_memory(&t, data, size, "fuzz.png", 20.0f, lo, hi)) {
        if (t.heights != NULL || terrain_last_error()[0] == 0)
            abort();
        return;
    }
    if (t.width < TERRAIN_MIN_SAMPLES || t.depth < TERRAIN_MIN_SAMPLES || t.width > TERRAIN_MAX_SAMPLES ||
        t.depth > TERRAIN_MAX_SAMPLES || !t.heights)
        abort();
    size_t count = (size_t)t.width * (size_t)t.depth;
    for (size_t k = 0; k < count; k++)
        if (!(t.heights[k] >= lo - 1e-3f && t.heights[k] <= hi + 1e-3f))
            abort();
    float x0, z0, x1, z1, n[3];
    terrain_bounds(&t, &x0, &z0, &x1, &z1);
    float h = terrain_height(&t, 0.5f * (x0 + x1), 0.5f * (z0 + z1));
    terrain_normal(&t, x1 + 100.0f, z0 - 100.0f, n);
    if (!(h >= lo - 1e-3f && h <= hi + 1e-3f) || !(n[1] > 0.0f))
        abort();
    terrain_free(&t);
}
