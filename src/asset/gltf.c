/* realpath is POSIX (XSI), not C11. */
#define _XOPEN_SOURCE 700

#include "asset/gltf.h"

#include "asset/gltf_internal.h"
#include "asset/import.h"
#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The .glb container (glTF 2.0 spec, "GLB File Format Specification"). */
#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
enum { GLB_HEADER = 12, GLB_CHUNK_HEADER = 8 };

/* ------------------------------------------------------------------ the container */

/* The JSON text and BIN chunk of a .glb. */
static bool glb_split(gcheck_t *c, const uint8_t *data, size_t size, const uint8_t **json, size_t *json_size)
{
    if (size < GLB_HEADER || gltf_le32(data) != GLB_MAGIC)
        return gltf_bad(c, "not a binary glTF file (no 'glTF' header)");
    uint32_t version = gltf_le32(data + 4), length = gltf_le32(data + 8);
    if (version != 2)
        return gltf_bad(c, "binary glTF version %u; strider reads glTF 2.0", version);
    if (length != size)
        return gltf_bad(c, "binary glTF header length %u, the file is %zu bytes", length, size);
    size_t pos = GLB_HEADER;
    for (uint32_t k = 0; pos < size; k++) {
        if (size - pos < GLB_CHUNK_HEADER)
            return gltf_bad(c, "%zu stray bytes after the last chunk (byte %zu)", size - pos, pos);
        uint32_t len = gltf_le32(data + pos), type = gltf_le32(data + pos + 4);
        if (len > size - pos - GLB_CHUNK_HEADER)
            return gltf_bad(c, "chunk %u at byte %zu claims %u bytes, %zu remain", k, pos, len,
                            size - pos - GLB_CHUNK_HEADER);
        const uint8_t *body = data + pos + GLB_CHUNK_HEADER;
        if (k == 0) {
            if (type != GLB_CHUNK_JSON)
                return gltf_bad(c, "the first chunk is not JSON (type 0x%08x)", type);
            *json = body;
            *json_size = len;
        } else if (k == 1 && type == GLB_CHUNK_BIN) {
            c->bin = body;
            c->bin_size = len;
        }
        /* Other chunks are skipped, as the spec says. */
        pos += GLB_CHUNK_HEADER + (size_t)len;
    }
    if (!*json)
        return gltf_bad(c, "no JSON chunk");
    return true;
}

/* ------------------------------------------------------------------ uris */

/* Whether URI starts with an RFC 3986 scheme ("file:", "http:", "C:"). */
static bool has_scheme(const char *uri, size_t *len)
{
    size_t i = 0;
    if (!((uri[0] >= 'a' && uri[0] <= 'z') || (uri[0] >= 'A' && uri[0] <= 'Z')))
        return false;
    while (uri[i] && uri[i] != ':' && uri[i] != '/' && uri[i] != '?' && uri[i] != '#')
        i++;
    *len = i + 1;
    return uri[i] == ':';
}

/* Percent-decodes URI into OUT (PATHS_MAX bytes); false on %00 or a bad escape. */
static bool percent_decode(const char *uri, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; uri[i]; i++) {
        char ch = uri[i];
        if (ch == '%') {
            int v = 0;
            for (int k = 1; k <= 2; k++) {
                char h = uri[i + k];
                int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
                if (d < 0)
                    return false;
                v = v * 16 + d;
            }
            if (v == 0)
                return false;
            ch = (char)v;
            i += 2;
        }
        if (n + 1 >= size)
            return false;
        out[n++] = ch;
    }
    out[n] = 0;
    return true;
}

/* The rules every external uri follows before anything is opened: not
 * empty, no scheme (file:, http:, a drive letter), not absolute, and no
 * ".." that climbs above the model's folder. REL gets the percent-decoded
 * relative path. */
