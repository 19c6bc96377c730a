#include "asset/character.h"

#include "asset/weld.h"

#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* File layout constants; see docs/FORMATS_CHARACTER.md. */
static const uint8_t CHR_MAGIC[4] = {'S', 'C', 'H', 'R'};
enum {
    CHR_HEADER_BYTES = 24,
    CHR_SECTION_ENTRY_BYTES = 12,
    CHR_MAX_SECTIONS = 32,
    CHR_CHECKSUM_FROM = 16, /* the checksum covers bytes [16, file_size) */
    CHR_JOINT_BYTES = 112,
    CHR_END_BYTES = 48,
    CHR_MATERIAL_BYTES = 64,
    CHR_MESH_HEADER_BYTES = 48,
    CHR_VERTEX_BYTES = 80,
    CHR_SHAPE_HEADER_BYTES = 48,
    CHR_CORRECTIVE_HEADER_BYTES = 64,
    CHR_DELTA_BYTES = 44,
};

enum {
    CHR_SECTION_SKEL = 1,
    CHR_SECTION_MATL = 2,
    CHR_SECTION_MESH = 3,
    CHR_SECTION_SHAP = 4,
    CHR_SECTION_CORR = 5,
    CHR_SECTION_ID_MAX = 5,
};
static const char *const CHR_SECTION_NAME[CHR_SECTION_ID_MAX + 1] = {"?", "SKEL", "MATL", "MESH", "SHAP", "CORR"};

/* Plausibility limits: positions and deltas are centimetres on a human
 * (CHR_POS_LIMIT_CM is in the header). */
#define CHR_UNIT_TOLERANCE 1.0e-2f
#define CHR_DAO_LIMIT 1.0f
#define CHR_MATRIX_LIMIT 1.0e5f

/* ---------------------------------------------------------------- checks */

/* Length of NAME within its fixed CHR_NAME_MAX field (no strnlen in C11). */
static size_t chr_name_len(const char *name)
{
    size_t n = 0;
    while (n < CHR_NAME_MAX && name[n])
        n++;
    return n;
}

static bool chr_name_ok(const char *name)
{
    size_t n = chr_name_len(name);
    return n > 0 && n < CHR_NAME_MAX;
}

static bool chr_finite_n(const float *v, int n, float limit)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabsf(v[i]) > limit)
            return false;
    return true;
}

static bool chr_unit3(const float *v)
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return fabsf(l - 1.0f) <= CHR_UNIT_TOLERANCE;
}

static bool chr_check_vertex(const chr_character_t *c, const chr_mesh_t *m, uint32_t i, const char *src)
{
    const chr_vertex_t *v = &m->vertices[i];
    if (!chr_finite_n(v->pos, 3, CHR_POS_LIMIT_CM) || !chr_finite_n(v->normal, 3, 2.0f) ||
        !chr_finite_n(v->tangent, 4, 2.0f) || !chr_finite_n(v->uv, 2, CHR_POS_LIMIT_CM) ||
        !chr_finite_n(v->weights, 4, 2.0f) || !chr_finite_n(&v->ao, 1, 2.0f)) {
        log_error("%s: mesh '%s' vertex %u: NaN, infinite or out-of-range value", src, m->name, i);
        return false;
    }
    if (!chr_unit3(v->normal) || !chr_unit3(v->tangent) || fabsf(fabsf(v->tangent[3]) - 1.0f) > 0) {
        log_error("%s: mesh '%s' vertex %u: normal/tangent not unit or tangent w not +-1", src, m->name, i);
        return false;
    }
    float sum = 0.0f;
    for (int k = 0; k < CHR_MAX_INFLUENCES; k++) {
        if (v->joints[k] >= (uint32_t)c->skel.joint_count) {
            log_error("%s: mesh '%s' vertex %u: joint index %u >= joint count %d", src, m->name, i, v->joints[k],
                      c->skel.joint_count);
            return false;
        }
        if (v->weights[k] < 0.0f || v->weights[k] > 1.0f) {
            log_error("%s: mesh '%s' vertex %u: weight %g outside [0, 1]", src, m->name, i, (double)v->weights[k]);
            return false;
        }
        if (k > 0 && v->weights[k] > v->weights[k - 1]) {
            log_error("%s: mesh '%s' vertex %u: weights not sorted by decreasing weight", src, m->name, i);
            return false;
        }
        sum += v->weights[k];
    }
    if (fabsf(sum - 1.0f) > CHR_WEIGHT_SUM_TOLERANCE) {
        log_error("%s: mesh '%s' vertex %u: weights sum to %.6f, not 1", src, m->name, i, (double)sum);
        return false;
    }
    if (v->ao < 0.0f || v->ao > 1.0f) {
        log_error("%s: mesh '%s' vertex %u: ao %g outside [0, 1]", src, m->name, i, (double)v->ao);
        return false;
    }
    if (v->material >= c->material_count) {
        log_error("%s: mesh '%s' vertex %u: material %u >= material count %u", src, m->name, i, v->material,
                  c->material_count);
        return false;
    }
    return true;
}

