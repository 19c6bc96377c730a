#include "asset/clip.h"

#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* File layout constants; see docs/FORMATS_CLIP.md. */
static const uint8_t CLIP_MAGIC[4] = {'S', 'V', 'A', 'C'};
enum {
    CLIP_HEADER_BYTES = 96,
    CLIP_CHECKSUM_FROM = 16, /* the checksum covers bytes [16, file_size) */
    CLIP_NAME_AT = 16,
    CLIP_COUNTS_AT = 48,
    CLIP_RESERVED_AT = 76,
    CLIP_RESERVED_WORDS = 5,
    CLIP_VERTEX_KEY_BYTES = 7, /* int8 offset xyz + snorm8 normal xyz + unorm8 AO */
    CLIP_AO_MAX = 255,
};

/* ---------------------------------------------------------------- sizes */

static uint64_t pad4(uint64_t n) { return (n + 3u) & ~(uint64_t)3u; }

/* Byte offsets of the arrays, and the file size, for the given counts. */
typedef struct clip_layout_t {
    uint64_t vertex_at, time_at, keys_at, end, file_size;
} clip_layout_t;

static clip_layout_t layout_of(uint32_t vertex_count, uint32_t key_count)
{
    clip_layout_t l;
    l.vertex_at = CLIP_HEADER_BYTES;
    l.time_at = l.vertex_at + 4u * (uint64_t)vertex_count;
    l.keys_at = l.time_at + 4u * (uint64_t)key_count;
    l.end = l.keys_at + (uint64_t)CLIP_VERTEX_KEY_BYTES * vertex_count * key_count;
    l.file_size = pad4(l.end);
    return l;
}

/* ---------------------------------------------------------------- checks */

static bool name_ok(const char *name)
{
    size_t n = 0;
    while (n < CHR_NAME_MAX && name[n])
        n++;
    return n > 0 && n < CHR_NAME_MAX;
}

static bool header_ok(const clip_t *c, const char *src)
{
    if (!name_ok(c->mesh)) {
        log_error("%s: mesh name empty or not NUL-terminated", src);
        return false;
    }
    if (c->mesh_vertex_count < 1 || c->mesh_vertex_count > CHR_MAX_VERTICES) {
        log_error("%s: mesh vertex count %u outside 1..%d", src, c->mesh_vertex_count, CHR_MAX_VERTICES);
        return false;
    }
    if (c->vertex_count < 1 || c->vertex_count > c->mesh_vertex_count) {
        log_error("%s: %u animated vertices for a mesh of %u", src, c->vertex_count, c->mesh_vertex_count);
        return false;
    }
    if (c->key_count < 1 || c->key_count > CLIP_MAX_KEYS) {
        log_error("%s: key count %u outside 1..%d", src, c->key_count, CLIP_MAX_KEYS);
        return false;
    }
    if (c->flags & ~(uint32_t)CLIP_LOOP) {
        log_error("%s: unknown flags 0x%x", src, c->flags);
        return false;
    }
    if (!(isfinite(c->fps) && c->fps > 0.0f && c->fps <= CLIP_MAX_FPS)) {
        log_error("%s: fps %g outside (0, %g]", src, (double)c->fps, (double)CLIP_MAX_FPS);
        return false;
    }
    if (!(isfinite(c->pos_step_cm) && c->pos_step_cm > 0.0f && c->pos_step_cm <= CLIP_MAX_STEP_CM)) {
        log_error("%s: position step %g cm outside (0, %g]", src, (double)c->pos_step_cm, (double)CLIP_MAX_STEP_CM);
        return false;
    }
    if (!isfinite(c->duration_s)) {
        log_error("%s: duration is NaN or infinite", src);
        return false;
    }
    if (layout_of(c->vertex_count, c->key_count).file_size > CLIP_FILE_MAX_BYTES) {
        log_error("%s: %u vertices x %u keys exceed %zu bytes", src, c->vertex_count, c->key_count,
                  (size_t)CLIP_FILE_MAX_BYTES);
        return false;
    }
    return true;
}

static bool vertices_ok(const clip_t *c, const char *src)
{
    for (uint32_t i = 0; i < c->vertex_count; i++) {
        if (c->vertex[i] >= c->mesh_vertex_count) {
            log_error("%s: animated vertex %u (byte %u): index %u >= mesh vertex count %u", src, i,
                      CLIP_HEADER_BYTES + 4u * i, c->vertex[i], c->mesh_vertex_count);
            return false;
        }
        if (i > 0 && c->vertex[i] <= c->vertex[i - 1]) {
            log_error("%s: animated vertex %u (byte %u): indices not strictly increasing", src, i,
                      CLIP_HEADER_BYTES + 4u * i);
            return false;
        }
    }
    return true;
}