static bool uri_relative(const gcheck_t *c, const char *what, const char *uri, char *rel, size_t rel_size)
{
    static const char only[] = "only relative paths inside the model's folder, or data: URIs, are read";
    size_t scheme = 0;
    if (!uri[0])
        return gltf_bad(c, "%s: empty uri", what);
    if (has_scheme(uri, &scheme))
        return gltf_bad(c, "%s: uri '%s' names a scheme ('%.*s'); %s", what, uri, (int)scheme, uri, only);
    if (!percent_decode(uri, rel, rel_size))
        return gltf_bad(c, "%s: uri '%s' has a bad or NUL %%-escape, or is too long", what, uri);
    if (rel[0] == '/' || rel[0] == '\\')
        return gltf_bad(c, "%s: uri '%s' is an absolute path; %s", what, uri, only);
    int depth = 0;
    for (const char *seg = rel; *seg;) {
        const char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 2 && seg[0] == '.' && seg[1] == '.')
            depth--;
        else if (len > 0 && !(len == 1 && seg[0] == '.'))
            depth++;
        if (depth < 0)
            return gltf_bad(c, "%s: uri '%s' climbs out of the model's folder; %s", what, uri, only);
        seg += len + (end ? 1 : 0);
    }
    return true;
}

/* ------------------------------------------------------------------ base64 data: URIs */

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* The form of data: URI read: "data:" MEDIATYPE ";base64," with a short
 * plain media type (letters, digits, '.', '+', '-', '/'). assimp 5.2 keeps
 * the offsets of the URI's parts in chars, so a header past 127 bytes
 * would send it reading before the string: the header is kept short. */
enum { DATA_URI_TYPE_MAX = 64 };

static bool data_uri_header_ok(const char *uri, size_t len, const char **payload)
{
    const char *comma = memchr(uri, ',', len);
    if (!comma || comma - uri < 12 || comma - uri > 5 + DATA_URI_TYPE_MAX + 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return false;
    for (const char *p = uri + 5; p < comma - 7; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '+' || *p == '-' || *p == '/'))
            return false;
    *payload = comma + 1;
    return true;
}