static bool chr_check_deltas(const chr_character_t *c, const char *kind, const char *name, uint32_t mesh,
                             const chr_delta_t *d, uint32_t n, const char *src)
{
    if (mesh >= c->mesh_count) {
        log_error("%s: %s '%s': mesh index %u >= mesh count %u", src, kind, name, mesh, c->mesh_count);
        return false;
    }
    uint32_t vc = c->meshes[mesh].vertex_count;
    if (n > vc) {
        log_error("%s: %s '%s': %u deltas for a mesh of %u vertices", src, kind, name, n, vc);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (d[i].vertex >= vc) {
            log_error("%s: %s '%s' delta %u: vertex index %u >= vertex count %u", src, kind, name, i, d[i].vertex, vc);
            return false;
        }
        if (i > 0 && d[i].vertex <= d[i - 1].vertex) {
            log_error("%s: %s '%s' delta %u: vertex indices not strictly increasing", src, kind, name, i);
            return false;
        }
        if (!chr_finite_n(d[i].dpos, 3, CHR_POS_LIMIT_CM) || !chr_finite_n(d[i].dnormal, 3, 2.0f) ||
            !chr_finite_n(d[i].dtangent, 3, 2.0f) || !chr_finite_n(&d[i].dao, 1, CHR_DAO_LIMIT)) {
            log_error("%s: %s '%s' delta %u: NaN, infinite or out-of-range value", src, kind, name, i);
            return false;
        }
    }
    return true;
}

