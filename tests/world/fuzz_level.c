/* libFuzzer harness for level_parse (no heightmap loading: base_dir NULL).
 * Any byte string must either parse into a level whose counts, bounds and
 * queries are sane, or fail cleanly with one error line. */
#include "core/log.h"
#include "world/level.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static level_t lvl;
    log_set_level(LOG_QUIET);
    if (!level_parse(&lvl, (const char *)data, size, "fuzz.lvl", NULL)) {
        if (lvl.terrain.heights != NULL || level_last_error()[0] == 0)
            abort();
        return 0;
    }
    if (!lvl.terrain.heights || lvl.terrain.width < 2 || lvl.terrain.depth < 2 || lvl.crouch_count < 0 ||
        lvl.crouch_count > LEVEL_MAX_CROUCH || lvl.jump_count < 0 || lvl.jump_count > LEVEL_MAX_JUMP ||
        lvl.wall_count < 0 || lvl.wall_count > LEVEL_MAX_WALLS)
        abort();
    float x0, z0, x1, z1;
    terrain_bounds(&lvl.terrain, &x0, &z0, &x1, &z1);
    if (lvl.spawn_x < x0 - 1.0f || lvl.spawn_x > x1 + 1.0f || lvl.spawn_z < z0 - 1.0f || lvl.spawn_z > z1 + 1.0f)
        abort();
    float x = lvl.spawn_x, z = lvl.spawn_z, n[3];
    if (!isfinite(terrain_height(&lvl.terrain, x, z)))
        abort();
    terrain_normal(&lvl.terrain, x, z, n);
    if (!(n[1] > 0.0f))
        abort();
    (void)level_crouch_ceiling(&lvl, x, z);
    (void)level_in_jump_area(&lvl, x, z);
    (void)level_segment_crosses_wall(&lvl, x0, z0, x1, z1);
    level_push_out_of_walls(&lvl, &x, &z, 25.0f);
    if (!isfinite(x) || !isfinite(z))
        abort();
    level_free(&lvl);
    return 0;
}
