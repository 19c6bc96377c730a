#include "render/gfx_mesh.h"

#include "core/log.h"
#include "render/gfx_validate.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <cglm/cglm.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index buffers are 32-bit; keep well inside that range. */
enum { MESH_MAX_VERTICES = 1 << 24 };

void gfx_mesh_builder_init(gfx_mesh_builder_t *b) { memset(b, 0, sizeof *b); }

void gfx_mesh_builder_free(gfx_mesh_builder_t *b)
{
    free(b->v);
    free(b->idx);
    memset(b, 0, sizeof *b);
}

static bool grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

uint32_t gfx_mb_vertex(gfx_mesh_builder_t *b, const float pos[3], const float normal[3], uint32_t rgba)
{
    if (b->failed)
        return 0;
    if (b->vcount >= MESH_MAX_VERTICES || !grow((void **)&b->v, &b->vcap, b->vcount + 1, sizeof *b->v)) {
        b->failed = true;
        return 0;
    }
    gfx_vertex_t *v = &b->v[b->vcount];
    memcpy(v->pos, pos, sizeof v->pos);
    memcpy(v->normal, normal, sizeof v->normal);
    v->rgba = rgba;
    return (uint32_t)b->vcount++;
}

void gfx_mb_triangle(gfx_mesh_builder_t *b, uint32_t a, uint32_t c, uint32_t d)
{
    if (b->failed)
        return;
    if (!grow((void **)&b->idx, &b->icap, b->icount + 3, sizeof *b->idx)) {
        b->failed = true;
        return;
    }
    b->idx[b->icount++] = a;
    b->idx[b->icount++] = c;
    b->idx[b->icount++] = d;
}

void gfx_mb_quad(gfx_mesh_builder_t *b, const float a[3], const float c[3], const float d[3], const float e[3],
                 uint32_t rgba)
{
    vec3 u, v, n;
    glm_vec3_sub((float *)c, (float *)a, u);
    glm_vec3_sub((float *)e, (float *)a, v);
    glm_vec3_cross(u, v, n);
    glm_vec3_normalize(n);
    uint32_t i0 = gfx_mb_vertex(b, a, n, rgba);
    uint32_t i1 = gfx_mb_vertex(b, c, n, rgba);
    uint32_t i2 = gfx_mb_vertex(b, d, n, rgba);
    uint32_t i3 = gfx_mb_vertex(b, e, n, rgba);
    gfx_mb_triangle(b, i0, i1, i2);
    gfx_mb_triangle(b, i0, i2, i3);
}

void gfx_mb_box(gfx_mesh_builder_t *b, const float lo[3], const float hi[3], uint32_t rgba)
{
    float p[8][3];
    for (int i = 0; i < 8; i++) {
        p[i][0] = (i & 1) ? hi[0] : lo[0];
        p[i][1] = (i & 2) ? hi[1] : lo[1];
        p[i][2] = (i & 4) ? hi[2] : lo[2];
    }
    /* Corners are indexed by bits x=1, y=2, z=4; faces wound outwards. */
    gfx_mb_quad(b, p[0], p[4], p[6], p[2], rgba); /* -x */
    gfx_mb_quad(b, p[1], p[3], p[7], p[5], rgba); /* +x */
    gfx_mb_quad(b, p[0], p[1], p[5], p[4], rgba); /* -y */
    gfx_mb_quad(b, p[2], p[6], p[7], p[3], rgba); /* +y */
    gfx_mb_quad(b, p[0], p[2], p[3], p[1], rgba); /* -z */
    gfx_mb_quad(b, p[4], p[5], p[7], p[6], rgba); /* +z */
}

