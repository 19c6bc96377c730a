/* png16: a minimal writer for 16-bit greyscale PNG files (heightmaps).
 *
 * stb_image_write only writes 8-bit PNGs, so heightmaps use this encoder.
 * The zlib stream uses stored (uncompressed) deflate blocks: simple to get
 * right, and a 256x256 heightmap is still only ~130 kB.
 * Call order: png16_encode() -> use the bytes -> png16_free(), or png16_write().
 * Does NOT: compress, write colour or alpha, or read PNGs (stb_image does).
 * The caller owns the buffer returned by png16_encode().
 */
#ifndef STRIDER_TOOLS_PNG16_H
#define STRIDER_TOOLS_PNG16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { PNG16_MAX_SIDE = 16384 };

/* SAMPLES: width * height values, row by row from the top row. */
bool png16_encode(int width, int height, const uint16_t *samples, uint8_t **out_data, size_t *out_size);
void png16_free(uint8_t *data);
/* Encodes and writes PATH; errors are one logged line naming the file. */
bool png16_write(const char *path, int width, int height, const uint16_t *samples);

/* Exposed for tests: CRC-32 (PNG chunks) and Adler-32 (zlib stream). */
uint32_t png16_crc32(const uint8_t *data, size_t size);
uint32_t png16_adler32(const uint8_t *data, size_t size);

#endif