bool chr_validate(const chr_character_t *c, const char *src)
{
    const skel_t *s = &c->skel;
    if (s->joint_count < 1 || s->joint_count > SKEL_MAX_JOINTS || s->end_count < 0 || s->end_count > SKEL_MAX_ENDS) {
        log_error("%s: joint count %d / end count %d out of range", src, s->joint_count, s->end_count);
        return false;
    }
    for (int j = 0; j < s->joint_count; j++) {
        if (!chr_name_ok(s->joint_name[j])) {
            log_error("%s: joint %d: empty or unterminated name", src, j);
            return false;
        }
        int p = s->joint_parent[j];
        if ((j == 0 && p != -1) || (j > 0 && (p < 0 || p >= j))) {
            log_error("%s: joint %d '%s': parent %d invalid (must be -1 for joint 0, else < %d)", src, j,
                      s->joint_name[j], p, j);
            return false;
        }
        if (!chr_finite_n(s->joint_offset[j], 3, CHR_POS_LIMIT_CM) ||
            !chr_finite_n(c->bind_inverse[j], 16, CHR_MATRIX_LIMIT)) {
            log_error("%s: joint %d '%s': NaN or out-of-range offset/bind matrix", src, j, s->joint_name[j]);
            return false;
        }
    }
    for (int e = 0; e < s->end_count; e++) {
        if (!chr_name_ok(s->end_name[e]) || s->end_parent[e] < 0 || s->end_parent[e] >= s->joint_count ||
            !chr_finite_n(s->end_offset[e], 3, CHR_POS_LIMIT_CM)) {
            log_error("%s: end site %d: bad name, parent %d or offset", src, e, s->end_parent[e]);
            return false;
        }
    }
    if (c->material_count < 1 || c->material_count > CHR_MAX_MATERIALS) {
        log_error("%s: material count %u out of range 1..%d", src, c->material_count, CHR_MAX_MATERIALS);
        return false;
    }
    for (uint32_t i = 0; i < c->material_count; i++) {
        const chr_material_t *m = &c->materials[i];
        if (!chr_name_ok(m->name) || !chr_finite_n(m->color, 4, 1.0f) || !chr_finite_n(&m->roughness, 1, 1.0f) ||
            !chr_finite_n(&m->subsurface, 1, 1.0f)) {
            log_error("%s: material %u: bad name or value", src, i);
            return false;
        }
    }
    if (c->mesh_count < 1 || c->mesh_count > CHR_MAX_MESHES) {
        log_error("%s: mesh count %u out of range 1..%d", src, c->mesh_count, CHR_MAX_MESHES);
        return false;
    }
    for (uint32_t mi = 0; mi < c->mesh_count; mi++) {
        const chr_mesh_t *m = &c->meshes[mi];
        if (!chr_name_ok(m->name)) {
            log_error("%s: mesh %u: empty or unterminated name", src, mi);
            return false;
        }
        if (m->vertex_count < 3 || m->vertex_count > CHR_MAX_VERTICES || m->index_count % 3 != 0 ||
            m->index_count < 3 || m->index_count > CHR_MAX_INDICES) {
            log_error("%s: mesh '%s': vertex count %u / index count %u invalid", src, m->name, m->vertex_count,
                      m->index_count);
            return false;
        }
        for (uint32_t i = 0; i < m->vertex_count; i++)
            if (!chr_check_vertex(c, m, i, src))
                return false;
        for (uint32_t i = 0; i < m->index_count; i++) {
            if (m->indices[i] >= m->vertex_count) {
                log_error("%s: mesh '%s' index %u: vertex %u >= vertex count %u", src, m->name, i, m->indices[i],
                          m->vertex_count);
                return false;
            }
        }
    }
    if (c->shape_count > CHR_MAX_SHAPES || c->corrective_count > CHR_MAX_CORRECTIVES) {
        log_error("%s: shape count %u / corrective count %u too large", src, c->shape_count, c->corrective_count);
        return false;
    }
    for (uint32_t i = 0; i < c->shape_count; i++) {
        const chr_shape_t *sh = &c->shapes[i];
        if (!chr_name_ok(sh->name) || sh->category >= CHR_SHAPE_CATEGORY_COUNT) {
            log_error("%s: shape %u: bad name or category %u", src, i, sh->category);
            return false;
        }
        if (!chr_check_deltas(c, "shape", sh->name, sh->mesh, sh->deltas, sh->delta_count, src))
            return false;
    }
    for (uint32_t i = 0; i < c->corrective_count; i++) {
        const chr_corrective_t *co = &c->correctives[i];
        if (!chr_name_ok(co->name)) {
            log_error("%s: corrective %u: empty or unterminated name", src, i);
            return false;
        }
        if (co->joint >= (uint32_t)s->joint_count) {
            log_error("%s: corrective '%s': joint index %u >= joint count %d", src, co->name, co->joint,
                      s->joint_count);
            return false;
        }
        if (!chr_finite_n(co->axis, 3, 2.0f) || !chr_unit3(co->axis) || !chr_finite_n(&co->angle_zero_deg, 1, 360.0f) ||
            !chr_finite_n(&co->angle_full_deg, 1, 360.0f) || co->angle_full_deg == co->angle_zero_deg) {
            log_error("%s: corrective '%s': bad axis or angle range", src, co->name);
            return false;
        }
        if (!chr_check_deltas(c, "corrective", co->name, co->mesh, co->deltas, co->delta_count, src))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- reading */

static void chr_read_name(reader_t *r, char *dst) { reader_bytes(r, dst, CHR_NAME_MAX); }

static void chr_read_floats(reader_t *r, float *dst, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = reader_f32(r);
}

static void chr_read_delta(reader_t *r, chr_delta_t *d)
{
    d->vertex = reader_u32(r);
    chr_read_floats(r, d->dpos, 3);
    chr_read_floats(r, d->dnormal, 3);
    chr_read_floats(r, d->dtangent, 3);
    d->dao = reader_f32(r);
}

/* Checks that COUNT records of RECORD bytes fit in what R has left. */
static bool chr_fits(const reader_t *r, uint64_t count, uint64_t record)
{
    return reader_ok(r) && count * record <= reader_remaining(r);
}

/* Reports a section whose reads ran past its end (counts were checked
 * first, so this is a belt-and-braces test). */
static bool chr_section_done(const reader_t *r, const char *src, const char *section)
{
    if (reader_ok(r))
        return true;
    log_error("%s: %s section truncated", src, section);
    return false;
}

static bool chr_read_skel(chr_character_t *c, reader_t *r, const char *src)
{
    uint32_t jc = reader_u32(r), ec = reader_u32(r);
    if (!reader_ok(r) || jc < 1 || jc > SKEL_MAX_JOINTS || ec > SKEL_MAX_ENDS) {
        log_error("%s: SKEL: joint count %u (1..%d) / end count %u (0..%d) invalid", src, jc, SKEL_MAX_JOINTS, ec,
                  SKEL_MAX_ENDS);
        return false;
    }
    if ((uint64_t)jc * CHR_JOINT_BYTES + (uint64_t)ec * CHR_END_BYTES != reader_remaining(r)) {
        log_error("%s: SKEL: section size does not match %u joints and %u end sites", src, jc, ec);
        return false;
    }
    skel_t *s = &c->skel;
    s->joint_count = (int)jc;
    s->end_count = (int)ec;
    for (uint32_t j = 0; j < jc; j++) {
        reader_bytes(r, s->joint_name[j], SKEL_NAME_MAX);
        s->joint_parent[j] = (int32_t)reader_u32(r);
        chr_read_floats(r, s->joint_offset[j], 3);
        chr_read_floats(r, c->bind_inverse[j], 16);
    }
    for (uint32_t e = 0; e < ec; e++) {
        reader_bytes(r, s->end_name[e], SKEL_NAME_MAX);
        s->end_parent[e] = (int32_t)reader_u32(r);
        chr_read_floats(r, s->end_offset[e], 3);
    }
    return chr_section_done(r, src, "SKEL");
}

static bool chr_read_matl(chr_character_t *c, reader_t *r, const char *src)
{
    uint32_t n = reader_u32(r);
    if (!reader_ok(r) || n < 1 || n > CHR_MAX_MATERIALS || (uint64_t)n * CHR_MATERIAL_BYTES != reader_remaining(r)) {
        log_error("%s: MATL: material count %u invalid or section size mismatch", src, n);
        return false;
    }
    c->material_count = n;
    for (uint32_t i = 0; i < n; i++) {
        chr_material_t *m = &c->materials[i];
        chr_read_name(r, m->name);
        chr_read_floats(r, m->color, 4);
        m->roughness = reader_f32(r);
        m->subsurface = reader_f32(r);
        (void)reader_f32(r);
        (void)reader_f32(r);
    }
    return chr_section_done(r, src, "MATL");
}

static bool chr_read_mesh(chr_character_t *c, reader_t *r, const char *src)
{
    uint32_t n = reader_u32(r);
    if (!reader_ok(r) || n < 1 || n > CHR_MAX_MESHES) {
        log_error("%s: MESH: mesh count %u out of range 1..%d", src, n, CHR_MAX_MESHES);
        return false;
    }
    for (uint32_t mi = 0; mi < n; mi++) {
        chr_mesh_t *m = &c->meshes[mi];
        if (!chr_fits(r, 1, CHR_MESH_HEADER_BYTES)) {
            log_error("%s: MESH: mesh %u header runs past the section", src, mi);
            return false;
        }
        chr_read_name(r, m->name);
        m->flags = reader_u32(r);
        uint32_t vc = reader_u32(r), ic = reader_u32(r);
        (void)reader_u32(r);
        if (vc < 3 || vc > CHR_MAX_VERTICES || ic < 3 || ic > CHR_MAX_INDICES || ic % 3 != 0) {
            log_error("%s: MESH: mesh %u: vertex count %u / index count %u invalid", src, mi, vc, ic);
            return false;
        }
        if (!chr_fits(r, (uint64_t)vc * CHR_VERTEX_BYTES + (uint64_t)ic * 4, 1)) {
            log_error("%s: MESH: mesh %u: %u vertices and %u indices run past the section", src, mi, vc, ic);
            return false;
        }
        m->vertices = malloc((size_t)vc * sizeof *m->vertices);
        m->indices = malloc((size_t)ic * sizeof *m->indices);
        /* Count the mesh only once its arrays exist, so chr_free() is exact. */
        c->mesh_count = mi + 1;
        if (!m->vertices || !m->indices) {
            log_error("%s: MESH: out of memory for mesh %u", src, mi);
            return false;
        }
        m->vertex_count = vc;
        m->index_count = ic;
        for (uint32_t i = 0; i < vc; i++) {
            chr_vertex_t *v = &m->vertices[i];
            chr_read_floats(r, v->pos, 3);
            chr_read_floats(r, v->normal, 3);
            chr_read_floats(r, v->tangent, 4);
            chr_read_floats(r, v->uv, 2);
            for (int k = 0; k < CHR_MAX_INFLUENCES; k++)
                v->joints[k] = reader_u16(r);
            chr_read_floats(r, v->weights, 4);
            v->ao = reader_f32(r);
            v->material = reader_u32(r);
        }
        for (uint32_t i = 0; i < ic; i++)
            m->indices[i] = reader_u32(r);
    }
    if (reader_remaining(r) != 0) {
        log_error("%s: MESH: %zu unexpected bytes after the last mesh", src, reader_remaining(r));
        return false;
    }
    return chr_section_done(r, src, "MESH");
}

static chr_delta_t *chr_read_deltas(reader_t *r, uint32_t n)
{
    chr_delta_t *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    if (!d)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        chr_read_delta(r, &d[i]);
    return d;
}

static bool chr_read_shap(chr_character_t *c, reader_t *r, const char *src)
{
    uint32_t n = reader_u32(r);
    if (!reader_ok(r) || n > CHR_MAX_SHAPES || !chr_fits(r, n, CHR_SHAPE_HEADER_BYTES)) {
        log_error("%s: SHAP: shape count %u invalid for the section size", src, n);
        return false;
    }
    c->shapes = calloc(n ? n : 1, sizeof *c->shapes);
    if (!c->shapes) {
        log_error("%s: SHAP: out of memory", src);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        chr_shape_t *sh = &c->shapes[i];
        if (!chr_fits(r, 1, CHR_SHAPE_HEADER_BYTES)) {
            log_error("%s: SHAP: shape %u header runs past the section", src, i);
            return false;
        }
        chr_read_name(r, sh->name);
        sh->mesh = reader_u32(r);
        sh->category = reader_u32(r);
        uint32_t dc = reader_u32(r);
        (void)reader_u32(r);
        if (!chr_fits(r, dc, CHR_DELTA_BYTES)) {
            log_error("%s: SHAP: shape %u: %u deltas run past the section", src, i, dc);
            return false;
        }
        sh->deltas = chr_read_deltas(r, dc);
        c->shape_count = i + 1;
        if (!sh->deltas) {
            log_error("%s: SHAP: out of memory for shape %u", src, i);
            return false;
        }
        sh->delta_count = dc;
    }
    if (reader_remaining(r) != 0) {
        log_error("%s: SHAP: %zu unexpected bytes after the last shape", src, reader_remaining(r));
        return false;
    }
    return chr_section_done(r, src, "SHAP");
}

static bool chr_read_corr(chr_character_t *c, reader_t *r, const char *src)
{
    uint32_t n = reader_u32(r);
    if (!reader_ok(r) || n > CHR_MAX_CORRECTIVES || !chr_fits(r, n, CHR_CORRECTIVE_HEADER_BYTES)) {
        log_error("%s: CORR: corrective count %u invalid for the section size", src, n);
        return false;
    }
    c->correctives = calloc(n ? n : 1, sizeof *c->correctives);
    if (!c->correctives) {
        log_error("%s: CORR: out of memory", src);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        chr_corrective_t *co = &c->correctives[i];
        if (!chr_fits(r, 1, CHR_CORRECTIVE_HEADER_BYTES)) {
            log_error("%s: CORR: corrective %u header runs past the section", src, i);
            return false;
        }
        chr_read_name(r, co->name);
        co->mesh = reader_u32(r);
        co->joint = reader_u32(r);
        chr_read_floats(r, co->axis, 3);
        co->angle_zero_deg = reader_f32(r);
        co->angle_full_deg = reader_f32(r);
        uint32_t dc = reader_u32(r);
        if (!chr_fits(r, dc, CHR_DELTA_BYTES)) {
            log_error("%s: CORR: corrective %u: %u deltas run past the section", src, i, dc);
            return false;
        }
        co->deltas = chr_read_deltas(r, dc);
        c->corrective_count = i + 1;
        if (!co->deltas) {
            log_error("%s: CORR: out of memory for corrective %u", src, i);
            return false;
        }
        co->delta_count = dc;
    }
    if (reader_remaining(r) != 0) {
        log_error("%s: CORR: %zu unexpected bytes after the last corrective", src, reader_remaining(r));
        return false;
    }
    return chr_section_done(r, src, "CORR");
}

typedef struct chr_section_t {
    uint32_t id, offset, size;
} chr_section_t;

static bool chr_parse_sections(chr_character_t *c, const uint8_t *data, size_t size, const char *src)
{
    reader_t r = reader_make(data, size);
    uint8_t magic[4];
    reader_bytes(&r, magic, sizeof magic);
    uint32_t version = reader_u32(&r);
    uint32_t file_size = reader_u32(&r);
    uint32_t checksum = reader_u32(&r);
    uint32_t section_count = reader_u32(&r);
    (void)reader_u32(&r);
    if (!reader_ok(&r)) {
        log_error("%s: truncated header (%zu bytes, need %d)", src, size, CHR_HEADER_BYTES);
        return false;
    }
    if (memcmp(magic, CHR_MAGIC, sizeof magic) != 0) {
        log_error("%s: not a character file (bad magic)", src);
        return false;
    }
    if (version != CHR_VERSION) {
        log_error("%s: unsupported version %u (this build reads %d)", src, version, CHR_VERSION);
        return false;
    }
    if (file_size != size) {
        log_error("%s: truncated or padded: header says %u bytes, file has %zu", src, file_size, size);
        return false;
    }
    uint32_t sum = file_checksum32(data + CHR_CHECKSUM_FROM, size - CHR_CHECKSUM_FROM);
    if (sum != checksum) {
        log_error("%s: checksum mismatch (stored %08x, computed %08x): file is corrupt", src, checksum, sum);
        return false;
    }
    if (section_count < 1 || section_count > CHR_MAX_SECTIONS ||
        !chr_fits(&r, section_count, CHR_SECTION_ENTRY_BYTES)) {
        log_error("%s: section count %u invalid", src, section_count);
        return false;
    }
    size_t table_end = CHR_HEADER_BYTES + (size_t)section_count * CHR_SECTION_ENTRY_BYTES;
    chr_section_t found[CHR_SECTION_ID_MAX + 1];
    memset(found, 0, sizeof found);
    for (uint32_t i = 0; i < section_count; i++) {
        chr_section_t s = {reader_u32(&r), reader_u32(&r), reader_u32(&r)};
        if (s.offset < table_end || s.offset % 4 != 0 || s.size > size || s.offset > size - s.size) {
            log_error("%s: section %u (id %u): offset %u size %u outside the file or unaligned", src, i, s.id, s.offset,
                      s.size);
            return false;
        }
        if (s.id < 1 || s.id > CHR_SECTION_ID_MAX)
            continue; /* unknown sections are skipped: later versions may add some */
        if (found[s.id].id != 0) {
            log_error("%s: duplicate %s section", src, CHR_SECTION_NAME[s.id]);
            return false;
        }
        found[s.id] = s;
    }
    for (uint32_t id = 1; id <= CHR_SECTION_ID_MAX; id++) {
        if (found[id].id == 0) {
            log_error("%s: missing %s section", src, CHR_SECTION_NAME[id]);
            return false;
        }
    }
    /* Order matters: meshes are checked against materials and joints. */
    for (uint32_t id = 1; id <= CHR_SECTION_ID_MAX; id++) {
        reader_t sr = reader_make(data + found[id].offset, found[id].size);
        bool ok = false;
        switch (id) {
        case CHR_SECTION_SKEL: ok = chr_read_skel(c, &sr, src); break;
        case CHR_SECTION_MATL: ok = chr_read_matl(c, &sr, src); break;
        case CHR_SECTION_MESH: ok = chr_read_mesh(c, &sr, src); break;
        case CHR_SECTION_SHAP: ok = chr_read_shap(c, &sr, src); break;
        case CHR_SECTION_CORR: ok = chr_read_corr(c, &sr, src); break;
        default: break;
        }
        if (!ok)
            return false;
    }
    return chr_validate(c, src);
}

bool chr_parse(chr_character_t *c, const uint8_t *data, size_t size, const char *src)
{
    memset(c, 0, sizeof *c);
    if (!chr_parse_sections(c, data, size, src)) {
        chr_free(c);
        return false;
    }
    return true;
}

bool chr_load(chr_character_t *c, const char *path)
{
    memset(c, 0, sizeof *c);
    uint8_t *data = NULL;
    size_t size = 0;
    if (!file_read_all(path, CHR_FILE_MAX_BYTES, &data, &size))
        return false;
    bool ok = chr_parse(c, data, size, path);
    file_free(data);
    return ok;
}

void chr_free(chr_character_t *c)
{
    for (uint32_t i = 0; i < c->mesh_count && i < CHR_MAX_MESHES; i++) {
        free(c->meshes[i].vertices);
        free(c->meshes[i].indices);
    }
    if (c->shapes)
        for (uint32_t i = 0; i < c->shape_count; i++)
            free(c->shapes[i].deltas);
    free(c->shapes);
    if (c->correctives)
        for (uint32_t i = 0; i < c->corrective_count; i++)
            free(c->correctives[i].deltas);
    free(c->correctives);
    memset(c, 0, sizeof *c);
}

/* ---------------------------------------------------------------- writing */

typedef struct chr_buf_t {
    uint8_t *data;
    size_t size, cap;
    bool failed;
} chr_buf_t;

static void chr_put(chr_buf_t *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->size + n)
            cap *= 2;
        uint8_t *nd = realloc(b->data, cap);
        if (!nd) {
            b->failed = true;
            return;
        }
        b->data = nd;
        b->cap = cap;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void chr_put_u32(chr_buf_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    chr_put(b, x, 4);
}

static void chr_put_u16(chr_buf_t *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    chr_put(b, x, 2);
}

static void chr_put_f32s(chr_buf_t *b, const float *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        chr_put_u32(b, u);
    }
}

static void chr_put_name(chr_buf_t *b, const char *name)
{
    char tmp[CHR_NAME_MAX];
    memset(tmp, 0, sizeof tmp);
    size_t n = chr_name_len(name);
    if (n > CHR_NAME_MAX - 1)
        n = CHR_NAME_MAX - 1;
    memcpy(tmp, name, n);
    chr_put(b, tmp, sizeof tmp);
}

static void chr_put_deltas(chr_buf_t *b, const chr_delta_t *d, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        chr_put_u32(b, d[i].vertex);
        chr_put_f32s(b, d[i].dpos, 3);
        chr_put_f32s(b, d[i].dnormal, 3);
        chr_put_f32s(b, d[i].dtangent, 3);
        chr_put_f32s(b, &d[i].dao, 1);
    }
}