static bool times_ok(const clip_t *c, const char *src)
{
    uint64_t at = layout_of(c->vertex_count, c->key_count).time_at;
    for (uint32_t k = 0; k < c->key_count; k++) {
        float t = c->key_time[k];
        unsigned long long byte = (unsigned long long)(at + 4u * k);
        const char *why = !isfinite(t)                           ? "is not finite"
                          : (k == 0 && t != 0.0f)                ? "is not 0 (key 0)"
                          : (k > 0 && !(t > c->key_time[k - 1])) ? "is not after the previous key"
                                                                 : NULL;
        if (why) {
            log_error("%s: key %u (byte %llu): time %g s %s", src, k, byte, (double)t, why);
            return false;
        }
    }
    float last = c->key_time[c->key_count - 1];
    if ((c->flags & CLIP_LOOP) ? !(c->duration_s > last) : c->duration_s != last) {
        log_error("%s: duration %g s must be %s the last key time (%g s)", src, (double)c->duration_s,
                  (c->flags & CLIP_LOOP) ? "after (loop)" : "equal to (clamped)", (double)last);
        return false;
    }
    return true;
}

static bool quantised_ok(const clip_t *c, const char *src)
{
    clip_layout_t l = layout_of(c->vertex_count, c->key_count);
    size_t per_key = (size_t)c->vertex_count * 3;
    for (uint32_t k = 0; k < c->key_count; k++)
        for (uint32_t i = 0; i < c->vertex_count; i++) {
            const int8_t *o = &c->q_offset[k * per_key + (size_t)i * 3];
            const int8_t *n = &c->q_normal[k * per_key + (size_t)i * 3];
            unsigned long long byte = (unsigned long long)(l.keys_at +
                                                           (uint64_t)k * c->vertex_count * CLIP_VERTEX_KEY_BYTES +
                                                           (uint64_t)i * 3);
            if (o[0] < -CLIP_Q_MAX || o[1] < -CLIP_Q_MAX || o[2] < -CLIP_Q_MAX || n[0] < -CLIP_Q_MAX ||
                n[1] < -CLIP_Q_MAX || n[2] < -CLIP_Q_MAX) {
                log_error("%s: key %u vertex %u (near byte %llu): value -128 outside -127..127", src, k, i, byte);
                return false;
            }
            if (n[0] == 0 && n[1] == 0 && n[2] == 0) {
                log_error("%s: key %u vertex %u (byte %llu): zero normal", src, k, i,
                          byte + (unsigned long long)per_key);
                return false;
            }
        }
    return true;
}

bool clip_validate(const clip_t *c, const char *source)
{
    if (!header_ok(c, source))
        return false;
    if (!c->vertex || !c->key_time || !c->q_offset || !c->q_normal || !c->q_ao) {
        log_error("%s: clip arrays missing", source);
        return false;
    }
    return vertices_ok(c, source) && times_ok(c, source) && quantised_ok(c, source);
}

/* ---------------------------------------------------------------- memory */

void clip_free(clip_t *c)
{
    free(c->vertex);
    free(c->key_time);
    free(c->q_offset);
    free(c->q_normal);
    free(c->q_ao);
    free(c->offset);
    free(c->normal);
    free(c->ao);
    memset(c, 0, sizeof *c);
}

bool clip_alloc(clip_t *c, uint32_t vertex_count, uint32_t key_count)
{
    if (vertex_count < 1 || vertex_count > CHR_MAX_VERTICES || key_count < 1 || key_count > CLIP_MAX_KEYS) {
        log_error("clip: %u vertices x %u keys out of range", vertex_count, key_count);
        return false;
    }
    size_t n = (size_t)vertex_count * key_count * 3;
    c->vertex_count = vertex_count;
    c->key_count = key_count;
    c->vertex = calloc(vertex_count, sizeof *c->vertex);
    c->key_time = calloc(key_count, sizeof *c->key_time);
    c->q_offset = calloc(n, 1);
    c->q_normal = calloc(n, 1);
    c->q_ao = calloc(n / 3, 1);
    c->offset = calloc(n, sizeof(float));
    c->normal = calloc(n, sizeof(float));
    c->ao = calloc(n / 3, sizeof(float));
    if (!c->vertex || !c->key_time || !c->q_offset || !c->q_normal || !c->q_ao || !c->offset || !c->normal || !c->ao) {
        log_error("clip: out of memory for %u vertices x %u keys", vertex_count, key_count);
        clip_free(c);
        return false;
    }
    return true;
}

static int8_t quantise(float x)
{
    float q = roundf(x);
    if (!(q >= -CLIP_Q_MAX)) /* NaN too */
        q = -CLIP_Q_MAX;
    if (q > CLIP_Q_MAX)
        q = CLIP_Q_MAX;
    return (int8_t)q;
}