void gfx_mb_capsule(gfx_mesh_builder_t *b, float x, float z, float y0, float y1, float r, int segments, uint32_t rgba)
{
    /* Rings from the bottom pole to the top pole: a hemisphere, the cylinder
     * (two rings at the same latitude), and the top hemisphere. */
    const int half_rings = segments / 4 > 2 ? segments / 4 : 2;
    const int rings = 2 * half_rings + 2;
    float mid0 = y0 + r, mid1 = y1 - r;
    if (mid1 < mid0)
        mid1 = mid0;
    uint32_t first = (uint32_t)b->vcount;
    for (int ring = 0; ring < rings; ring++) {
        float lat, cy;
        if (ring <= half_rings) {
            lat = -GLM_PI_2f + GLM_PI_2f * (float)ring / (float)half_rings;
            cy = mid0;
        } else {
            lat = GLM_PI_2f * (float)(ring - half_rings - 1) / (float)half_rings;
            cy = mid1;
        }
        for (int s = 0; s <= segments; s++) {
            float lon = 2.0f * GLM_PIf * (float)s / (float)segments;
            float n[3] = {cosf(lat) * sinf(lon), sinf(lat), cosf(lat) * cosf(lon)};
            float p[3] = {x + r * n[0], cy + r * n[1], z + r * n[2]};
            gfx_mb_vertex(b, p, n, rgba);
        }
    }
    const uint32_t stride = (uint32_t)segments + 1;
    for (int ring = 0; ring + 1 < rings; ring++) {
        for (int s = 0; s < segments; s++) {
            uint32_t a = first + (uint32_t)ring * stride + (uint32_t)s;
            uint32_t c = a + stride;
            gfx_mb_triangle(b, a, a + 1, c + 1);
            gfx_mb_triangle(b, a, c + 1, c);
        }
    }
}

void gfx_mb_cone(gfx_mesh_builder_t *b, const float base[3], const float tip[3], float r, int segments, uint32_t rgba)
{
    vec3 axis, u, v, helper = {0.0f, 1.0f, 0.0f};
    glm_vec3_sub((float *)tip, (float *)base, axis);
    float len = glm_vec3_norm(axis);
    glm_vec3_normalize(axis);
    if (fabsf(axis[1]) > 0.9f)
        glm_vec3_copy((vec3){1.0f, 0.0f, 0.0f}, helper);
    glm_vec3_crossn(axis, helper, u);
    glm_vec3_crossn(axis, u, v);
    /* Side normals lean towards the tip by the cone's half-angle. */
    float slope = r / (len > 1e-4f ? len : 1e-4f);
    for (int s = 0; s < segments; s++) {
        float a0 = 2.0f * GLM_PIf * (float)s / (float)segments;
        float a1 = 2.0f * GLM_PIf * (float)(s + 1) / (float)segments;
        vec3 d0, d1, p0, p1, n0, n1, nt, nb;
        glm_vec3_scale(u, cosf(a0), d0);
        glm_vec3_muladds(v, sinf(a0), d0);
        glm_vec3_scale(u, cosf(a1), d1);
        glm_vec3_muladds(v, sinf(a1), d1);
        glm_vec3_copy((float *)base, p0);
        glm_vec3_muladds(d0, r, p0);
        glm_vec3_copy((float *)base, p1);
        glm_vec3_muladds(d1, r, p1);
        glm_vec3_copy(d0, n0);
        glm_vec3_muladds(axis, slope, n0);
        glm_vec3_normalize(n0);
        glm_vec3_copy(d1, n1);
        glm_vec3_muladds(axis, slope, n1);
        glm_vec3_normalize(n1);
        glm_vec3_add(n0, n1, nt);
        glm_vec3_normalize(nt);
        uint32_t i0 = gfx_mb_vertex(b, p0, n0, rgba);
        uint32_t i1 = gfx_mb_vertex(b, p1, n1, rgba);
        uint32_t i2 = gfx_mb_vertex(b, tip, nt, rgba);
        gfx_mb_triangle(b, i0, i1, i2);
        glm_vec3_negate_to(axis, nb);
        uint32_t j0 = gfx_mb_vertex(b, base, nb, rgba);
        uint32_t j1 = gfx_mb_vertex(b, p1, nb, rgba);
        uint32_t j2 = gfx_mb_vertex(b, p0, nb, rgba);
        gfx_mb_triangle(b, j0, j1, j2);
    }
}

