/* network_file: reading pfnn.bin and pfnn_ref.bin (docs/FORMATS_PFNN.md):
 * the header checked field by field, the payload's size and checksum, every
 * decoded value finite and within its plausible range, then the network's
 * dimensions and normalisation kept and its weight sets handed to
 * pfnn_build_sets() (network.c). Every refusal is one line naming the file
 * and the byte. Does NOT: lay out weights, build phase modes or run.
 */
/* strdup() (see pfnn_load_ex). */
#define _DEFAULT_SOURCE
#include "pfnn/network.h"
#include "pfnn/network_internal.h"

#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PFNN_MAGIC "SPFN"
#define PFNN_REF_MAGIC "SPFV"

enum {
    PFNN_VERSION = 1,
    PFNN_HEADER_BYTES = 64,
    PFNN_REF_HEADER_BYTES = 32,
    PFNN_DTYPE_F32 = 0,
    /* Byte offsets of header fields, for messages. */
    PFNN_OFF_VERSION = 4,
    PFNN_OFF_HEADER_BYTES = 8,
    PFNN_OFF_DIMS = 12,
    PFNN_OFF_CONTROL = 28,
    PFNN_OFF_JOINTS = 32,
    PFNN_OFF_TRAJ = 36,
    PFNN_OFF_GAITS = 40,
    PFNN_OFF_DTYPE = 44,
    PFNN_OFF_PAYLOAD = 48,
    PFNN_OFF_CHECKSUM = 52,
    PFNN_REF_MAX_COUNT = 1000000
};

/* ------------------------------------------------------------ plausible values */

/* docs/FORMATS_PFNN.md section 8: every value of pfnn.bin has a range. A
 * normalisation group's limit L bounds its means (|mean| <= L) and its
 * standard deviations (PFNN_STD_MIN <= std <= 10 L: the joint groups' are
 * made 10x larger); L is about 4x the largest |value| of that group in the
 * training data. Weights and biases work on values normalised to unit
 * deviation: |w| <= PFNN_WEIGHT_LIMIT. A layout other than the shipped one
 * (tests) takes the largest group limit for every value. */
#define PFNN_STD_MIN 1e-6
#define PFNN_WEIGHT_LIMIT 100.0

typedef struct pfnn_group_t {
    int first, count; /* indices of x or y */
    double limit;     /* L */
    const char *name;
} pfnn_group_t;

static const pfnn_group_t k_in_groups[] = {
    {0, 24, 2500.0, "trajectory positions (cm)"},
    {24, 24, 4.0, "trajectory directions"},
    {48, 72, 4.0, "gait weights"},
    {120, 36, 400.0, "terrain heights (cm)"},
    {156, 63, 1000.0, "joint positions (cm)"},
    {219, 63, 200.0, "joint velocities (cm/frame)"},
};
static const pfnn_group_t k_out_groups[] = {
    {0, 2, 50.0, "root velocity (cm/frame)"},     {2, 1, 2.0, "angular velocity (rad/frame)"},
    {3, 1, 4.0, "phase change (rad/frame)"},      {4, 4, 4.0, "contacts"},
    {8, 12, 2500.0, "trajectory positions (cm)"}, {20, 12, 4.0, "trajectory directions"},
    {32, 63, 1000.0, "joint positions (cm)"},     {95, 63, 200.0, "joint velocities (cm/frame)"},
    {158, 126, 4.0, "joint rotations (6-D)"},
};
#define PFNN_LARGEST_GROUP_LIMIT 2500.0

/* The group of index I of x (or y), for the shipped layout; else the
 * largest limit. */
static const pfnn_group_t *group_of(bool output, bool shipped, int i)
{
    static const pfnn_group_t any = {0, 0, PFNN_LARGEST_GROUP_LIMIT, "any (not the shipped layout)"};
    const pfnn_group_t *g = output ? k_out_groups : k_in_groups;
    int n = output ? (int)(sizeof k_out_groups / sizeof *g) : (int)(sizeof k_in_groups / sizeof *g);
    for (int k = 0; shipped && k < n; k++)
        if (i >= g[k].first && i < g[k].first + g[k].count)
            return &g[k];
    return &any;
}

/* Checks every decoded value against its range; one line naming the file,
 * the byte, the field and the value on the first one outside. */