static void decode_vertex(const clip_t *c, size_t at)
{
    c->ao[at / 3] = (float)c->q_ao[at / 3] / (float)CLIP_AO_MAX;
    float l = 0.0f;
    for (int k = 0; k < 3; k++) {
        c->offset[at + k] = (float)c->q_offset[at + k] * c->pos_step_cm;
        c->normal[at + k] = (float)c->q_normal[at + k] / (float)CLIP_Q_MAX;
        l += c->normal[at + k] * c->normal[at + k];
    }
    /* A zero normal is refused by the checks; guard the division anyway. */
    float inv = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
    for (int k = 0; k < 3; k++)
        c->normal[at + k] *= inv;
}

void clip_decode(clip_t *c)
{
    size_t n = (size_t)c->vertex_count * c->key_count;
    for (size_t i = 0; i < n; i++)
        decode_vertex(c, i * 3);
}

void clip_set_key(clip_t *c, uint32_t key, const float *offset, const float *normal, const float *ao)
{
    size_t base = (size_t)key * c->vertex_count * 3;
    for (uint32_t i = 0; i < c->vertex_count; i++) {
        size_t at = base + (size_t)i * 3;
        float a = roundf(ao[i] * (float)CLIP_AO_MAX);
        c->q_ao[at / 3] = (uint8_t)(a >= (float)CLIP_AO_MAX ? CLIP_AO_MAX : (a > 0.0f ? a : 0.0f));
        for (int k = 0; k < 3; k++) {
            c->q_offset[at + k] = quantise(offset[(size_t)i * 3 + k] / c->pos_step_cm);
            c->q_normal[at + k] = quantise(normal[(size_t)i * 3 + k] * (float)CLIP_Q_MAX);
        }
        /* A normal too short for snorm8 (never a unit one) still points somewhere. */
        if (c->q_normal[at] == 0 && c->q_normal[at + 1] == 0 && c->q_normal[at + 2] == 0)
            c->q_normal[at + 1] = 1;
        decode_vertex(c, at);
    }
}

/* ---------------------------------------------------------------- parse */

bool clip_parse(clip_t *c, const uint8_t *data, size_t size, const char *source)
{
    memset(c, 0, sizeof *c);
    if (size < CLIP_HEADER_BYTES) {
        log_error("%s: %zu bytes, shorter than the %d-byte header", source, size, CLIP_HEADER_BYTES);
        return false;
    }
    reader_t r = reader_make(data, size);
    uint8_t magic[4];
    reader_bytes(&r, magic, 4);
    if (memcmp(magic, CLIP_MAGIC, 4) != 0) {
        log_error("%s: not a vertex-animated clip (bad magic)", source);
        return false;
    }
    uint32_t version = reader_u32(&r), file_size = reader_u32(&r), checksum = reader_u32(&r);
    if (version != CLIP_VERSION) {
        log_error("%s: version %u, expected %d", source, version, CLIP_VERSION);
        return false;
    }
    if (file_size != size) {
        log_error("%s: header says %u bytes, file has %zu", source, file_size, size);
        return false;
    }
    if (file_checksum32(data + CLIP_CHECKSUM_FROM, size - CLIP_CHECKSUM_FROM) != checksum) {
        log_error("%s: checksum mismatch (corrupt file)", source);
        return false;
    }
    clip_t h;
    memset(&h, 0, sizeof h);
    reader_bytes(&r, h.mesh, CHR_NAME_MAX);
    h.mesh_vertex_count = reader_u32(&r);
    h.vertex_count = reader_u32(&r);
    h.key_count = reader_u32(&r);
    h.flags = reader_u32(&r);
    h.fps = reader_f32(&r);
    h.duration_s = reader_f32(&r);
    h.pos_step_cm = reader_f32(&r);
    for (int i = 0; i < CLIP_RESERVED_WORDS; i++)
        if (reader_u32(&r) != 0) {
            log_error("%s: reserved header word %d (byte %d) is not 0", source, i, CLIP_RESERVED_AT + 4 * i);
            return false;
        }
    if (!reader_ok(&r) || !header_ok(&h, source))
        return false;
    clip_layout_t l = layout_of(h.vertex_count, h.key_count);
    if (l.file_size != size) {
        log_error("%s: %u vertices x %u keys need %llu bytes, file has %zu", source, h.vertex_count, h.key_count,
                  (unsigned long long)l.file_size, size);
        return false;
    }
    if (!clip_alloc(c, h.vertex_count, h.key_count))
        return false;
    memcpy(c->mesh, h.mesh, sizeof c->mesh);
    c->mesh_vertex_count = h.mesh_vertex_count;
    c->flags = h.flags;
    c->fps = h.fps;
    c->duration_s = h.duration_s;
    c->pos_step_cm = h.pos_step_cm;
    for (uint32_t i = 0; i < c->vertex_count; i++)
        c->vertex[i] = reader_u32(&r);
    for (uint32_t k = 0; k < c->key_count; k++)
        c->key_time[k] = reader_f32(&r);
    size_t per_key = (size_t)c->vertex_count * 3;
    for (uint32_t k = 0; k < c->key_count; k++) {
        reader_bytes(&r, c->q_offset + k * per_key, per_key);
        reader_bytes(&r, c->q_normal + k * per_key, per_key);
        reader_bytes(&r, c->q_ao + k * c->vertex_count, c->vertex_count);
    }
    while (reader_ok(&r) && reader_remaining(&r) > 0)
        if (reader_u8(&r) != 0) {
            log_error("%s: padding byte %zu is not 0", source, r.pos - 1);
            clip_free(c);
            return false;
        }
    if (!reader_ok(&r)) {
        log_error("%s: truncated", source);
        clip_free(c);
        return false;
    }
    if (!vertices_ok(c, source) || !times_ok(c, source) || !quantised_ok(c, source)) {
        clip_free(c);
        return false;
    }
    clip_decode(c);
    return true;
}