static void chr_patch_u32(chr_buf_t *b, size_t at, uint32_t v)
{
    if (b->failed || at + 4 > b->size)
        return;
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
    b->data[at + 2] = (uint8_t)(v >> 16);
    b->data[at + 3] = (uint8_t)(v >> 24);
}

static void chr_write_section(const chr_character_t *c, chr_buf_t *b, uint32_t id)
{
    const skel_t *s = &c->skel;
    switch (id) {
    case CHR_SECTION_SKEL:
        chr_put_u32(b, (uint32_t)s->joint_count);
        chr_put_u32(b, (uint32_t)s->end_count);
        for (int j = 0; j < s->joint_count; j++) {
            chr_put_name(b, s->joint_name[j]);
            chr_put_u32(b, (uint32_t)s->joint_parent[j]);
            chr_put_f32s(b, s->joint_offset[j], 3);
            chr_put_f32s(b, c->bind_inverse[j], 16);
        }
        for (int e = 0; e < s->end_count; e++) {
            chr_put_name(b, s->end_name[e]);
            chr_put_u32(b, (uint32_t)s->end_parent[e]);
            chr_put_f32s(b, s->end_offset[e], 3);
        }
        break;
    case CHR_SECTION_MATL: {
        const float zero[2] = {0, 0};
        chr_put_u32(b, c->material_count);
        for (uint32_t i = 0; i < c->material_count; i++) {
            const chr_material_t *m = &c->materials[i];
            chr_put_name(b, m->name);
            chr_put_f32s(b, m->color, 4);
            chr_put_f32s(b, &m->roughness, 1);
            chr_put_f32s(b, &m->subsurface, 1);
            chr_put_f32s(b, zero, 2);
        }
        break;
    }
    case CHR_SECTION_MESH:
        chr_put_u32(b, c->mesh_count);
        for (uint32_t mi = 0; mi < c->mesh_count; mi++) {
            const chr_mesh_t *m = &c->meshes[mi];
            chr_put_name(b, m->name);
            chr_put_u32(b, m->flags);
            chr_put_u32(b, m->vertex_count);
            chr_put_u32(b, m->index_count);
            chr_put_u32(b, 0);
            for (uint32_t i = 0; i < m->vertex_count; i++) {
                const chr_vertex_t *v = &m->vertices[i];
                chr_put_f32s(b, v->pos, 3);
                chr_put_f32s(b, v->normal, 3);
                chr_put_f32s(b, v->tangent, 4);
                chr_put_f32s(b, v->uv, 2);
                for (int k = 0; k < CHR_MAX_INFLUENCES; k++)
                    chr_put_u16(b, v->joints[k]);
                chr_put_f32s(b, v->weights, 4);
                chr_put_f32s(b, &v->ao, 1);
                chr_put_u32(b, v->material);
            }
            for (uint32_t i = 0; i < m->index_count; i++)
                chr_put_u32(b, m->indices[i]);
        }
        break;
    case CHR_SECTION_SHAP:
        chr_put_u32(b, c->shape_count);
        for (uint32_t i = 0; i < c->shape_count; i++) {
            const chr_shape_t *sh = &c->shapes[i];
            chr_put_name(b, sh->name);
            chr_put_u32(b, sh->mesh);
            chr_put_u32(b, sh->category);
            chr_put_u32(b, sh->delta_count);
            chr_put_u32(b, 0);
            chr_put_deltas(b, sh->deltas, sh->delta_count);
        }
        break;
    case CHR_SECTION_CORR:
        chr_put_u32(b, c->corrective_count);
        for (uint32_t i = 0; i < c->corrective_count; i++) {
            const chr_corrective_t *co = &c->correctives[i];
            chr_put_name(b, co->name);
            chr_put_u32(b, co->mesh);
            chr_put_u32(b, co->joint);
            chr_put_f32s(b, co->axis, 3);
            chr_put_f32s(b, &co->angle_zero_deg, 1);
            chr_put_f32s(b, &co->angle_full_deg, 1);
            chr_put_u32(b, co->delta_count);
            chr_put_deltas(b, co->deltas, co->delta_count);
        }
        break;
    default: break;
    }
}

