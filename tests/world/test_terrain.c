/* Tests for terrain and the 16-bit PNG writer: bilinear sampling is exact at
 * samples and linear in between, normals of a known slope, clamping outside
 * the grid, PNG round trips through stb_image, and every bad heightmap
 * (missing, truncated, 8-bit, RGB, too small, too large, a chunk CRC or the
 * zlib Adler-32 that does not match, flipped deflate bits) fails with one
 * error line naming the file. Edits that test a check behind the CRCs
 * re-seal the file first (reseal()). */
#include "png16.h"

#include "core/log.h"
#include "world/terrain.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stb_image.h"
#include "stb_image_write.h"
#include <zlib.h>
#include "check.h"

/* A 4x3 grid with distinct heights, cell 10 cm: row j, column i. */
static void make_grid(terrain_t *t)
{
    static const float h[3][4] = {{0, 10, 20, 40}, {5, 15, 35, 45}, {-10, 0, 10, 100}};
    CHECK(terrain_create_flat(t, 4, 3, 10.0f, 0.0f));
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            t->heights[j * 4 + i] = h[j][i];
}

static void test_sampling(void)
{
    terrain_t t;
    make_grid(&t);
    /* Centred on the origin: x from -15 to 15, z from -10 to 10. */
    float x0, z0, x1, z1;
    terrain_bounds(&t, &x0, &z0, &x1, &z1);
    CHECK_NEAR(x0, -15, 1e-5);
    CHECK_NEAR(x1, 15, 1e-5);
    CHECK_NEAR(z0, -10, 1e-5);
    CHECK_NEAR(z1, 10, 1e-5);
    /* Exact at every sample. */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            CHECK_NEAR(terrain_height(&t, x0 + 10.0f * (float)i, z0 + 10.0f * (float)j), t.heights[j * 4 + i], 1e-4);
    /* Edge midpoints interpolate linearly, cell centres average four samples. */
    CHECK_NEAR(terrain_height(&t, x0 + 5.0f, z0), 5.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, x0 + 25.0f, z0 + 10.0f), 40.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, x0 + 5.0f, z0 + 5.0f), (0 + 10 + 5 + 15) / 4.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, x0 + 25.0f, z0 + 15.0f), (35 + 45 + 10 + 100) / 4.0f, 1e-4);
    /* Bilinear, not just any blend: at (0.25, 0.75) inside cell (2,1). */
    float want = 0.25f * 0.25f * 45 + 0.75f * 0.25f * 35 + 0.75f * 0.75f * 10 + 0.25f * 0.75f * 100;
    CHECK_NEAR(terrain_height(&t, x0 + 22.5f, z0 + 17.5f), want, 1e-4);
    /* Outside the grid: clamped to the border. */
    CHECK_NEAR(terrain_height(&t, -1000.0f, -1000.0f), 0.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, 1000.0f, 1000.0f), 100.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, x0 + 5.0f, -1000.0f), 5.0f, 1e-4);
    CHECK_NEAR(terrain_height(&t, 1e30f, z0), 40.0f, 1e-4);
    /* NaN and infinities never index out of the grid. */
    CHECK(isfinite(terrain_height(&t, NAN, NAN)));
    CHECK(isfinite(terrain_height(&t, INFINITY, -INFINITY)));
    terrain_free(&t);
    CHECK(t.heights == NULL);
}

static void test_normals(void)
{
    terrain_t t;
    CHECK(terrain_create_flat(&t, 16, 16, 20.0f, 50.0f));
    float n[3];
    terrain_normal(&t, 3.0f, -7.0f, n);
    CHECK_NEAR(n[0], 0, 1e-6);
    CHECK_NEAR(n[1], 1, 1e-6);
    CHECK_NEAR(n[2], 0, 1e-6);
    /* Plane h = 0.5 x - 0.25 z: normal ~ (-0.5, 1, 0.25), exact away from edges. */
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++)
            t.heights[j * 16 + i] = 0.5f * (t.origin_x + 20.0f * (float)i) - 0.25f * (t.origin_z + 20.0f * (float)j);
    float len = sqrtf(0.25f + 1.0f + 0.0625f);
    float px[3] = {0.0f, 13.0f, -41.5f}, pz[3] = {0.0f, 27.0f, 33.3f};
    for (int k = 0; k < 3; k++) {
        terrain_normal(&t, px[k], pz[k], n);
        CHECK_NEAR(n[0], -0.5f / len, 1e-5);
        CHECK_NEAR(n[1], 1.0f / len, 1e-5);
        CHECK_NEAR(n[2], 0.25f / len, 1e-5);
        CHECK_NEAR(terrain_height(&t, px[k], pz[k]), 0.5f * px[k] - 0.25f * pz[k], 1e-3);
    }
    /* Far outside, the clamped surface is flat along the clamped axes. */
    terrain_normal(&t, 1e6f, 1e6f, n);
    CHECK_NEAR(n[1], 1.0f, 1e-6);
    terrain_free(&t);
}