static bool check_ranges(const char *name, const float *p, int n_in, int h0, int h1, int n_out, bool shipped)
{
    /* Normalisation: Xmean, Xstd, Ymean, Ystd. */
    const int count[4] = {n_in, n_in, n_out, n_out};
    static const char *const what[4] = {"Xmean", "Xstd", "Ymean", "Ystd"};
    size_t at = 0;
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < count[b]; i++, at++) {
            const pfnn_group_t *g = group_of(b >= 2, shipped, i);
            double v = p[at];
            bool is_std = b & 1;
            double lo = is_std ? PFNN_STD_MIN : -g->limit, hi = is_std ? 10.0 * g->limit : g->limit;
            if (!(v >= lo && v <= hi)) {
                log_error("%s: byte %zu: %s[%d] = %g is outside [%g, %g] (%s)", name,
                          (size_t)PFNN_HEADER_BYTES + 4 * at, what[b], i, v, lo, hi, g->name);
                return false;
            }
        }
    /* Weights and biases of the control points, in file order. */
    const size_t sizes[6] = {(size_t)h0 * n_in, (size_t)h0,         (size_t)h1 * h0,
                             (size_t)h1,        (size_t)n_out * h1, (size_t)n_out};
    static const char *const blocks[6] = {"W0", "b0", "W1", "b1", "W2", "b2"};
    for (int k = 0; k < PFNN_CONTROL_POINTS; k++)
        for (int b = 0; b < 6; b++)
            for (size_t i = 0; i < sizes[b]; i++, at++)
                if (!(fabsf(p[at]) <= (float)PFNN_WEIGHT_LIMIT)) {
                    log_error("%s: byte %zu: %s of control point %d, value %zu, = %g is outside [-%g, %g]", name,
                              (size_t)PFNN_HEADER_BYTES + 4 * at, blocks[b], k, i, (double)p[at], PFNN_WEIGHT_LIMIT,
                              PFNN_WEIGHT_LIMIT);
                    return false;
                }
    return true;
}

/* ---------------------------------------------------------------- pfnn.bin */

static bool check_dim(const char *name, const char *what, uint32_t v, int off)
{
    if (v < 1 || v > PFNN_MAX_DIM) {
        log_error("%s: byte %d: %s = %u is out of range 1..%d", name, off, what, v, PFNN_MAX_DIM);
        return false;
    }
    return true;
}

static bool check_layout(const char *name, const char *what, uint32_t v, int want, int off)
{
    if ((int64_t)v != want) {
        log_error("%s: byte %d: %s = %u, the controller's layout (docs/FORMATS_PFNN.md) needs %d", name, off, what, v,
                  want);
        return false;
    }
    return true;
}

/* The 15 header words after the magic, as read. */
typedef struct pfnn_header_t {
    uint32_t version, header_bytes, n_in, h0, h1, n_out;
    uint32_t n_control, n_joints, n_traj, n_gaits, dtype, payload_bytes, checksum;
} pfnn_header_t;

/* The file's size and magic checked, its header words read into H. */
static bool read_header(const char *name, const uint8_t *data, size_t size, pfnn_header_t *hd)
{
    if (size < PFNN_HEADER_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, shorter than the %d-byte header", name, size, PFNN_HEADER_BYTES);
        return false;
    }
    if (size > PFNN_MAX_FILE_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, over the %zu-byte cap", name, size, PFNN_MAX_FILE_BYTES);
        return false;
    }
    if (memcmp(data, PFNN_MAGIC, 4) != 0) {
        log_error("%s: byte 0: bad magic (expected \"%s\"), not a PFNN weights file", name, PFNN_MAGIC);
        return false;
    }
    reader_t r = reader_make(data + 4, PFNN_HEADER_BYTES - 4);
    uint32_t h[15];
    for (int i = 0; i < 15; i++)
        h[i] = reader_u32(&r);
    *hd = (pfnn_header_t){.version = h[0],
                          .header_bytes = h[1],
                          .n_in = h[2],
                          .h0 = h[3],
                          .h1 = h[4],
                          .n_out = h[5],
                          .n_control = h[6],
                          .n_joints = h[7],
                          .n_traj = h[8],
                          .n_gaits = h[9],
                          .dtype = h[10],
                          .payload_bytes = h[11],
                          .checksum = h[12]};
    return true;
}