bool clip_load(clip_t *c, const char *path)
{
    memset(c, 0, sizeof *c);
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, CLIP_FILE_MAX_BYTES, &data, &size))
        return false;
    bool ok = clip_parse(c, data, size, path);
    file_free(data);
    return ok;
}

/* ---------------------------------------------------------------- write */

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(p, u);
}

bool clip_serialize(const clip_t *c, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (!clip_validate(c, "clip_serialize"))
        return false;
    clip_layout_t l = layout_of(c->vertex_count, c->key_count);
    uint8_t *b = calloc((size_t)l.file_size, 1);
    if (!b) {
        log_error("clip_serialize: out of memory (%llu bytes)", (unsigned long long)l.file_size);
        return false;
    }
    memcpy(b, CLIP_MAGIC, 4);
    put_u32(b + 4, CLIP_VERSION);
    put_u32(b + 8, (uint32_t)l.file_size);
    memcpy(b + CLIP_NAME_AT, c->mesh, CHR_NAME_MAX);
    /* NUL padding after the name, whatever the caller's buffer held. */
    size_t len = strlen(c->mesh);
    memset(b + CLIP_NAME_AT + len, 0, CHR_NAME_MAX - len);
    uint8_t *h = b + CLIP_COUNTS_AT;
    put_u32(h + 0, c->mesh_vertex_count);
    put_u32(h + 4, c->vertex_count);
    put_u32(h + 8, c->key_count);
    put_u32(h + 12, c->flags);
    put_f32(h + 16, c->fps);
    put_f32(h + 20, c->duration_s);
    put_f32(h + 24, c->pos_step_cm);
    for (uint32_t i = 0; i < c->vertex_count; i++)
        put_u32(b + l.vertex_at + 4u * i, c->vertex[i]);
    for (uint32_t k = 0; k < c->key_count; k++)
        put_f32(b + l.time_at + 4u * k, c->key_time[k]);
    size_t per_key = (size_t)c->vertex_count * 3;
    uint8_t *p = b + l.keys_at;
    for (uint32_t k = 0; k < c->key_count; k++) {
        memcpy(p, c->q_offset + k * per_key, per_key);
        memcpy(p + per_key, c->q_normal + k * per_key, per_key);
        memcpy(p + 2 * per_key, c->q_ao + k * c->vertex_count, c->vertex_count);
        p += 2 * per_key + c->vertex_count;
    }
    put_u32(b + 12, file_checksum32(b + CLIP_CHECKSUM_FROM, (size_t)l.file_size - CLIP_CHECKSUM_FROM));
    *data = b;
    *size = (size_t)l.file_size;
    return true;
}

bool clip_save(const clip_t *c, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!clip_serialize(c, &data, &size))
        return false;
    bool ok = file_write_all(path, data, size);
    free(data);
    return ok;
}

/* ---------------------------------------------------------------- use */

tween_timing_t clip_timing(const clip_t *c)
{
    tween_timing_t t = {.key_count = (int)c->key_count,
                        .fps = c->fps,
                        .key_times = c->key_time,
                        .duration_s = c->duration_s,
                        .loop = (c->flags & CLIP_LOOP) != 0};
    return t;
}

void clip_keys_absolute(const clip_t *c, const float *bind_pos, float *out_pos)
{
    size_t per_key = (size_t)c->vertex_count * 3;
    for (uint32_t k = 0; k < c->key_count; k++)
        for (uint32_t i = 0; i < c->vertex_count; i++) {
            size_t at = k * per_key + (size_t)i * 3;
            for (int j = 0; j < 3; j++)
                out_pos[at + j] = bind_pos[(size_t)c->vertex[i] * 3 + j] + c->offset[at + j];
        }
}