bool chr_serialize(const chr_character_t *c, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (!chr_validate(c, "(character being written)"))
        return false;
    chr_buf_t b = {0};
    chr_put(&b, CHR_MAGIC, sizeof CHR_MAGIC);
    chr_put_u32(&b, CHR_VERSION);
    chr_put_u32(&b, 0); /* file size, patched below */
    chr_put_u32(&b, 0); /* checksum, patched below */
    chr_put_u32(&b, CHR_SECTION_ID_MAX);
    chr_put_u32(&b, 0);
    size_t table = b.size;
    for (uint32_t id = 1; id <= CHR_SECTION_ID_MAX * 3; id++)
        chr_put_u32(&b, 0);
    for (uint32_t id = 1; id <= CHR_SECTION_ID_MAX; id++) {
        size_t start = b.size;
        chr_write_section(c, &b, id);
        size_t at = table + (id - 1) * CHR_SECTION_ENTRY_BYTES;
        chr_patch_u32(&b, at, id);
        chr_patch_u32(&b, at + 4, (uint32_t)start);
        chr_patch_u32(&b, at + 8, (uint32_t)(b.size - start));
    }
    if (b.failed || b.size > UINT32_MAX) {
        free(b.data);
        log_error("(character being written): out of memory or larger than 4 GiB");
        return false;
    }
    chr_patch_u32(&b, 8, (uint32_t)b.size);
    chr_patch_u32(&b, 12, file_checksum32(b.data + CHR_CHECKSUM_FROM, b.size - CHR_CHECKSUM_FROM));
    *data = b.data;
    *size = b.size;
    return true;
}