/* The header's fields against the format and, unless D->any_dims, against
 * the controller's layout. */
static bool check_header(const char *name, const pfnn_header_t *h, const pfnn_load_desc_t *d)
{
    if (h->version != PFNN_VERSION) {
        log_error("%s: byte %d: version %u, this runtime reads version %d", name, PFNN_OFF_VERSION, h->version,
                  PFNN_VERSION);
        return false;
    }
    if (h->header_bytes != PFNN_HEADER_BYTES) {
        log_error("%s: byte %d: header size %u, expected %d", name, PFNN_OFF_HEADER_BYTES, h->header_bytes,
                  PFNN_HEADER_BYTES);
        return false;
    }
    if (!check_dim(name, "n_in", h->n_in, PFNN_OFF_DIMS) || !check_dim(name, "h0", h->h0, PFNN_OFF_DIMS + 4) ||
        !check_dim(name, "h1", h->h1, PFNN_OFF_DIMS + 8) || !check_dim(name, "n_out", h->n_out, PFNN_OFF_DIMS + 12))
        return false;
    if (h->n_control != PFNN_CONTROL_POINTS) {
        log_error("%s: byte %d: %u control points, expected %d", name, PFNN_OFF_CONTROL, h->n_control,
                  PFNN_CONTROL_POINTS);
        return false;
    }
    if (h->dtype != PFNN_DTYPE_F32) {
        log_error("%s: byte %d: weight type %u, only 0 (f32) is defined", name, PFNN_OFF_DTYPE, h->dtype);
        return false;
    }
    if (!d->any_dims && (!check_layout(name, "n_in", h->n_in, PFNN_N_IN, PFNN_OFF_DIMS) ||
                         !check_layout(name, "n_out", h->n_out, PFNN_N_OUT, PFNN_OFF_DIMS + 12) ||
                         !check_layout(name, "n_joints", h->n_joints, PFNN_N_JOINTS, PFNN_OFF_JOINTS) ||
                         !check_layout(name, "n_traj", h->n_traj, PFNN_N_TRAJ, PFNN_OFF_TRAJ) ||
                         !check_layout(name, "n_gaits", h->n_gaits, PFNN_N_GAITS, PFNN_OFF_GAITS)))
        return false;
    return true;
}

/* The payload's float count (*FLOATS), which the dimensions fix, checked
 * against the payload size, the file size and the checksum. */
static bool check_payload(const char *name, const uint8_t *data, size_t size, const pfnn_header_t *h, uint64_t *floats)
{
    const uint64_t n_in = h->n_in, h0 = h->h0, h1 = h->h1, n_out = h->n_out;
    const uint64_t per_cp = h0 * n_in + h0 + h1 * h0 + h1 + n_out * h1 + n_out;
    *floats = 2 * n_in + 2 * n_out + PFNN_CONTROL_POINTS * per_cp;
    if ((uint64_t)h->payload_bytes != 4 * *floats) {
        log_error("%s: byte %d: payload size %u, the dimensions need %llu", name, PFNN_OFF_PAYLOAD, h->payload_bytes,
                  (unsigned long long)(4 * *floats));
        return false;
    }
    if ((uint64_t)size != PFNN_HEADER_BYTES + (uint64_t)h->payload_bytes) {
        log_error("%s: byte %zu: file size %zu, the header says %llu (truncated or padded)", name, size, size,
                  (unsigned long long)(PFNN_HEADER_BYTES + (uint64_t)h->payload_bytes));
        return false;
    }
    const uint32_t sum = file_checksum32(data + PFNN_HEADER_BYTES, h->payload_bytes);
    if (sum != h->checksum) {
        log_error("%s: byte %d: checksum 0x%08x, the payload hashes to 0x%08x", name, PFNN_OFF_CHECKSUM, h->checksum,
                  sum);
        return false;
    }
    return true;
}

