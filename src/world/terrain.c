#include "world/terrain.h"

#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stb_image.h"
#include <zlib.h>

/* A 4096x4096 16-bit PNG stored without compression is 32 MiB plus framing;
 * anything bigger than this cannot be a heightmap we accept. */
#define TERRAIN_FILE_MAX_BYTES (40u << 20)
/* Sample spacing and height limits (cm): beyond these a value is a typo. */
#define TERRAIN_CELL_MIN_CM 0.5f
#define TERRAIN_CELL_MAX_CM 1000.0f
#define TERRAIN_HEIGHT_LIMIT_CM 1.0e5f
#define TERRAIN_ERROR_MAX 1024

static const uint8_t TERRAIN_PNG_SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static char g_terrain_error[TERRAIN_ERROR_MAX];
/* What asked for the heightmap ("x.lvl:3: heightmap"), prefixed to its line. */
static const char *g_terrain_context;

/* Records the message for terrain_last_error() and logs it as one line. */
__attribute__((format(printf, 1, 2))) static void terrain_fail(const char *fmt, ...)
{
    size_t n = 0;
    if (g_terrain_context) {
        int k = snprintf(g_terrain_error, sizeof g_terrain_error, "%s: ", g_terrain_context);
        n = k < 0 ? 0 : ((size_t)k < sizeof g_terrain_error ? (size_t)k : sizeof g_terrain_error - 1);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_terrain_error + n, sizeof g_terrain_error - n, fmt, ap);
    va_end(ap);
    log_error("%s", g_terrain_error);
}

const char *terrain_last_error(void) { return g_terrain_error; }

static bool terrain_check_params(const char *name, float cell_cm, float min_cm, float max_cm)
{
    if (!isfinite(cell_cm) || cell_cm < TERRAIN_CELL_MIN_CM || cell_cm > TERRAIN_CELL_MAX_CM) {
        terrain_fail("%s: cell size %g cm outside [%g, %g]", name, (double)cell_cm, (double)TERRAIN_CELL_MIN_CM,
                     (double)TERRAIN_CELL_MAX_CM);
        return false;
    }
    if (!isfinite(min_cm) || !isfinite(max_cm) || fabsf(min_cm) > TERRAIN_HEIGHT_LIMIT_CM ||
        fabsf(max_cm) > TERRAIN_HEIGHT_LIMIT_CM || min_cm > max_cm) {
        terrain_fail("%s: height range [%g, %g] cm invalid (need min <= max within +-%g)", name, (double)min_cm,
                     (double)max_cm, (double)TERRAIN_HEIGHT_LIMIT_CM);
        return false;
    }
    return true;
}

static bool terrain_check_size(const char *name, int width, int depth)
{
    if (width < TERRAIN_MIN_SAMPLES || depth < TERRAIN_MIN_SAMPLES || width > TERRAIN_MAX_SAMPLES ||
        depth > TERRAIN_MAX_SAMPLES) {
        terrain_fail("%s: %dx%d samples, need %d..%d per axis", name, width, depth, TERRAIN_MIN_SAMPLES,
                     TERRAIN_MAX_SAMPLES);
        return false;
    }
    return true;
}

/* Allocates the height array and centres the grid on the world origin. */
static bool terrain_alloc(terrain_t *t, const char *name, int width, int depth, float cell_cm)
{
    memset(t, 0, sizeof *t);
    t->heights = malloc((size_t)width * (size_t)depth * sizeof *t->heights);
    if (!t->heights) {
        terrain_fail("%s: out of memory for %dx%d samples", name, width, depth);
        return false;
    }
    t->width = width;
    t->depth = depth;
    t->cell_cm = cell_cm;
    t->origin_x = -0.5f * (float)(width - 1) * cell_cm;
    t->origin_z = -0.5f * (float)(depth - 1) * cell_cm;
    return true;
}

static uint32_t terrain_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static const char *terrain_png_colour_name(int colour_type)
{
    switch (colour_type) {
    case 0: return "greyscale";
    case 2: return "RGB";
    case 3: return "palette";
    case 4: return "greyscale+alpha";
    case 6: return "RGBA";
    default: return "unknown colour type";
    }
}