/* The buffers and VAO of B's vertices and of INDICES (B's, INDEX_BYTES each). */
static bool upload(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const void *indices, int index_bytes, const char *label)
{
    char lbl[128];
    glCreateBuffers(1, &m->vbo.id);
    glNamedBufferStorage(m->vbo.id, (GLsizeiptr)b->vcount * (GLsizeiptr)sizeof(gfx_vertex_t), b->v, 0);
    snprintf(lbl, sizeof lbl, "%s.vertices", label);
    glObjectLabel(GL_BUFFER, m->vbo.id, -1, lbl);
    glCreateBuffers(1, &m->ibo.id);
    glNamedBufferStorage(m->ibo.id, (GLsizeiptr)b->icount * (GLsizeiptr)index_bytes, indices, 0);
    m->index_bytes = index_bytes;
    snprintf(lbl, sizeof lbl, "%s.indices", label);
    glObjectLabel(GL_BUFFER, m->ibo.id, -1, lbl);

    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, m->vbo.id, 0, sizeof(gfx_vertex_t));
    glVertexArrayElementBuffer(vao, m->ibo.id);
    glEnableVertexArrayAttrib(vao, ATTR_POSITION);
    glVertexArrayAttribFormat(vao, ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, offsetof(gfx_vertex_t, pos));
    glVertexArrayAttribBinding(vao, ATTR_POSITION, 0);
    glEnableVertexArrayAttrib(vao, ATTR_NORMAL);
    glVertexArrayAttribFormat(vao, ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, offsetof(gfx_vertex_t, normal));
    glVertexArrayAttribBinding(vao, ATTR_NORMAL, 0);
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribFormat(vao, ATTR_COLOR, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(gfx_vertex_t, rgba));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, 0);
    snprintf(lbl, sizeof lbl, "%s.vao", label);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, lbl);
    m->vao.id = vao;
    m->index_count = b->icount;
    return true;
}

/* False (logged) for a failed or empty builder. */
static bool uploadable(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const char *label)
{
    memset(m, 0, sizeof *m);
    if (b->failed) {
        log_error("render: out of memory building mesh '%s'", label);
        return false;
    }
    return b->vcount > 0 && b->icount > 0;
}

bool gfx_mesh_upload(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const char *label)
{
    return uploadable(m, b, label) && upload(m, b, b->idx, (int)sizeof(uint32_t), label);
}

bool gfx_mesh_upload_short(gfx_mesh_t *m, const gfx_mesh_builder_t *b, const char *label)
{
    if (!uploadable(m, b, label))
        return false;
    uint16_t *idx = malloc((size_t)b->icount * sizeof *idx);
    if (!idx) {
        log_error("render: out of memory for the indices of mesh '%s'", label);
        return false;
    }
    for (int i = 0; i < b->icount; i++) {
        if (b->idx[i] > UINT16_MAX) {
            log_error("render: mesh '%s': index %u does not fit 16 bits", label, b->idx[i]);
            free(idx);
            return false;
        }
        idx[i] = (uint16_t)b->idx[i];
    }
    bool ok = upload(m, b, idx, (int)sizeof *idx, label);
    free(idx);
    return ok;
}

void gfx_mesh_draw(const gfx_mesh_t *m)
{
    if (!m->vao.id || m->index_count == 0)
        return;
    glBindVertexArray(m->vao.id);
    gfx_validate_draw("mesh");
    glDrawElements(GL_TRIANGLES, m->index_count, m->index_bytes == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT, NULL);
}

void gfx_mesh_free(gfx_mesh_t *m)
{
    if (m->vao.id)
        glDeleteVertexArrays(1, &m->vao.id);
    if (m->vbo.id)
        glDeleteBuffers(1, &m->vbo.id);
    if (m->ibo.id)
        glDeleteBuffers(1, &m->ibo.id);
    memset(m, 0, sizeof *m);
}
