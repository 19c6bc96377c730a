#include "png16.h"

#include "core/file.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

/* A stored deflate block holds at most 65535 bytes (its LEN field is 16-bit). */
#define PNG16_STORED_MAX 65535u
/* Chunk framing: 4 length + 4 type + 4 CRC bytes around the payload. */
#define PNG16_CHUNK_OVERHEAD 12u
#define PNG16_IHDR_SIZE 13u
/* zlib: 2 header bytes, 5 bytes per stored block, 4 Adler-32 bytes. */
#define PNG16_ZLIB_HEADER 2u
#define PNG16_BLOCK_HEADER 5u
#define PNG16_ADLER_SIZE 4u

static const uint8_t PNG16_SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

uint32_t png16_crc32(const uint8_t *data, size_t size)
{
    /* Bitwise CRC-32 (polynomial 0xEDB88320, reflected), as PNG specifies.
     * A table would be faster; heightmaps are small and this runs offline. */
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xffffffffu;
}

uint32_t png16_adler32(const uint8_t *data, size_t size)
{
    const uint32_t mod = 65521u;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < size; i++) {
        a = (a + data[i]) % mod;
        b = (b + a) % mod;
    }
    return (b << 16) | a;
}

static uint8_t *png16_put_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

/* Writes one chunk (length, type, payload, CRC over type + payload). */
static uint8_t *png16_put_chunk(uint8_t *p, const char type[4], const uint8_t *payload, size_t size)
{
    p = png16_put_u32be(p, (uint32_t)size);
    uint8_t *crc_start = p;
    memcpy(p, type, 4);
    p += 4;
    if (size)
        memcpy(p, payload, size);
    p += size;
    return png16_put_u32be(p, png16_crc32(crc_start, size + 4));
}

bool png16_encode(int width, int height, const uint16_t *samples, uint8_t **out_data, size_t *out_size)
{
    *out_data = NULL;
    *out_size = 0;
    if (width < 1 || height < 1 || width > PNG16_MAX_SIDE || height > PNG16_MAX_SIDE)
        return false;
    /* Raw scanlines: a filter byte (0 = none) then big-endian samples. */
    size_t row = 1 + 2 * (size_t)width;
    size_t raw_size = row * (size_t)height;
    size_t blocks = (raw_size + PNG16_STORED_MAX - 1) / PNG16_STORED_MAX;
    size_t zsize = PNG16_ZLIB_HEADER + blocks * PNG16_BLOCK_HEADER + raw_size + PNG16_ADLER_SIZE;
    uint8_t *raw = malloc(raw_size);
    uint8_t *z = malloc(zsize);
    size_t total = sizeof PNG16_SIGNATURE + 3 * PNG16_CHUNK_OVERHEAD + PNG16_IHDR_SIZE + zsize;
    uint8_t *png = malloc(total);
    if (!raw || !z || !png) {
        free(raw);
        free(z);
        free(png);
        return false;
    }
    for (int j = 0; j < height; j++) {
        uint8_t *r = raw + (size_t)j * row;
        const uint16_t *s = samples + (size_t)j * (size_t)width;
        r[0] = 0;
        for (int i = 0; i < width; i++) {
            r[1 + 2 * i] = (uint8_t)(s[i] >> 8);
            r[2 + 2 * i] = (uint8_t)(s[i] & 0xff);
        }
    }
    /* zlib header: deflate with a 32 kB window, no preset dictionary,
     * check bits making 0x7801 a multiple of 31. */
    uint8_t *p = z;
    *p++ = 0x78;
    *p++ = 0x01;
    size_t done = 0;
    while (done < raw_size) {
        size_t n = raw_size - done;
        if (n > PNG16_STORED_MAX)
            n = PNG16_STORED_MAX;
        bool last = done + n == raw_size;
        *p++ = last ? 1 : 0; /* BFINAL bit, BTYPE 00 = stored */
        *p++ = (uint8_t)(n & 0xff);
        *p++ = (uint8_t)(n >> 8);
        *p++ = (uint8_t)(~n & 0xff);
        *p++ = (uint8_t)((~n >> 8) & 0xff);
        memcpy(p, raw + done, n);
        p += n;
        done += n;
    }
    p = png16_put_u32be(p, png16_adler32(raw, raw_size));
    free(raw);

    uint8_t ihdr[PNG16_IHDR_SIZE];
    png16_put_u32be(ihdr, (uint32_t)width);
    png16_put_u32be(ihdr + 4, (uint32_t)height);
    ihdr[8] = 16; /* bit depth */
    ihdr[9] = 0;  /* colour type: greyscale */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* no interlace */
    uint8_t *q = png;
    memcpy(q, PNG16_SIGNATURE, sizeof PNG16_SIGNATURE);
    q += sizeof PNG16_SIGNATURE;
    q = png16_put_chunk(q, "IHDR", ihdr, sizeof ihdr);
    q = png16_put_chunk(q, "IDAT", z, zsize);
    q = png16_put_chunk(q, "IEND", NULL, 0);
    free(z);
    *out_data = png;
    *out_size = (size_t)(q - png);
    return true;
}

void png16_free(uint8_t *data) { free(data); }

bool png16_write(const char *path, int width, int height, const uint16_t *samples)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!png16_encode(width, height, samples, &data, &size)) {
        log_error("%s: cannot encode a %dx%d PNG", path, width, height);
        return false;
    }
    bool ok = file_write_all(path, data, size);
    png16_free(data);
    return ok;
}