/* What the chunk walk learns about a PNG. */
typedef struct terrain_png_info_t {
    int width, height;
    size_t idat_bytes; /* compressed image data, all IDAT chunks together */
} terrain_png_info_t;

/* Walks the chunk structure before stb_image sees the file: every chunk
 * length must fit in the bytes that remain (stb_image grows its buffer to a
 * claimed length before reading it, so a forged length costs gigabytes),
 * every chunk's CRC-32 must match its type and data (stb_image checks none),
 * the first chunk is a 16-bit greyscale, non-interlaced IHDR, IDAT data
 * exists, and IEND ends the file. Errors name the byte offset. */
static bool terrain_png_scan(const uint8_t *p, size_t size, const char *name, terrain_png_info_t *info)
{
    enum { CHUNK_FRAMING = 12, IHDR_SIZE = 13 };
    memset(info, 0, sizeof *info);
    size_t pos = sizeof TERRAIN_PNG_SIGNATURE;
    bool first = true;
    for (;;) {
        if (size - pos < CHUNK_FRAMING) {
            terrain_fail("%s: truncated PNG: chunk header at byte %zu cut short (no IEND chunk)", name, pos);
            return false;
        }
        uint32_t len = terrain_be32(p + pos);
        const uint8_t *type = p + pos + 4;
        for (int k = 0; k < 4; k++) {
            bool letter = (type[k] >= 'A' && type[k] <= 'Z') || (type[k] >= 'a' && type[k] <= 'z');
            if (!letter) {
                terrain_fail("%s: corrupt PNG: bad chunk type at byte %zu", name, pos + 4);
                return false;
            }
        }
        if (len > size - pos - CHUNK_FRAMING) {
            terrain_fail("%s: truncated PNG: chunk '%.4s' at byte %zu claims %u bytes, %zu remain", name,
                         (const char *)type, pos, len, size - pos - CHUNK_FRAMING);
            return false;
        }
        const uint8_t *body = p + pos + 8;
        uint32_t stored = terrain_be32(body + len);
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), type, 4 + len);
        if (crc != stored) {
            terrain_fail("%s: corrupt PNG: chunk '%.4s' at byte %zu: CRC 0x%08x, its bytes hash to 0x%08x", name,
                         (const char *)type, pos, stored, crc);
            return false;
        }
        if (first) {
            if (memcmp(type, "IHDR", 4) != 0 || len != IHDR_SIZE) {
                terrain_fail("%s: corrupt PNG: first chunk at byte %zu is not a 13-byte IHDR", name, pos);
                return false;
            }
            uint32_t w = terrain_be32(body), h = terrain_be32(body + 4);
            int depth = body[8], colour = body[9], interlace = body[12];
            if (depth != 16 || colour != 0) {
                terrain_fail("%s: heightmap must be a 16-bit greyscale PNG (found %d-bit %s)", name, depth,
                             terrain_png_colour_name(colour));
                return false;
            }
            if (interlace != 0) {
                terrain_fail("%s: interlaced PNG heightmaps are not supported (byte %zu)", name, pos + 8 + 12);
                return false;
            }
            if (w > TERRAIN_MAX_SAMPLES || h > TERRAIN_MAX_SAMPLES) {
                terrain_fail("%s: %ux%u samples, need %d..%d per axis", name, w, h, TERRAIN_MIN_SAMPLES,
                             TERRAIN_MAX_SAMPLES);
                return false;
            }
            info->width = (int)w;
            info->height = (int)h;
            first = false;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            info->idat_bytes += len;
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
        pos += CHUNK_FRAMING + (size_t)len;
    }
    if (info->idat_bytes == 0) {
        terrain_fail("%s: corrupt PNG: no IDAT image data", name);
        return false;
    }
    return true;
}

/* Inflates the IDAT data with zlib into a buffer one byte larger than a WxH
 * 16-bit image needs: a stream that is corrupt (zlib checks the deflate
 * data and its Adler-32, which stb_image does not), that inflates to more
 * (a decompression bomb) or less, or that has bytes after its end, fails
 * here, before stb_image decodes it. */