/* NET's checksum, dimensions and per-layer shapes from the checked header. */
static void set_dims(pfnn_network_t *net, const pfnn_header_t *h)
{
    net->checksum = h->checksum;
    net->n_in = (int)h->n_in;
    net->h0 = (int)h->h0;
    net->h1 = (int)h->h1;
    net->n_out = (int)h->n_out;
    net->n_joints = (int)h->n_joints;
    net->n_traj = (int)h->n_traj;
    net->n_gaits = (int)h->n_gaits;
    const int ins[PFNN_LAYERS] = {(int)h->n_in, (int)h->h0, (int)h->h1};
    const int outs[PFNN_LAYERS] = {(int)h->h0, (int)h->h1, (int)h->n_out};
    for (int l = 0; l < PFNN_LAYERS; l++) {
        net->in[l] = ins[l];
        net->out[l] = outs[l];
        net->out_pad[l] = (int)round_up((size_t)outs[l], PFNN_PANEL_ROWS);
    }
}

/* The payload decoded once (little-endian) into a new array, every value
 * finite; NULL (and one line) otherwise. */
static float *decode_payload(const char *name, const uint8_t *data, uint32_t payload_bytes, uint64_t floats)
{
    float *payload = malloc((size_t)floats * sizeof(float));
    if (!payload) {
        log_error("%s: out of memory for %llu floats", name, (unsigned long long)floats);
        return NULL;
    }
    reader_t pr = reader_make(data + PFNN_HEADER_BYTES, payload_bytes);
    for (size_t j = 0; j < floats; j++) {
        payload[j] = reader_f32(&pr);
        if (!isfinite(payload[j])) {
            log_error("%s: byte %zu: non-finite value (float %zu of the payload)", name,
                      (size_t)PFNN_HEADER_BYTES + 4 * j, j);
            free(payload);
            return NULL;
        }
    }
    return payload;
}

/* A copy of the normalisation (Xmean, Xstd, Ymean, Ystd: the payload's
 * head) in one block that NET owns. */
static bool keep_normalisation(pfnn_network_t *net, const float *payload)
{
    const size_t n_in = (size_t)net->n_in, n_out = (size_t)net->n_out;
    net->x_mean = malloc((n_in * 2 + n_out * 2) * sizeof(float));
    if (!net->x_mean) {
        log_error("%s: out of memory", net->name);
        return false;
    }
    memcpy(net->x_mean, payload, (n_in * 2 + n_out * 2) * sizeof(float));
    net->x_std = net->x_mean + n_in;
    net->y_mean = net->x_std + n_in;
    net->y_std = net->y_mean + n_out;
    return true;
}

bool pfnn_load_checked(pfnn_network_t *net, const uint8_t *data, size_t size, const pfnn_load_desc_t *d)
{
    const char *name = net->name;
    pfnn_header_t h;
    uint64_t floats;
    if (!read_header(name, data, size, &h) || !check_header(name, &h, d) ||
        !check_payload(name, data, size, &h, &floats))
        return false;
    set_dims(net, &h);
    float *payload = decode_payload(name, data, h.payload_bytes, floats);
    if (!payload)
        return false;
    /* Every value within its plausible range (Xstd and Ystd, divisors, at
     * least PFNN_STD_MIN). */
    const bool shipped = h.n_in == PFNN_N_IN && h.n_out == PFNN_N_OUT;
    bool ok = check_ranges(name, payload, (int)h.n_in, (int)h.h0, (int)h.h1, (int)h.n_out, shipped) &&
              keep_normalisation(net, payload) && pfnn_build_sets(net, payload, d);
    free(payload);
    return ok;
}

bool pfnn_load_memory(pfnn_network_t *net, const char *name, const uint8_t *data, size_t size,
                      const pfnn_load_desc_t *desc)
{
    static const pfnn_load_desc_t defaults = {0};
    memset(net, 0, sizeof *net);
    snprintf(net->name, sizeof net->name, "%s", name ? name : "(memory)");
    if (!data)
        size = 0;
    if (!pfnn_load_checked(net, data, size, desc ? desc : &defaults)) {
        pfnn_free(net);
        return false;
    }
    return true;
}