static void test_create_flat_limits(void)
{
    terrain_t t;
    log_set_level(LOG_QUIET);
    CHECK(!terrain_create_flat(&t, 1, 10, 20.0f, 0.0f));
    CHECK(strstr(terrain_last_error(), "1x10") != NULL);
    CHECK(!terrain_create_flat(&t, 10, TERRAIN_MAX_SAMPLES + 1, 20.0f, 0.0f));
    CHECK(!terrain_create_flat(&t, 10, 10, 0.0f, 0.0f));
    CHECK(!terrain_create_flat(&t, 10, 10, NAN, 0.0f));
    CHECK(!terrain_create_flat(&t, 10, 10, 20.0f, INFINITY));
    CHECK(t.heights == NULL);
    log_set_level(LOG_INFO);
}

/* Random samples through png16 -> stb_image and -> terrain loader. */
static void test_png_roundtrip(void)
{
    enum { W = 37, H = 23 };
    static uint16_t px[W * H];
    uint32_t r = 12345u;
    for (int k = 0; k < W * H; k++) {
        r = r * 1664525u + 1013904223u;
        px[k] = (uint16_t)(r >> 16);
    }
    px[0] = 0;
    px[1] = 65535;
    uint8_t *png = NULL;
    size_t size = 0;
    CHECK(png16_encode(W, H, px, &png, &size));
    if (!png)
        return;
    int w = 0, h = 0, c = 0;
    CHECK(stbi_is_16_bit_from_memory(png, (int)size));
    stbi_us *back = stbi_load_16_from_memory(png, (int)size, &w, &h, &c, 1);
    CHECK(back != NULL && w == W && h == H && c == 1);
    if (back) {
        CHECK(memcmp(back, px, sizeof px) == 0);
        stbi_image_free(back);
    }
    terrain_t t;
    CHECK(terrain_load_png_memory(&t, png, size, "roundtrip.png", 20.0f, -100.0f, 555.35f));
    CHECK(t.width == W && t.depth == H);
    if (t.heights) {
        float q = (555.35f + 100.0f) / 65535.0f;
        float worst = 0.0f;
        for (int k = 0; k < W * H; k++)
            worst = fmaxf(worst, fabsf(t.heights[k] - (-100.0f + (float)px[k] * q)));
        CHECK(worst < 1e-3f);
        CHECK_NEAR(t.heights[0], -100.0f, 1e-4);
        CHECK_NEAR(t.heights[1], 555.35f, 1e-3);
        /* Row-major by z: pixel (i=5, row j=7) is sample (5, 7). */
        CHECK_NEAR(terrain_height(&t, t.origin_x + 5 * 20.0f, t.origin_z + 7 * 20.0f), t.heights[7 * W + 5], 1e-4);
    }
    terrain_free(&t);

    /* A multi-block image: more than 65535 raw bytes needs several stored
     * deflate blocks. */
    enum { BW = 300, BH = 200 };
    uint16_t *big = malloc(sizeof *big * BW * BH);
    for (int k = 0; k < BW * BH; k++)
        big[k] = (uint16_t)(k * 7);
    uint8_t *png2 = NULL;
    size_t size2 = 0;
    CHECK(png16_encode(BW, BH, big, &png2, &size2));
    back = png2 ? stbi_load_16_from_memory(png2, (int)size2, &w, &h, &c, 1) : NULL;
    CHECK(back != NULL && w == BW && h == BH);
    if (back) {
        CHECK(memcmp(back, big, sizeof *big * BW * BH) == 0);
        stbi_image_free(back);
    }
    free(big);
    png16_free(png2);

    /* Known check values (zlib/PNG specifications). */
    CHECK(png16_crc32((const uint8_t *)"123456789", 9) == 0xCBF43926u);
    CHECK(png16_adler32((const uint8_t *)"Wikipedia", 9) == 0x11E60398u);

    /* Truncated: every cut of the file fails cleanly. */
    log_set_level(LOG_QUIET);
    for (size_t cut = 0; cut < size; cut += (cut < 64 ? 1 : 97)) {
        CHECK(!terrain_load_png_memory(&t, png, cut, "cut.png", 20.0f, 0.0f, 1.0f));
        CHECK(strncmp(terrain_last_error(), "cut.png: ", 9) == 0);
    }
    log_set_level(LOG_INFO);
    png16_free(png);
}