static bool terrain_png_check_inflate(const uint8_t *p, size_t size, const char *name, const terrain_png_info_t *info)
{
    size_t need = (size_t)info->height * (1 + 2 * (size_t)info->width);
    uint8_t *z = malloc(info->idat_bytes);
    uint8_t *out = malloc(need + 1);
    if (!z || !out) {
        free(z);
        free(out);
        terrain_fail("%s: out of memory checking the image data", name);
        return false;
    }
    size_t pos = sizeof TERRAIN_PNG_SIGNATURE, zlen = 0;
    /* terrain_png_scan has checked every length, up to IEND. */
    while (pos + 8 <= size) {
        uint32_t len = terrain_be32(p + pos);
        const uint8_t *type = p + pos + 4;
        if (memcmp(type, "IEND", 4) == 0)
            break;
        if (memcmp(type, "IDAT", 4) == 0) {
            memcpy(z + zlen, p + pos + 8, len);
            zlen += len;
        }
        pos += 12 + (size_t)len;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    int rc = inflateInit(&zs);
    if (rc == Z_OK) {
        zs.next_in = z;
        zs.avail_in = (uInt)zlen;
        zs.next_out = out;
        zs.avail_out = (uInt)(need + 1);
        rc = inflate(&zs, Z_FINISH);
    }
    size_t got = zs.total_out, left = zs.avail_in;
    const char *zmsg = zs.msg;
    char why[96];
    if (rc == Z_STREAM_END && got == need && left == 0)
        why[0] = 0;
    else if (rc == Z_STREAM_END && left > 0)
        snprintf(why, sizeof why, "%zu bytes after the end of the zlib stream", left);
    else if (rc == Z_STREAM_END || (rc == Z_BUF_ERROR && got > need))
        snprintf(why, sizeof why, "stream %s", got > need ? "too long" : "too short");
    else if (rc == Z_BUF_ERROR)
        snprintf(why, sizeof why, "stream too short (cut off)");
    else
        snprintf(why, sizeof why, "zlib: %s", zmsg ? zmsg : "corrupt stream");
    inflateEnd(&zs);
    free(z);
    free(out);
    if (why[0]) {
        terrain_fail("%s: PNG image data does not inflate to the %zu bytes a %dx%d image needs (%s)", name, need,
                     info->width, info->height, why);
        return false;
    }
    return true;
}

bool terrain_load_png_memory(terrain_t *t, const void *data, size_t size, const char *name, float cell_cm, float min_cm,
                             float max_cm)
{
    memset(t, 0, sizeof *t);
    g_terrain_error[0] = 0;
    if (!terrain_check_params(name, cell_cm, min_cm, max_cm))
        return false;
    if (size < sizeof TERRAIN_PNG_SIGNATURE || memcmp(data, TERRAIN_PNG_SIGNATURE, sizeof TERRAIN_PNG_SIGNATURE) != 0) {
        terrain_fail("%s: not a PNG file (bad signature at byte 0)", name);
        return false;
    }
    if (size > TERRAIN_FILE_MAX_BYTES) {
        terrain_fail("%s: %zu bytes, more than the %u allowed", name, size, TERRAIN_FILE_MAX_BYTES);
        return false;
    }
    terrain_png_info_t info;
    if (!terrain_png_scan(data, size, name, &info) || !terrain_check_size(name, info.width, info.height) ||
        !terrain_png_check_inflate(data, size, name, &info))
        return false;
    int w = 0, h = 0, comp = 0;
    stbi_us *pixels = stbi_load_16_from_memory(data, (int)size, &w, &h, &comp, 1);
    if (!pixels) {
        terrain_fail("%s: cannot decode PNG: %s", name, stbi_failure_reason());
        return false;
    }
    if (w != info.width || h != info.height || comp != 1) {
        terrain_fail("%s: decoded %dx%d with %d channels, header says %dx%d greyscale", name, w, h, comp, info.width,
                     info.height);
        stbi_image_free(pixels);
        return false;
    }
    if (!terrain_alloc(t, name, w, h, cell_cm)) {
        stbi_image_free(pixels);
        return false;
    }
    const float scale = (max_cm - min_cm) / 65535.0f;
    size_t n = (size_t)w * (size_t)h;
    for (size_t k = 0; k < n; k++)
        t->heights[k] = min_cm + (float)pixels[k] * scale;
    stbi_image_free(pixels);
    return true;
}

bool terrain_load_png_for(terrain_t *t, const char *path, const char *context, float cell_cm, float min_cm,
                          float max_cm)
{
    memset(t, 0, sizeof *t);
    g_terrain_error[0] = 0;
    g_terrain_context = context;
    uint8_t *data = NULL;
    size_t size = 0;
    char why[PATHS_LINE_MAX];
    bool ok = file_read_all_why(path, TERRAIN_FILE_MAX_BYTES, &data, &size, why, sizeof why);
    if (!ok)
        terrain_fail("%s", why);
    else
        ok = terrain_load_png_memory(t, data, size, path, cell_cm, min_cm, max_cm);
    file_free(data);
    g_terrain_context = NULL;
    return ok;
}

bool terrain_load_png(terrain_t *t, const char *path, float cell_cm, float min_cm, float max_cm)
{
    return terrain_load_png_for(t, path, NULL, cell_cm, min_cm, max_cm);
}

bool terrain_create_flat(terrain_t *t, int width, int depth, float cell_cm, float height_cm)
{
    memset(t, 0, sizeof *t);
    g_terrain_error[0] = 0;
    const char *name = "flat terrain";
    if (!terrain_check_params(name, cell_cm, height_cm, height_cm) || !terrain_check_size(name, width, depth) ||
        !terrain_alloc(t, name, width, depth, cell_cm))
        return false;
    size_t n = (size_t)width * (size_t)depth;
    for (size_t k = 0; k < n; k++)
        t->heights[k] = height_cm;
    return true;
}

void terrain_free(terrain_t *t)
{
    free(t->heights);
    memset(t, 0, sizeof *t);
}

/* Maps a world coordinate to a cell index in [0, count - 2] and the fraction
 * inside that cell; NaN maps to the first sample. */
static int terrain_cell(float world, float origin, float cell_cm, int count, float *frac)
{
    float g = (world - origin) / cell_cm;
    float last = (float)(count - 1);
    if (!(g > 0.0f))
        g = 0.0f;
    if (g > last)
        g = last;
    int i = (int)g;
    if (i > count - 2)
        i = count - 2;
    *frac = g - (float)i;
    return i;
}

float terrain_interpolate(const terrain_t *t, const float *field, float x, float z)
{
    float fx, fz;
    int i = terrain_cell(x, t->origin_x, t->cell_cm, t->width, &fx);
    int j = terrain_cell(z, t->origin_z, t->cell_cm, t->depth, &fz);
    const float *row0 = field + (size_t)j * (size_t)t->width + (size_t)i;
    const float *row1 = row0 + t->width;
    float h0 = row0[0] + (row0[1] - row0[0]) * fx;
    float h1 = row1[0] + (row1[1] - row1[0]) * fx;
    return h0 + (h1 - h0) * fz;
}

float terrain_height(const terrain_t *t, float x, float z) { return terrain_interpolate(t, t->heights, x, z); }

void terrain_normal(const terrain_t *t, float x, float z, float out_normal[3])
{
    /* Half a cell either side: the difference spans the neighbouring cells,
     * so normals vary smoothly across cell edges, and a plane is exact. */
    float e = 0.5f * t->cell_cm;
    float dhdx = (terrain_height(t, x + e, z) - terrain_height(t, x - e, z)) / (2.0f * e);
    float dhdz = (terrain_height(t, x, z + e) - terrain_height(t, x, z - e)) / (2.0f * e);
    float nx = -dhdx, ny = 1.0f, nz = -dhdz;
    float inv = 1.0f / sqrtf(nx * nx + ny * ny + nz * nz);
    out_normal[0] = nx * inv;
    out_normal[1] = ny * inv;
    out_normal[2] = nz * inv;
}

void terrain_bounds(const terrain_t *t, float *min_x, float *min_z, float *max_x, float *max_z)
{
    *min_x = t->origin_x;
    *min_z = t->origin_z;
    *max_x = t->origin_x + (float)(t->width - 1) * t->cell_cm;
    *max_z = t->origin_z + (float)(t->depth - 1) * t->cell_cm;
}
