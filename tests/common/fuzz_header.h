/* fuzz_header: the shape shared by the fuzz harnesses of our sealed binary
 * formats (.chr: docs/FORMATS_CHARACTER.md, .vac: docs/FORMATS_CLIP.md),
 * whose 16-byte header holds the file size at byte 8 and the FNV-1a
 * checksum of bytes [16, size) at byte 12. Almost every mutation breaks the
 * checksum, so a harness that only parsed the input as given would test
 * the checksum check and little else: fuzz_sealed() parses each input as
 * given, then a copy with the size and checksum fields made to match, so
 * mutations reach the section and index checks behind them.
 * Usage: LLVMFuzzerTestOneInput() { log_set_level(LOG_QUIET);
 *        fuzz_sealed(data, size, parse_and_check); return 0; }
 */
#ifndef STRIDER_TESTS_FUZZ_HEADER_H
#define STRIDER_TESTS_FUZZ_HEADER_H

#include "core/file.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { FUZZ_HEADER_BYTES = 16, FUZZ_HEADER_SIZE_AT = 8, FUZZ_HEADER_CHECKSUM_AT = 12 };

static inline void fuzz_sealed(const uint8_t *data, size_t size, void (*parse)(const uint8_t *data, size_t size))
{
    parse(data, size);
    if (size < FUZZ_HEADER_BYTES || size > UINT32_MAX)
        return;
    uint8_t *copy = malloc(size);
    if (!copy)
        return;
    memcpy(copy, data, size);
    uint32_t n = (uint32_t)size;
    uint32_t sum = file_checksum32(copy + FUZZ_HEADER_BYTES, size - FUZZ_HEADER_BYTES);
    for (int k = 0; k < 4; k++) {
        copy[FUZZ_HEADER_SIZE_AT + k] = (uint8_t)(n >> (8 * k));
        copy[FUZZ_HEADER_CHECKSUM_AT + k] = (uint8_t)(sum >> (8 * k));
    }
    parse(copy, size);
    free(copy);
}

#endif
