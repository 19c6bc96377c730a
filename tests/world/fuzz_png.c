/* libFuzzer harness for the heightmap PNG loader: any bytes must either load
 * as a 16-bit greyscale heightmap within the size limits, with heights in the
 * requested range, or fail cleanly with one error line. */
#include "core/log.h"
#include "world/terrain.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const float lo = -100.0f, hi = 300.0f;
    terrain_t t;
    log_set_level(LOG_QUIET);
    if (!terrain_load_png_memory(&t, data, size, "fuzz.png", 20.0f, lo, hi)) {
        if (t.heights != NULL || terrain_last_error()[0] == 0)
            abort();
        return 0;
    }
    if (t.width < TERRAIN_MIN_SAMPLES || t.depth < TERRAIN_MIN_SAMPLES ||
        t.width > TERRAIN_MAX_SAMPLES || t.depth > TERRAIN_MAX_SAMPLES || !t.heights)
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
    return 0;
}