bool chr_save(const chr_character_t *c, const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    if (!chr_serialize(c, &data, &size))
        return false;
    bool ok = file_write_all(path, data, size);
    free(data);
    return ok;
}

/* ---------------------------------------------------------------- queries */

int chr_find_mesh(const chr_character_t *c, const char *name)
{
    for (uint32_t i = 0; i < c->mesh_count; i++)
        if (strncmp(c->meshes[i].name, name, CHR_NAME_MAX) == 0)
            return (int)i;
    return -1;
}

int chr_find_shape(const chr_character_t *c, const char *name)
{
    for (uint32_t i = 0; i < c->shape_count; i++)
        if (strncmp(c->shapes[i].name, name, CHR_NAME_MAX) == 0)
            return (int)i;
    return -1;
}

uint32_t chr_triangle_count(const chr_character_t *c)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->mesh_count; i++)
        n += c->meshes[i].index_count / 3;
    return n;
}

void chr_shape_scatter_dense(const chr_shape_t *shape, uint32_t vertex_count, float (*out_dpos)[3])
{
    memset(out_dpos, 0, (size_t)vertex_count * sizeof *out_dpos);
    for (uint32_t i = 0; i < shape->delta_count; i++) {
        uint32_t v = shape->deltas[i].vertex;
        if (v < vertex_count)
            memcpy(out_dpos[v], shape->deltas[i].dpos, sizeof out_dpos[v]);
    }
}

