/* libFuzzer harness for chr_parse: any byte string must either load into a
 * character whose every index is in range, or fail with one message.
 * Each input is parsed twice: as given, and resealed (fuzz_header.h). */
#include "asset/character.h"
#include "core/log.h"
#include "fuzz_header.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_one(const uint8_t *data, size_t size)
{
    static chr_character_t c;
    if (!chr_parse(&c, data, size, "fuzz.chr"))
        return;
    /* Touch everything the loader promised is in range. */
    for (uint32_t m = 0; m < c.mesh_count; m++)
        for (uint32_t i = 0; i < c.meshes[m].index_count; i++)
            if (c.meshes[m].indices[i] >= c.meshes[m].vertex_count)
                abort();
    for (uint32_t s = 0; s < c.shape_count; s++) {
        const chr_shape_t *sh = &c.shapes[s];
        for (uint32_t i = 0; i < sh->delta_count; i++)
            if (sh->deltas[i].vertex >= c.meshes[sh->mesh].vertex_count)
                abort();
    }
    chr_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    fuzz_sealed(data, size, fuzz_one);
    return 0;
}