typedef struct mem_buf_t {
    uint8_t data[4096];
    size_t size;
} mem_buf_t;

static void mem_write(void *ctx, void *data, int size)
{
    mem_buf_t *b = ctx;
    if (size > 0 && b->size + (size_t)size <= sizeof b->data) {
        memcpy(b->data + b->size, data, (size_t)size);
        b->size += (size_t)size;
    }
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/* Recomputes every chunk's CRC-32, so that an edit reaches the checks that
 * come after the CRC check. */
static void reseal(uint8_t *png, size_t size)
{
    for (size_t pos = 8; pos + 12 <= size;) {
        uint32_t len = be32(png + pos);
        if (len > size - pos - 12)
            return;
        uint32_t crc = (uint32_t)crc32(0L, png + pos + 4, 4 + len);
        for (int k = 0; k < 4; k++)
            png[pos + 8 + len + k] = (uint8_t)(crc >> (24 - 8 * k));
        pos += 12 + (size_t)len;
    }
}

/* A chunk CRC, the zlib stream's Adler-32, and the deflate data itself:
 * each damaged alone is refused with a line that says which (stb_image
 * checks none of them and decodes the damaged pixels). */
static void test_png_integrity(void)
{
    terrain_t t;
    uint16_t px[8][8];
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++)
            px[j][i] = (uint16_t)(1000 * j + i);
    uint8_t *png = NULL;
    size_t size = 0;
    CHECK(png16_encode(8, 8, &px[0][0], &png, &size));
    CHECK(terrain_load_png_memory(&t, png, size, "good.png", 20.0f, 0.0f, 1.0f));
    terrain_free(&t);
    /* The IHDR's CRC (bytes 29..32). */
    png[32] ^= 0x01;
    CHECK(!terrain_load_png_memory(&t, png, size, "crc.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "crc.png: corrupt PNG: chunk 'IHDR' at byte 8: CRC 0x") != NULL);
    png[32] ^= 0x01;
    /* The IDAT starts at byte 33: length, type, then the zlib stream, whose
     * last 4 bytes are the Adler-32 of the raw scanlines. */
    uint32_t idat = be32(png + 33);
    size_t zlib_at = 33 + 8, adler_at = zlib_at + idat - 4;
    png[adler_at] ^= 0x10;
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "adler.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "adler.png: PNG image data does not inflate") != NULL);
    CHECK(strstr(terrain_last_error(), "incorrect data check") != NULL);
    png[adler_at] ^= 0x10;
    /* A stored block's data byte: the deflate stream stays well formed, only
     * the Adler-32 tells (a pixel would silently change otherwise). */
    png[zlib_at + 2 + 5 + 20] ^= 0x80;
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "pixel.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "incorrect data check") != NULL);
    png[zlib_at + 2 + 5 + 20] ^= 0x80;
    /* The stored block's length field (LEN and its complement NLEN). */
    png[zlib_at + 2 + 1] ^= 0x04;
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "deflate.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "deflate.png: PNG image data does not inflate") != NULL);
    png[zlib_at + 2 + 1] ^= 0x04;
    reseal(png, size);
    CHECK(terrain_load_png_memory(&t, png, size, "restored.png", 20.0f, 0.0f, 1.0f));
    terrain_free(&t);
    png16_free(png);
}

static void test_bad_pngs(void)
{
    terrain_t t;
    log_set_level(LOG_QUIET);
    /* 8-bit grey and 8-bit RGB from stb_image_write. */
    static const uint8_t pix[4 * 4 * 3] = {1, 2, 3};
    mem_buf_t b = {.size = 0};
    CHECK(stbi_write_png_to_func(mem_write, &b, 4, 4, 1, pix, 4));
    CHECK(!terrain_load_png_memory(&t, b.data, b.size, "grey8.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "grey8.png: ") == terrain_last_error());
    CHECK(strstr(terrain_last_error(), "16-bit greyscale") != NULL);
    b.size = 0;
    CHECK(stbi_write_png_to_func(mem_write, &b, 4, 4, 3, pix, 12));
    CHECK(!terrain_load_png_memory(&t, b.data, b.size, "rgb.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "8-bit RGB") != NULL);
    /* Too small (1x5) and too large (4097x2). */
    static uint16_t px[TERRAIN_MAX_SAMPLES + 1][2];
    uint8_t *png = NULL;
    size_t size = 0;
    CHECK(png16_encode(1, 5, &px[0][0], &png, &size));
    CHECK(!terrain_load_png_memory(&t, png, size, "thin.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "1x5") != NULL);
    png16_free(png);
    CHECK(png16_encode(TERRAIN_MAX_SAMPLES + 1, 2, &px[0][0], &png, &size));
    CHECK(!terrain_load_png_memory(&t, png, size, "wide.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "4097x2") != NULL);
    png16_free(png);
    /* Not a PNG at all, and bad scale parameters on a good image. */
    CHECK(!terrain_load_png_memory(&t, "GIF89a....", 10, "x.gif", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "not a PNG") != NULL);
    CHECK(png16_encode(2, 2, &px[0][0], &png, &size));
    CHECK(terrain_load_png_memory(&t, png, size, "ok.png", 20.0f, 0.0f, 1.0f));
    terrain_free(&t);
    CHECK(!terrain_load_png_memory(&t, png, size, "ok.png", -1.0f, 0.0f, 1.0f));
    CHECK(!terrain_load_png_memory(&t, png, size, "ok.png", 20.0f, 5.0f, 1.0f));
    CHECK(!terrain_load_png_memory(&t, png, size, "ok.png", 20.0f, NAN, 1.0f));
    png16_free(png);
    /* Forged lengths: an IDAT claiming 1 GiB (stb_image would grow its
     * buffer to 2 GiB before noticing), and an IHDR smaller than the data. */
    CHECK(png16_encode(2, 2, &px[0][0], &png, &size));
    /* Layout: 8 signature + 25 IHDR chunk, then the IDAT length at byte 33. */
    png[33] = 0x40;
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "forged.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "chunk 'IDAT' at byte 33 claims 1073") != NULL);
    png16_free(png);
    CHECK(png16_encode(4, 4, &px[0][0], &png, &size));
    png[19] = 2; /* width 4 -> 2 */
    png[23] = 2; /* height 4 -> 2 */
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "bomb.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "the 10 bytes a 2x2 image needs") != NULL);
    png[13] = 0x20; /* chunk type 'IHDR' -> 'IH DR': not a letter */
    CHECK(!terrain_load_png_memory(&t, png, size, "type.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "bad chunk type at byte 12") != NULL);
    png16_free(png);
    CHECK(png16_encode(2, 2, &px[0][0], &png, &size));
    png[28] = 1; /* interlace method: Adam7 */
    reseal(png, size);
    CHECK(!terrain_load_png_memory(&t, png, size, "adam7.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "interlaced") != NULL);
    png16_free(png);
    /* Missing file. */
    CHECK(!terrain_load_png(&t, "tests/world/no_such_heightmap.png", 20.0f, 0.0f, 1.0f));
    CHECK(strstr(terrain_last_error(), "no_such_heightmap.png") != NULL);
    CHECK(t.heights == NULL);
    log_set_level(LOG_INFO);
}

int main(void)
{
    test_sampling();
    test_normals();
    test_create_flat_limits();
    test_png_roundtrip();
    test_bad_pngs();
    test_png_integrity();
    return check_summary();
}