/* ---- closed surfaces ------------------------------------------------------ */

/* A directed edge between welded positions, and the mesh of its triangle. */
typedef struct edge_entry_t {
    uint64_t key; /* from << 32 | to */
    uint32_t mesh;
} edge_entry_t;

static int edge_cmp(const void *pa, const void *pb)
{
    uint64_t a = ((const edge_entry_t *)pa)->key, b = ((const edge_entry_t *)pb)->key;
    return (a > b) - (a < b);
}

/* How many edges in the sorted E[0..N) have KEY. */
static size_t edge_count(const edge_entry_t *e, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < n && e[k].key == key)
        k++;
    return k - lo;
}

uint32_t chr_closed_meshes(const chr_character_t *c)
{
    size_t nv = 0, ne = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        nv += c->meshes[m].vertex_count;
        ne += c->meshes[m].index_count;
    }
    float(*pos)[3] = malloc((nv ? nv : 1) * sizeof *pos);
    uint32_t *id = malloc((nv ? nv : 1) * sizeof *id);
    edge_entry_t *e = malloc((ne ? ne : 1) * sizeof *e);
    /* Vertices at the same position are one (seams split them for their
     * normals and uvs, meshes for their use). */
    size_t at = 0;
    for (uint32_t m = 0; pos && nv <= UINT32_MAX && m < c->mesh_count; m++)
        for (uint32_t v = 0; v < c->meshes[m].vertex_count; v++, at++)
            memcpy(pos[at], c->meshes[m].vertices[v].pos, sizeof pos[at]);
    uint32_t groups;
    if (!pos || !id || !e || nv > UINT32_MAX || !weld_positions((const float(*)[3])pos, (uint32_t)nv, id, &groups)) {
        free(pos);
        free(id);
        free(e);
        return 0u;
    }
    /* Every edge of every triangle that has an area, from -> to in its
     * winding. */
    uint32_t base = 0, open = 0;
    size_t n = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        const chr_mesh_t *mesh = &c->meshes[m];
        for (uint32_t t = 0; t + 2 < mesh->index_count; t += 3) {
            uint32_t v[3];
            for (int k = 0; k < 3; k++)
                v[k] = id[base + mesh->indices[t + (uint32_t)k]];
            if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0])
                continue;
            for (int k = 0; k < 3; k++) {
                e[n].key = (uint64_t)v[k] << 32 | v[(k + 1) % 3];
                e[n].mesh = m;
                n++;
            }
        }
        base += mesh->vertex_count;
    }
    qsort(e, n, sizeof *e, edge_cmp);
    /* Closed: each edge is walked once each way, by two triangles facing
     * the same side. A border, a fold of three or more triangles, or a
     * triangle wound the other way leaves its mesh open. */
    for (size_t k = 0; k < n; k++) {
        uint64_t key = e[k].key, back = key << 32 | key >> 32;
        bool twice = (k > 0 && e[k - 1].key == key) || (k + 1 < n && e[k + 1].key == key);
        if (twice || edge_count(e, n, back) != 1)
            open |= 1u << e[k].mesh;
    }
    uint32_t closed = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++)
        if (c->meshes[m].index_count >= 3 && !(open & (1u << m)))
            closed |= 1u << m;
    free(pos);
    free(id);
    free(e);
    return closed;
}

uint32_t chr_cullable_meshes(const chr_character_t *c)
{
    uint32_t cull = chr_closed_meshes(c);
    for (uint32_t m = 0; m < c->mesh_count; m++)
        if (c->meshes[m].flags & CHR_MESH_SINGLE_SIDED)
            cull |= 1u << m;
    return cull;
}