/* Decodes a "data:...;base64,..." URI; false (nothing logged) if malformed. */
static bool data_uri_decode(const char *uri, size_t len, uint8_t **out, size_t *out_size)
{
    const char *p;
    if (!data_uri_header_ok(uri, len, &p))
        return false;
    size_t n = len - (size_t)(p - uri);
    if (n % 4)
        return false;
    uint8_t *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int q = 0; q < 4; q++) {
            unsigned char ch = (unsigned char)p[i + q];
            if (ch == '=' && i + 4 == n && q >= 2) {
                v[q] = 0;
                pad++;
            } else if (pad || (v[q] = b64_value(ch)) < 0) {
                free(buf);
                return false;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        buf[k++] = (uint8_t)(w >> 16);
        if (pad < 2)
            buf[k++] = (uint8_t)(w >> 8);
        if (pad < 1)
            buf[k++] = (uint8_t)w;
    }
    *out = buf;
    *out_size = k;
    return true;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The uri of buffer or image WHAT (value U): *TEXT gets it decoded from
 * the JSON; a data: URI is decoded into *DATA and *SIZE as well (both
 * tracked), any other uri must be a file name of at most GLTF_MAX_URI - 1
 * bytes (*DATA stays NULL). */
static bool uri_text(gcheck_t *c, const char *what, uint32_t u, char **text, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (c->j.v[u].type != JSON_STRING)
        return gltf_bad(c, "%s: uri %.*s is not a string", what, gltf_shown_len(c, u), gltf_shown(c, u));
    /* A data: URI holds the buffer (as long as the JSON allows). */
    size_t raw = c->j.v[u].end - c->j.v[u].start;
    *text = gltf_track(c, malloc(raw));
    if (!*text || !json_string(&c->j, u, *text, raw))
        return gltf_bad(c, "out of memory");
    if (strncmp(*text, "data:", 5) == 0) {
        if (!data_uri_decode(*text, strlen(*text), data, size))
            return gltf_bad(c,
                            "%s: data: URI is not 'data:TYPE;base64,' and base64 (TYPE: up to %d of [A-Za-z0-9.+/-])",
                            what, DATA_URI_TYPE_MAX);
        if (!gltf_track(c, *data))
            return gltf_bad(c, "out of memory");
        return true;
    }
    if (strlen(*text) >= GLTF_MAX_URI)
        return gltf_bad(c, "%s: uri of %zu bytes, more than the %d allowed", what, strlen(*text), GLTF_MAX_URI - 1);
    return true;
}

/* Registers the bytes of an external uri (once per uri) as a resource. */
static const gltf_resource_t *add_resource(gcheck_t *c, const char *uri, uint8_t *data, size_t size)
{
    gltf_package_t *p = c->pkg;
    gltf_resource_t *r = realloc(p->res, (p->res_count + 1) * sizeof *r);
    char *name = malloc(strlen(uri) + 1);
    if (!r || !name) {
        if (r)
            p->res = r;
        free(name);
        free(data);
        gltf_bad(c, "out of memory");
        return NULL;
    }
    p->res = r;
    strcpy(name, uri);
    r[p->res_count] = (gltf_resource_t){.uri = name, .data = data, .size = size};
    return &p->res[p->res_count++];
}

static bool gltf_check_buffers(gcheck_t *c)
{
    uint32_t arr;
    if (!gltf_top_array(c, "buffers", GLTF_MAX_BUFFERS, &arr, &c->n_buf, &c->buf_v))
        return false;
    c->a_buf = arr;
    c->buf = gltf_track(c, calloc((size_t)c->n_buf + 1, sizeof *c->buf));
    if (!c->buf)
        return gltf_bad(c, "out of memory");
    /* Declared sizes first: nothing is read when they are absurd. */
    uint64_t total = 0;
    for (uint32_t b = 0; b < c->n_buf; b++) {
        char what[32];
        snprintf(what, sizeof what, "buffer %u", b);
        if (!gltf_whole(c, c->buf_v[b], "byteLength", 1, GLTF_MAX_BUFFER_BYTES, 0, what, true, &c->buf[b].length))
            return false;
        total += c->buf[b].length;
        if (total > GLTF_MAX_BUFFER_BYTES)
            return gltf_bad(c, "buffers of %llu bytes together (up to buffer %u), more than the %zu allowed",
                            (unsigned long long)total, b, GLTF_MAX_BUFFER_BYTES);
    }
    /* Every uri is checked (and every path resolved) before any file is
     * read: pass 0 checks, pass 1 reads. */
    char **file_uri = gltf_track(c, calloc((size_t)c->n_buf + 1, sizeof *file_uri));
    if (!file_uri)
        return gltf_bad(c, "out of memory");
    char rel[PATHS_MAX];
    uint64_t files_total = 0;
    for (uint32_t b = 0; b < c->n_buf; b++) {
        char what[32];
        snprintf(what, sizeof what, "buffer %u", b);
        uint32_t u;
        if (!gltf_member(c, c->buf_v[b], "uri", what, &u))
            return false;
        gbuf_t *g = &c->buf[b];
        if (u == JSON_NONE) {
            if (b != 0 || !c->bin)
                return gltf_bad(c, "%s has no uri (only a .glb's first buffer is its BIN chunk)", what);
            if (c->bin_size < g->length)
                return gltf_bad(c, "%s: byteLength %llu, the BIN chunk has %llu bytes", what,
                                (unsigned long long)g->length, (unsigned long long)c->bin_size);
            g->data = c->bin;
            continue;
        }
        char *text;
        uint8_t *data;
        size_t size;
        if (!uri_text(c, what, u, &text, &data, &size))
            return false;
        if (data) {
            if (size != g->length)
                return gltf_bad(c, "%s: data: URI holds %zu bytes, byteLength says %llu", what, size,
                                (unsigned long long)g->length);
            g->data = data;
            continue;
        }
        /* The files' real sizes, together, within the cap before any is
         * read (a file named twice counts once). */
        size_t real = 0;
        if (!uri_relative(c, what, text, rel, sizeof rel) ||
            !c->fetch(c->ctx, c->source, what, rel, GLTF_FETCH_CHECK, NULL, &real))
            return false;
        bool again = false;
        for (uint32_t e = 0; e < b && !again; e++)
            again = file_uri[e] && strcmp(file_uri[e], text) == 0;
        if (real > GLTF_MAX_BUFFER_BYTES)
            return gltf_bad(c, "%s: '%s' is %zu bytes, more than the %zu allowed", what, rel, real,
                            GLTF_MAX_BUFFER_BYTES);
        files_total += again ? 0 : real;
        if (files_total > GLTF_MAX_BUFFER_BYTES)
            return gltf_bad(c, "buffer files of %llu bytes together (up to buffer %u), more than the %zu allowed",
                            (unsigned long long)files_total, b, GLTF_MAX_BUFFER_BYTES);
        file_uri[b] = text;
    }
    for (uint32_t b = 0; b < c->n_buf; b++) {
        if (!file_uri[b])
            continue;
        char what[32];
        snprintf(what, sizeof what, "buffer %u", b);
        const char *uri = file_uri[b];
        const gltf_resource_t *known = gltf_package_find(c->pkg, uri);
        if (!known) {
            uint8_t *data = NULL;
            size_t size = 0;
            if (!uri_relative(c, what, uri, rel, sizeof rel) ||
                !c->fetch(c->ctx, c->source, what, rel, GLTF_FETCH_READ, &data, &size))
                return false;
            known = add_resource(c, uri, data, size);
            if (!known)
                return false;
        }
        gbuf_t *g = &c->buf[b];
        if (known->size < g->length)
            return gltf_bad(c, "%s: '%s' is %zu bytes, byteLength says %llu", what, uri, known->size,
                            (unsigned long long)g->length);
        g->data = known->data;
    }
    return true;
}

static bool gltf_check_images(gcheck_t *c)
{
    uint32_t arr, n, *img;
    if (!gltf_top_array(c, "images", GLTF_MAX_IMAGES, &arr, &n, &img))
        return false;
    c->n_img = n;
    char rel[PATHS_MAX];
    for (uint32_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "image %u", i);
        uint32_t u, dummy;
        if (!gltf_member(c, img[i], "uri", what, &u) ||
            !gltf_index(c, img[i], "bufferView", c->n_view, "bufferViews", what, false, &dummy))
            return false;
        if (u == JSON_NONE)
            continue;
        char *text;
        uint8_t *data;
        size_t size;
        if (!uri_text(c, what, u, &text, &data, &size))
            return false;
        if (data)
            continue;
        /* Images are not read (the import uses no textures), but their
         * names follow the same rule as buffers'. */
        if (!uri_relative(c, what, text, rel, sizeof rel) ||
            !c->fetch(c->ctx, c->source, what, rel, GLTF_FETCH_CHECK_OPTIONAL, NULL, NULL))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ the rewrite */

typedef struct edit_t {
    uint32_t at, cut; /* replace [at, at + cut) */
    char *text;
} edit_t;

typedef struct edits_t {
    edit_t *e;
    uint32_t n;
    bool failed;
} edits_t;

static void add_edit(edits_t *ed, uint32_t at, uint32_t cut, char *text)
{
    edit_t *e = text ? realloc(ed->e, (ed->n + 1) * sizeof *e) : NULL;
    if (!e) {
        free(text);
        ed->failed = true;
        return;
    }
    ed->e = e;
    ed->e[ed->n++] = (edit_t){.at = at, .cut = cut, .text = text};
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* Appends ITEMS (malloc'd; freed here) to top-level array KEY (ARR, or
 * JSON_NONE: a new member of the root object). */
static void append_items(gcheck_t *c, edits_t *ed, uint32_t arr, const char *key, char *items)
{
    if (!items) {
        ed->failed = true;
        return;
    }
    if (arr != JSON_NONE)
        add_edit(ed, c->j.v[arr].end - 1, 0, dup_printf("%s%s", c->j.v[arr].count ? "," : "", items));
    else
        add_edit(ed, c->j.v[0].start + 1, 0, dup_printf("\"%s\":[%s],", key, items));
    free(items);
}

static int cmp_edit(const void *a, const void *b)
{
    const edit_t *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* N identity 4x4 float matrices, base64 (malloc'd), for a data: URI. */
static char *identity_base64(uint32_t n, size_t *bytes)
{
    *bytes = (size_t)n * 64;
    uint8_t *raw = calloc(*bytes + 2, 1);
    char *b64 = malloc(*bytes / 3 * 4 + 8);
    if (!raw || !b64) {
        free(raw);
        free(b64);
        return NULL;
    }
    /* 1.0f (0x3F800000, little-endian) on each diagonal. */
    for (size_t m = 0; m < n; m++)
        for (int d = 0; d < 4; d++) {
            uint8_t *f = raw + m * 64 + (size_t)d * 20;
            f[2] = 0x80;
            f[3] = 0x3F;
        }
    size_t k = 0;
    for (size_t i = 0; i < *bytes; i += 3) {
        uint32_t w = (uint32_t)raw[i] << 16 | (uint32_t)raw[i + 1] << 8 | raw[i + 2];
        size_t left = *bytes - i;
        b64[k++] = B64[w >> 18];
        b64[k++] = B64[(w >> 12) & 63];
        b64[k++] = left > 1 ? B64[(w >> 6) & 63] : '=';
        b64[k++] = left > 2 ? B64[w & 63] : '=';
    }
    b64[k] = 0;
    free(raw);
    return b64;
}

/* The document's JSON with identity inverse bind matrices for the skins
 * without them (one new buffer and view, an accessor per such skin) and no
 * animations, as new text in *OUT (malloc'd). */
static bool rewrite_json(gcheck_t *c, uint32_t max_joints, char **out, size_t *out_size)
{
    edits_t ed = {0};
    if (c->a_anim != JSON_NONE && c->j.v[c->a_anim].count > 0)
        add_edit(&ed, c->j.v[c->a_anim].start, c->j.v[c->a_anim].end - c->j.v[c->a_anim].start, dup_printf("[]"));
    if (max_joints > 0) {
        size_t bytes;
        char *b64 = identity_base64(max_joints, &bytes);
        if (!b64)
            return gltf_bad(c, "out of memory");
        append_items(
            c, &ed, c->a_buf, "buffers",
            dup_printf("{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}", bytes, b64));
        free(b64);
        append_items(c, &ed, c->a_view, "bufferViews",
                     dup_printf("{\"buffer\":%u,\"byteLength\":%zu}", c->n_buf, bytes));
        char *list = dup_printf("%s", "");
        uint32_t acc = c->n_acc;
        for (uint32_t s = 0; s < c->n_skin && list; s++) {
            if (json_get(&c->j, c->skin[s], "inverseBindMatrices", NULL) != JSON_NONE)
                continue;
            uint32_t nj = c->j.v[json_get(&c->j, c->skin[s], "joints", NULL)].count;
            char *more = dup_printf("%s%s{\"bufferView\":%u,\"componentType\":%d,\"count\":%u,\"type\":\"MAT4\"}", list,
                                    acc > c->n_acc ? "," : "", c->n_view, GL_FLOAT, nj);
            free(list);
            list = more;
            add_edit(&ed, c->j.v[c->skin[s]].start + 1, 0, dup_printf("\"inverseBindMatrices\":%u,", acc++));
        }
        append_items(c, &ed, c->a_acc, "accessors", list);
        if (c->pkg)
            c->pkg->identity_skins = acc - c->n_acc;
    }
    if (ed.failed) {
        for (uint32_t i = 0; i < ed.n; i++)
            free(ed.e[i].text);
        free(ed.e);
        return gltf_bad(c, "out of memory");
    }
    /* Stable for equal positions: two insertions at one place keep their order. */
    for (uint32_t i = 1; i < ed.n; i++)
        for (uint32_t k = i; k > 0 && cmp_edit(&ed.e[k - 1], &ed.e[k]) > 0; k--) {
            edit_t t = ed.e[k];
            ed.e[k] = ed.e[k - 1];
            ed.e[k - 1] = t;
        }
    size_t size = c->j.len;
    for (uint32_t i = 0; i < ed.n; i++)
        size += strlen(ed.e[i].text) - ed.e[i].cut;
    char *text = malloc(size + 1);
    if (text) {
        size_t from = 0, to = 0;
        for (uint32_t i = 0; i < ed.n; i++) {
            memcpy(text + to, c->j.text + from, ed.e[i].at - from);
            to += ed.e[i].at - from;
            size_t n = strlen(ed.e[i].text);
            memcpy(text + to, ed.e[i].text, n);
            to += n;
            from = ed.e[i].at + ed.e[i].cut;
        }
        memcpy(text + to, c->j.text + from, c->j.len - from);
        text[size] = 0;
    }
    for (uint32_t i = 0; i < ed.n; i++)
        free(ed.e[i].text);
    free(ed.e);
    if (!text)
        return gltf_bad(c, "out of memory");
    *out = text;
    *out_size = size;
    return true;
}

/* ------------------------------------------------------------------ the package */

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* Checks DATA (the file NAME) and builds PKG: the document assimp reads,
 * and the external buffers FETCH supplies. */
static bool package_build(gltf_package_t *pkg, const char *name, const uint8_t *data, size_t size,
                          gltf_fetch_fn_t fetch, void *ctx)
{
    memset(pkg, 0, sizeof *pkg);
    gcheck_t c = {.source = name, .fetch = fetch, .ctx = ctx, .pkg = pkg};
    c.a_anim = JSON_NONE;
    pkg->binary = file_has_suffix(name, ".glb");
    const uint8_t *json = NULL;
    size_t json_size = 0;
    bool ok = true;
    if (pkg->binary) {
        ok = glb_split(&c, data, size, &json, &json_size);
    } else {
        size_t i = 0;
        while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
            i++;
        if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
            ok = gltf_bad(&c, "starts with a UTF-8 byte order mark, which glTF's JSON may not have");
        else if (i >= size || data[i] != '{')
            ok = gltf_bad(&c, "not a glTF file (no JSON object)");
        json = data;
        json_size = size;
    }
    char err[160];
    json_limits_t lim = {.max_depth = GLTF_MAX_JSON_DEPTH, .max_values = GLTF_MAX_JSON_VALUES};
    if (ok && !json_parse(&c.j, (const char *)json, json_size, &lim, err, sizeof err))
        ok = gltf_bad(&c, "invalid JSON%s: %s", pkg->binary ? " chunk" : "", err);
    uint32_t dummy, missing_ibm = 0, max_joints = 0;
    /* Counts first (node checks name them), then everything in order. */
    ok = ok && gltf_check_asset(&c) && gltf_top_array(&c, "meshes", UINT32_MAX, &dummy, &c.n_mesh, NULL) &&
         gltf_top_array(&c, "skins", GLTF_MAX_SKINS, &dummy, &c.n_skin, &c.skin) &&
         gltf_top_array(&c, "materials", IMP_MAX_MATERIALS, &dummy, &c.n_mat, NULL) &&
         gltf_top_array(&c, "cameras", GLTF_MAX_CAMERAS, &dummy, &c.n_cam, NULL) &&
         gltf_array(&c, 0, "animations", 0, "the document", &c.a_anim) && gltf_check_nodes(&c) &&
         gltf_check_scenes(&c) && gltf_check_buffers(&c) && gltf_check_views(&c) && gltf_check_images(&c) &&
         gltf_check_accessors(&c) && gltf_check_meshes(&c) && gltf_check_skins(&c, &missing_ibm, &max_joints) &&
         gltf_check_joint_values(&c);
    char *text = NULL;
    size_t text_size = 0;
    ok = ok && rewrite_json(&c, max_joints, &text, &text_size);
    if (ok) {
        /* What assimp will parse must pass the same parser. */
        json_doc_t again;
        if (!json_parse(&again, text, text_size, &lim, err, sizeof err))
            ok = gltf_bad(&c, "rewritten JSON is invalid (a bug): %s", err);
        json_free(&again);
    }
    if (ok && pkg->binary) {
        /* The container again, around the new JSON (padded with spaces, as
         * the spec says) and the BIN chunk as it was. */
        size_t jpad = (text_size + 3) & ~(size_t)3, bpad = c.bin ? (c.bin_size + 3) & ~(size_t)3 : 0;
        pkg->doc_size = GLB_HEADER + GLB_CHUNK_HEADER + jpad + (c.bin ? GLB_CHUNK_HEADER + bpad : 0);
        pkg->doc = pkg->doc_size <= UINT32_MAX ? calloc(pkg->doc_size, 1) : NULL;
        if (!pkg->doc) {
            ok = gltf_bad(&c, "out of memory");
        } else {
            uint8_t *p = pkg->doc;
            put32(p, GLB_MAGIC);
            put32(p + 4, 2);
            put32(p + 8, (uint32_t)pkg->doc_size);
            put32(p + 12, (uint32_t)jpad);
            put32(p + 16, GLB_CHUNK_JSON);
            memcpy(p + 20, text, text_size);
            memset(p + 20 + text_size, ' ', jpad - text_size);
            if (c.bin) {
                p += 20 + jpad;
                put32(p, (uint32_t)bpad);
                put32(p + 4, GLB_CHUNK_BIN);
                memcpy(p + 8, c.bin, c.bin_size);
            }
        }
        free(text);
    } else if (ok) {
        pkg->doc = (uint8_t *)text;
        pkg->doc_size = text_size;
    } else {
        free(text);
    }
    json_free(&c.j);
    for (uint32_t i = 0; i < c.owned_count; i++)
        free(c.owned[i]);
    free(c.owned);
    if (!ok)
        gltf_package_free(pkg);
    return ok;
}

void gltf_package_free(gltf_package_t *pkg)
{
    free(pkg->doc);
    for (uint32_t i = 0; i < pkg->res_count; i++) {
        free(pkg->res[i].uri);
        free(pkg->res[i].data);
    }
    free(pkg->res);
    memset(pkg, 0, sizeof *pkg);
}

const gltf_resource_t *gltf_package_find(const gltf_package_t *pkg, const char *uri)
{
    for (uint32_t i = 0; pkg && i < pkg->res_count; i++)
        if (strcmp(pkg->res[i].uri, uri) == 0)
            return &pkg->res[i];
    return NULL;
}

/* External files from the model's folder (its realpath). */
typedef struct folder_ctx_t {
    char folder[PATHS_MAX];
} folder_ctx_t;

static bool folder_fetch(void *ctx, const char *source, const char *what, const char *rel, gltf_fetch_mode_t mode,
                         uint8_t **data, size_t *size)
{
    const folder_ctx_t *f = ctx;
    char joined[PATHS_MAX], real[PATH_MAX];
    int n = snprintf(joined, sizeof joined, "%s/%s", f->folder, rel);
    if (n < 0 || (size_t)n >= sizeof joined) {
        log_error("%s: %s: uri '%s' makes a path longer than the system allows", source, what, rel);
        return false;
    }
    /* Every link resolved: the file must still be inside the folder. */
    if (!realpath(joined, real)) {
        if (mode == GLTF_FETCH_CHECK_OPTIONAL && errno == ENOENT)
            return true;
        log_error("%s: %s: cannot open '%s': %s", source, what, rel, strerror(errno));
        return false;
    }
    size_t fl = strlen(f->folder);
    if (strncmp(real, f->folder, fl) != 0 || (real[fl] != '/' && strcmp(f->folder, "/") != 0)) {
        log_error("%s: %s: uri '%s' resolves to '%s', outside the model's folder '%s'", source, what, rel, real,
                  f->folder);
        return false;
    }
    /* The size is the folder entry's (stat): what would be read, without
     * opening it; the read itself checks the file it opens. */
    uint64_t entry = 0;
    if (mode == GLTF_FETCH_CHECK && size && file_is_regular(real, &entry))
        *size = entry > SIZE_MAX ? SIZE_MAX : (size_t)entry;
    if (mode != GLTF_FETCH_READ)
        return true;
    /* The rule for every input file: regular files only, capped. */
    uint8_t *bytes = NULL;
    size_t got = 0;
    char why[PATHS_LINE_MAX];
    if (!file_read_all_why(real, GLTF_MAX_BUFFER_BYTES, &bytes, &got, why, sizeof why)) {
        log_error("%s: %s: %s", source, what, why);
        return false;
    }
    *data = bytes;
    *size = got;
    return true;
}

bool gltf_package_load(gltf_package_t *pkg, const char *path)
{
    memset(pkg, 0, sizeof *pkg);
    folder_ctx_t f;
    char dir[PATHS_MAX];
    if (!paths_dirname(path, dir, sizeof dir)) {
        log_error("%s: path too long", path);
        return false;
    }
    if (!realpath(dir, f.folder)) {
        log_error("%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, GLTF_MAX_FILE_BYTES, &data, &size))
        return false;
    bool ok = package_build(pkg, path, data, size, folder_fetch, &f);
    file_free(data);
    return ok;
}

/* External files from a list (tests, fuzzing). */
typedef struct memory_ctx_t {
    const gltf_memory_file_t *files;
    uint32_t count;
} memory_ctx_t;

static bool memory_fetch(void *ctx, const char *source, const char *what, const char *rel, gltf_fetch_mode_t mode,
                         uint8_t **data, size_t *size)
{
    const memory_ctx_t *m = ctx;
    for (uint32_t i = 0; i < m->count; i++) {
        if (strcmp(m->files[i].name, rel) != 0)
            continue;
        if (mode == GLTF_FETCH_CHECK && size)
            *size = m->files[i].size;
        if (mode != GLTF_FETCH_READ)
            return true;
        *data = malloc(m->files[i].size + 1);
        if (!*data) {
            log_error("%s: out of memory", source);
            return false;
        }
        memcpy(*data, m->files[i].data, m->files[i].size);
        *size = m->files[i].size;
        return true;
    }
    if (mode == GLTF_FETCH_CHECK_OPTIONAL)
        return true;
    log_error("%s: %s: cannot open '%s': No such file", source, what, rel);
    return false;
}

bool gltf_package_memory(gltf_package_t *pkg, const char *name, const uint8_t *data, size_t size,
                         const gltf_memory_file_t *files, uint32_t file_count)
{
    memory_ctx_t m = {.files = files, .count = file_count};
    if (size > GLTF_MAX_FILE_BYTES) {
        memset(pkg, 0, sizeof *pkg);
        log_error("%s: file is %zu bytes, more than the %zu allowed", name, size, GLTF_MAX_FILE_BYTES);
        return false;
    }
    return package_build(pkg, name, data, size, memory_fetch, &m);
}