bool pfnn_load_ex(pfnn_network_t *net, const char *path, const pfnn_load_desc_t *desc)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(net, 0, sizeof *net);
    if (!file_read_all(path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    bool ok = pfnn_load_memory(net, path, data, size, desc);
    file_free(data);
    /* Kept so that released control points can be read again; without it
     * (out of memory) they are simply never released. */
    if (ok)
        net->path = strdup(path);
    return ok;
}

bool pfnn_load(pfnn_network_t *net, const char *path) { return pfnn_load_ex(net, path, NULL); }

/* ------------------------------------------------------ reference vectors */

bool pfnn_ref_load_memory(pfnn_ref_t *ref, const char *name, const uint8_t *data, size_t size)
{
    memset(ref, 0, sizeof *ref);
    if (!data || size < PFNN_REF_HEADER_BYTES) {
        log_error("%s: byte 0: file is %zu bytes, shorter than the %d-byte header", name, data ? size : 0,
                  PFNN_REF_HEADER_BYTES);
        return false;
    }
    if (memcmp(data, PFNN_REF_MAGIC, 4) != 0) {
        log_error("%s: byte 0: bad magic (expected \"%s\"), not a PFNN reference file", name, PFNN_REF_MAGIC);
        return false;
    }
    reader_t r = reader_make(data + 4, PFNN_REF_HEADER_BYTES - 4);
    const uint32_t version = reader_u32(&r), header_bytes = reader_u32(&r), count = reader_u32(&r);
    const uint32_t n_in = reader_u32(&r), n_out = reader_u32(&r), checksum = reader_u32(&r);
    if (version != PFNN_VERSION || header_bytes != PFNN_REF_HEADER_BYTES) {
        log_error("%s: byte 4: version %u / header size %u, expected %d / %d", name, version, header_bytes,
                  PFNN_VERSION, PFNN_REF_HEADER_BYTES);
        return false;
    }
    if (count < 1 || count > PFNN_REF_MAX_COUNT || n_in < 1 || n_in > PFNN_MAX_DIM || n_out < 1 ||
        n_out > PFNN_MAX_DIM) {
        log_error("%s: byte 12: count %u / n_in %u / n_out %u out of range (1..%d, 1..%d)", name, count, n_in, n_out,
                  PFNN_REF_MAX_COUNT, PFNN_MAX_DIM);
        return false;
    }
    const uint64_t floats = (uint64_t)count * (1 + (uint64_t)n_in + n_out);
    if ((uint64_t)size != PFNN_REF_HEADER_BYTES + 4 * floats) {
        log_error("%s: byte %zu: file size %zu, the counts need %llu", name, size, size,
                  (unsigned long long)(PFNN_REF_HEADER_BYTES + 4 * floats));
        return false;
    }
    const uint32_t sum = file_checksum32(data + PFNN_REF_HEADER_BYTES, (size_t)(4 * floats));
    if (sum != checksum) {
        log_error("%s: byte 24: checksum 0x%08x, the records hash to 0x%08x", name, checksum, sum);
        return false;
    }
    ref->count = (int)count;
    ref->n_in = (int)n_in;
    ref->n_out = (int)n_out;
    ref->phase = malloc((size_t)floats * sizeof(float));
    if (!ref->phase) {
        log_error("%s: out of memory", name);
        return false;
    }
    ref->x = ref->phase + count;
    ref->y = ref->x + (size_t)count * n_in;
    /* Records interleave phase, x, y; the struct keeps three arrays. */
    reader_t pr = reader_make(data + PFNN_REF_HEADER_BYTES, (size_t)(4 * floats));
    for (uint32_t k = 0; k < count; k++) {
        for (uint32_t j = 0; j < 1 + n_in + n_out; j++) {
            const float v = reader_f32(&pr);
            if (!isfinite(v)) {
                log_error("%s: byte %zu: non-finite value (record %u)", name, pr.pos - 4 + PFNN_REF_HEADER_BYTES, k);
                pfnn_ref_free(ref);
                return false;
            }
            if (j == 0)
                ref->phase[k] = v;
            else if (j <= n_in)
                ref->x[(size_t)k * n_in + j - 1] = v;
            else
                ref->y[(size_t)k * n_out + j - 1 - n_in] = v;
        }
    }
    return true;
}

bool pfnn_ref_load(pfnn_ref_t *ref, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(ref, 0, sizeof *ref);
    if (!file_read_all(path, PFNN_MAX_FILE_BYTES, &data, &size))
        return false;
    bool ok = pfnn_ref_load_memory(ref, path, data, size);
    file_free(data);
    return ok;
}

void pfnn_ref_free(pfnn_ref_t *ref)
{
    if (!ref)
        return;
    free(ref->phase);
    memset(ref, 0, sizeof *ref);
}
