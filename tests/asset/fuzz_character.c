/* libFuzzer harness for chr_parse: any byte string must either load into a
 * character whose every index is in range, or fail with one message.
 * Each input is parsed twice: as given, and with its header's size and
 * checksum fields patched to match, so mutations reach the section checks
 * behind the checksum. */
#include "asset/character.h"
#include "core/file.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
