/* gfx_crowd: many copies of one character, instanced (see gfx_crowd.h).
 * create() uploads the meshes and builds the rings and the three programs
 * (lit, lit without the shadow lookup, shadow caster: the character's
 * shaders with STRIDER_CROWD), and the CPU mode's (gfx_crowd_cpu.c);
 * begin/end_update hand out and close a palette slot; the draw hook culls,
 * chooses the levels of detail, writes the visible lists (CPU mode: the
 * update did) and issues one instanced draw per level and mesh run in each
 * pass. */
#include "render/gfx_crowd_internal.h"
#include "render/gfx_timer.h"

#include "asset/lod.h"
#include "render/gfx_validate.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void draw_hook(const gfx_pass_info_t *info, void *user);

/* The meshes of each level of detail (asset/lod.h): the fraction of the
 * triangles kept at most, and the surface's largest move (fraction of the
 * mesh's extent, ~1.8 m for the body) the simplifier may make for it. A
 * character at level 1 covers 16-48 px of radius (20-60 m at 720p), at
 * level 2 under 16. */
static const float k_lod_fraction[GFX_CROWD_LODS] = {1.0f, 0.3f, 0.1f};
static const float k_lod_error[GFX_CROWD_LODS] = {0.0f, 0.01f, 0.04f};

void gfx_crowd_label_object(GLenum kind, GLuint id, const char *base, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", base, what);
    glObjectLabel(kind, id, -1, name);
}

int gfx_crowd_lod_for_px(const float lod_px[2], float radius_px)
{
    if (radius_px >= lod_px[0])
        return 0;
    return radius_px >= lod_px[1] ? 1 : 2;
}

int gfx_crowd_lod_influences(int lod) { return lod <= 0 ? 4 : lod == 1 ? 2 : 1; }

/* Whether DESC can be honoured here: counts and the context's limits
 * (one line naming the limit when not). */
static bool check_desc(const gfx_crowd_desc_t *d, const char *label)
{
    const chr_character_t *c = d->chr;
    if (!c || c->mesh_count == 0 || c->mesh_count > CHR_MAX_MESHES) {
        log_error("render: %s: no meshes to draw", label);
        return false;
    }
    if (d->max_instances < 1 || d->max_instances > GFX_CROWD_MAX_INSTANCES) {
        log_error("render: %s: max_instances %d out of 1..%d", label, d->max_instances, GFX_CROWD_MAX_INSTANCES);
        return false;
    }
    int joints = (int)c->skel.joint_count;
    if (joints < 1 || joints > SKEL_MAX_JOINTS) {
        log_error("render: %s: %d joints, GPU skinning takes 1 to %d", label, joints, SKEL_MAX_JOINTS);
        return false;
    }
    const gfx_info_t *info = gfx_get_info();
    int64_t need = (int64_t)d->max_instances * joints * GFX_CROWD_MAT_FLOATS * (int64_t)sizeof(float);
    if (info->max_ssbo_block_size < need) {
        log_error("render: %s: %d instances of %d joints need a %lld-byte palette block, "
                  "GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld",
                  label, d->max_instances, joints, (long long)need, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < 1 || info->max_vertex_attribs <= ATTR_INSTANCE) {
        log_error("render: %s: GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS %d, GL_MAX_VERTEX_ATTRIBS %d: "
                  "the crowd needs 1 and %d",
                  label, info->max_vertex_ssbo_blocks, info->max_vertex_attribs, ATTR_INSTANCE + 1);
        return false;
    }
    bool lod_ok = isfinite(d->lod_px[0]) && isfinite(d->lod_px[1]) && d->lod_px[0] >= 0.0f && d->lod_px[1] >= 0.0f;
    if (!lod_ok) {
        log_error("render: %s: level-of-detail thresholds %g, %g px: not finite or negative", label,
                  (double)d->lod_px[0], (double)d->lod_px[1]);
        return false;
    }
    return true;
}

/* The meshes' vertices (bind pose, joints, weights) in one buffer and their
 * indices in another; false (logged) when the counts are out of range or
 * memory runs out. */
static bool upload_meshes(gfx_crowd_t *gc, const chr_character_t *c)
{
    uint64_t vcount = 0;
    gc->mesh_count = c->mesh_count;
    gc->cull_meshes = chr_cullable_meshes(c);
    for (uint32_t m = 0; m < c->mesh_count; m++)
        vcount += c->meshes[m].vertex_count;
    if (vcount == 0 || vcount > CHR_MAX_VERTICES) {
        log_error("render: %s: %llu vertices: nothing to draw or too many", gc->label, (unsigned long long)vcount);
        return false;
    }
    /* Every level through asset/lod: level 0 is the mesh's own triangles,
     * levels 1 and 2 simplified; each in the vertex cache's order. On a
     * GPU whose vertex stage is the bottleneck (an H200 runs vertex
     * shaders on a few of its SMs) that order halves the crowd's draws. */
    chr_lod_t lods[GFX_CROWD_LODS][CHR_MAX_MESHES];
    memset(lods, 0, sizeof lods);
    bool ok = true;
    uint64_t icount = 0;
    for (int l = 0; l < GFX_CROWD_LODS; l++)
        for (uint32_t m = 0; m < c->mesh_count; m++) {
            if (ok)
                ok = chr_lod_build(&c->meshes[m], k_lod_fraction[l], k_lod_error[l], &lods[l][m]);
            gc->index_first[l][m] = (uint32_t)icount;
            gc->index_counts[l][m] = lods[l][m].index_count;
            icount += gc->index_counts[l][m];
            gc->lod_triangles[l] += gc->index_counts[l][m] / 3;
        }
    if (ok && (icount == 0 || icount > (uint64_t)CHR_MAX_INDICES * 2 * GFX_CROWD_LODS)) {
        log_error("render: %s: %llu indices: nothing to draw or too many", gc->label, (unsigned long long)icount);
        ok = false;
    }
    gc->vertex_count = (uint32_t)vcount;
    gc->index_count = (uint32_t)icount;
    crowd_vertex_t *v = ok ? malloc((size_t)vcount * sizeof *v) : NULL;
    uint32_t *idx = ok ? malloc((size_t)icount * sizeof *idx) : NULL;
    if (ok && (!v || !idx)) {
        log_error("render: %s: out of memory for %llu vertices", gc->label, (unsigned long long)vcount);
        ok = false;
    }
    if (!ok) {
        free(v);
        free(idx);
        for (int l = 0; l < GFX_CROWD_LODS; l++)
            for (uint32_t m = 0; m < c->mesh_count; m++)
                chr_lod_free(&lods[l][m]);
        return false;
    }
    uint32_t iv = 0, first[CHR_MAX_MESHES];
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        const chr_mesh_t *mesh = &c->meshes[m];
        first[m] = iv;
        for (uint32_t k = 0; k < mesh->vertex_count; k++, iv++) {
            const chr_vertex_t *s = &mesh->vertices[k];
            crowd_vertex_t *o = &v[iv];
            memcpy(o->pos, s->pos, sizeof o->pos);
            memcpy(o->normal, s->normal, sizeof o->normal);
            memcpy(o->tangent, s->tangent, sizeof o->tangent);
            memcpy(o->uv, s->uv, sizeof o->uv);
            o->ao = s->ao;
            o->material = s->material;
            memcpy(o->joints, s->joints, sizeof o->joints);
            memcpy(o->weights, s->weights, sizeof o->weights);
        }
    }
    for (int l = 0; l < GFX_CROWD_LODS; l++)
        for (uint32_t m = 0; m < c->mesh_count; m++) {
            const uint32_t *src = lods[l][m].indices;
            uint32_t *dst = idx + gc->index_first[l][m];
            for (uint32_t k = 0; k < gc->index_counts[l][m]; k++)
                dst[k] = src[k] + first[m];
            chr_lod_free(&lods[l][m]);
        }
    glCreateBuffers(1, &gc->vbo.id);
    glNamedBufferStorage(gc->vbo.id, (GLsizeiptr)(vcount * sizeof *v), v, 0);
    gfx_crowd_label_object(GL_BUFFER, gc->vbo.id, gc->label, "vertices");
    glCreateBuffers(1, &gc->ibo.id);
    glNamedBufferStorage(gc->ibo.id, (GLsizeiptr)(icount * sizeof *idx), idx, 0);
    gfx_crowd_label_object(GL_BUFFER, gc->ibo.id, gc->label, "indices");
    /* The CPU mode's own vertices and indices come from these; a crowd
     * without it (logged) is still drawn, GPU-skinned. */
    if (!gfx_crowd_cpu_create(gc, c, v, idx, gc->cpu.slot_floats * sizeof(float)))
        gfx_crowd_cpu_destroy(gc);
    free(v);
    free(idx);
    return true;
}

/* One float attribute of the interleaved vertex. */
static void float_attrib(GLuint vao, GLuint attr, GLint size, size_t offset)
{
    glEnableVertexArrayAttrib(vao, attr);
    glVertexArrayAttribFormat(vao, attr, size, GL_FLOAT, GL_FALSE, (GLuint)offset);
    glVertexArrayAttribBinding(vao, attr, BIND_VERTEX);
}

void gfx_crowd_static_attribs(const gfx_crowd_t *gc, GLuint vao)
{
    float_attrib(vao, ATTR_UV, 2, offsetof(crowd_vertex_t, uv));
    float_attrib(vao, ATTR_AO, 1, offsetof(crowd_vertex_t, ao));
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribIFormat(vao, ATTR_COLOR, 1, GL_UNSIGNED_INT, (GLuint)offsetof(crowd_vertex_t, material));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, BIND_VERTEX);
    glVertexArrayVertexBuffer(vao, BIND_INSTANCE, gc->lists.buffer.id, 0, sizeof(uint32_t));
    glVertexArrayBindingDivisor(vao, BIND_INSTANCE, 1);
    glEnableVertexArrayAttrib(vao, ATTR_INSTANCE);
    glVertexArrayAttribIFormat(vao, ATTR_INSTANCE, 1, GL_UNSIGNED_INT, 0);
    glVertexArrayAttribBinding(vao, ATTR_INSTANCE, BIND_INSTANCE);
}

/* The VAO: the interleaved vertex (the formats gfx_character's GPU path
 * uses: integer material and joints) and the instance index, divisor 1,
 * read from the list ring (its slot offset set per frame). The attributes
 * skinning does not change are set up as for the CPU mode's VAO. */
static void make_vao(gfx_crowd_t *gc)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, BIND_VERTEX, gc->vbo.id, 0, sizeof(crowd_vertex_t));
    glVertexArrayElementBuffer(vao, gc->ibo.id);
    float_attrib(vao, ATTR_POSITION, 3, offsetof(crowd_vertex_t, pos));
    float_attrib(vao, ATTR_NORMAL, 3, offsetof(crowd_vertex_t, normal));
    float_attrib(vao, ATTR_TANGENT, 4, offsetof(crowd_vertex_t, tangent));
    float_attrib(vao, ATTR_WEIGHTS, 4, offsetof(crowd_vertex_t, weights));
    glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
    glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, (GLuint)offsetof(crowd_vertex_t, joints));
    glVertexArrayAttribBinding(vao, ATTR_JOINTS, BIND_VERTEX);
    gfx_crowd_static_attribs(gc, vao);
    gfx_crowd_label_object(GL_VERTEX_ARRAY, vao, gc->label, "vao");
    gc->vao.id = vao;
}

bool gfx_crowd_load_programs(gfx_crowd_t *gc, const chr_character_t *c, const char *skin_defines, const char *what,
                             crowd_program_t prog[PROGS])
{
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[PROGS] = {{"character.vert", "character.frag", "", "lit"},
                      {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                      {"character_shadow.vert", "character_shadow.frag", "", "shadow"}};
    float color[MATERIAL_SLOTS][4] = {{0}}, params[MATERIAL_SLOTS][4] = {{0}};
    for (uint32_t i = 0; i < c->material_count && i < MATERIAL_SLOTS; i++) {
        memcpy(color[i], c->materials[i].color, sizeof color[i]);
        params[i][0] = c->materials[i].roughness;
        params[i][1] = c->materials[i].subsurface;
    }
    for (int k = 0; k < PROGS; k++) {
        char defines[192], name[96];
        snprintf(defines, sizeof defines, "%s#define STRIDER_CROWD\n%s", skin_defines, kinds[k].defines);
        snprintf(name, sizeof name, "%s.%s%s", gc->label, what, kinds[k].what);
        crowd_program_t *p = &prog[k];
        if (!gfx_shader_program_load(&p->prog, kinds[k].vs, kinds[k].fs, defines, name))
            return false;
        p->u_influences = glGetUniformLocation(p->prog.id, "u_influences");
        p->u_joint_count = glGetUniformLocation(p->prog.id, "u_joint_count");
        p->u_lod_first = glGetUniformLocation(p->prog.id, "u_lod_first");
        p->u_lod_vertices = glGetUniformLocation(p->prog.id, "u_lod_vertices");
        if (p->u_joint_count >= 0)
            glProgramUniform1i(p->prog.id, p->u_joint_count, gc->joint_count);
        GLint lc = glGetUniformLocation(p->prog.id, "u_material_color");
        GLint lp = glGetUniformLocation(p->prog.id, "u_material_params");
        if (lc >= 0)
            glProgramUniform4fv(p->prog.id, lc, MATERIAL_SLOTS, &color[0][0]);
        if (lp >= 0)
            glProgramUniform4fv(p->prog.id, lp, MATERIAL_SLOTS, &params[0][0]);
    }
    return true;
}

/* The palette ring and its device copies, the sphere arrays and the list
 * ring; false (logged) when a ring cannot be mapped or memory runs out. */
static bool create_rings(gfx_crowd_t *gc)
{
    size_t n = (size_t)gc->max_instances;
    gc->palette_bytes = (size_t)gc->joint_count * GFX_CROWD_MAT_FLOATS * sizeof(float);
    size_t slot = gfx_crowd_align_up(n * gc->palette_bytes);
    if (!gfx_ring_create(&gc->palettes, GFX_CROWD_SLOTS, slot, gc->label, "palettes", "palette ring") ||
        !gfx_ring_create(&gc->lists, GFX_CROWD_SLOTS, gfx_crowd_align_up(LISTS * n * sizeof(uint32_t)), gc->label,
                         "visible_lists", "list ring"))
        return false;
    for (int s = 0; s < GFX_CROWD_SLOTS; s++) {
        char what[32];
        glCreateBuffers(1, &gc->palette_dev[s].id);
        glNamedBufferStorage(gc->palette_dev[s].id, (GLsizeiptr)slot, NULL, 0);
        snprintf(what, sizeof what, "palette[%d]", s);
        gfx_crowd_label_object(GL_BUFFER, gc->palette_dev[s].id, gc->label, what);
    }
    gc->bounds = calloc(GFX_CROWD_SLOTS * n * 4, sizeof *gc->bounds);
    if (!gc->bounds) {
        log_error("render: %s: out of memory for %d bounding spheres", gc->label, gc->max_instances);
        return false;
    }
    gc->stats.palette_slot_bytes = slot;
    return true;
}

gfx_crowd_t *gfx_crowd_create(const gfx_crowd_desc_t *desc)
{
    const char *label = desc && desc->label ? desc->label : "crowd";
    if (!desc || !check_desc(desc, label))
        return NULL;
    gfx_crowd_t *gc = calloc(1, sizeof *gc);
    if (!gc) {
        log_error("render: %s: out of memory", label);
        return NULL;
    }
    snprintf(gc->label, sizeof gc->label, "%s", label);
    gc->max_instances = desc->max_instances;
    gc->every_triangle = desc->every_triangle;
    gc->joint_count = (int)desc->chr->skel.joint_count;
    gc->lod_px[0] = desc->lod_px[0] > 0.0f ? desc->lod_px[0] : GFX_CROWD_LOD1_PX;
    gc->lod_px[1] = desc->lod_px[1] > 0.0f ? desc->lod_px[1] : GFX_CROWD_LOD2_PX;
    gc->visible = true;
    gfx_ring_init(&gc->palettes);
    gfx_ring_init(&gc->lists);
    gfx_ring_init(&gc->cpu.verts);
    size_t cpu_bytes = desc->cpu_slot_bytes;
    if (cpu_bytes == 0) {
        size_t v0 = 0;
        for (uint32_t m = 0; m < desc->chr->mesh_count; m++)
            v0 += desc->chr->meshes[m].vertex_count;
        cpu_bytes = (size_t)gc->max_instances * v0 * CPU_LIT_FLOATS * sizeof(float);
        if (cpu_bytes > GFX_CROWD_CPU_SLOT_BYTES)
            cpu_bytes = GFX_CROWD_CPU_SLOT_BYTES;
    }
    gc->cpu.slot_floats = cpu_bytes / sizeof(float);
    if (!upload_meshes(gc, desc->chr) ||
        !gfx_crowd_load_programs(gc, desc->chr, "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD 1\n", "", gc->prog) ||
        !create_rings(gc)) {
        gfx_crowd_destroy(gc);
        return NULL;
    }
    make_vao(gc);
    if (desc->deform == GFX_CROWD_DEFORM_CPU && !gfx_crowd_set_deform(gc, GFX_CROWD_DEFORM_CPU)) {
        gfx_crowd_destroy(gc);
        return NULL;
    }
    glGenQueries(GPU_TIME_FRAMES * 4, &gc->gpu_time_query[0][0]);
    if (!gfx_add_draw_hook(draw_hook, gc)) {
        gfx_crowd_destroy(gc);
        return NULL;
    }
    gc->stats.gpu_ms = -1.0;
    gc->stats.vertex_count = gc->vertex_count;
    gc->stats.triangle_count = gc->lod_triangles[0];
    memcpy(gc->stats.lod_triangle_count, gc->lod_triangles, sizeof gc->stats.lod_triangle_count);
    log_debug("render: %s: %u vertices, %u / %u / %u triangles by level of detail, %d instances of %d joints",
              gc->label, gc->vertex_count, gc->lod_triangles[0], gc->lod_triangles[1], gc->lod_triangles[2],
              gc->max_instances, gc->joint_count);
    return gc;
}

void gfx_crowd_destroy(gfx_crowd_t *gc)
{
    if (!gc)
        return;
    gfx_remove_draw_hook(draw_hook, gc);
    if (gc->gpu_time_query[0][0])
        glDeleteQueries(GPU_TIME_FRAMES * 4, &gc->gpu_time_query[0][0]);
    if (gc->vao.id)
        glDeleteVertexArrays(1, &gc->vao.id);
    for (int k = 0; k < PROGS; k++)
        gfx_shader_program_free(&gc->prog[k].prog);
    gfx_ring_destroy(&gc->palettes);
    gfx_ring_destroy(&gc->lists);
    for (int s = 0; s < GFX_CROWD_SLOTS; s++)
        if (gc->palette_dev[s].id)
            glDeleteBuffers(1, &gc->palette_dev[s].id);
    GLuint bufs[2] = {gc->vbo.id, gc->ibo.id};
    glDeleteBuffers(2, bufs);
    gfx_crowd_cpu_destroy(gc);
    free(gc->bounds);
    free(gc);
}

bool gfx_crowd_begin_update(gfx_crowd_t *gc, int count, gfx_crowd_stream_t *out)
{
    if (count < 0 || count > gc->max_instances) {
        log_error("render: %s: %d instances asked for, the crowd was created for 0 to %d", gc->label, count,
                  gc->max_instances);
        return false;
    }
    double t0 = gfx_wall_seconds();
    int s = gfx_ring_next(&gc->palettes);
    bool waited = false;
    if (!gfx_ring_wait(&gc->palettes, s, FENCE_TIMEOUT_NS, &waited, &gc->stats.last_wait_ms)) {
        log_error("render: %s: palette ring fence wait failed", gc->label);
        return false;
    }
    gc->stats.fence_waits += waited;
    gfx_ring_begin(&gc->palettes, s);
    gc->writing_count = count;
    gc->writing_deform = gc->deform;
    gc->cpu.laid_out = false;
    /* CPU mode: the jobs read the palettes, so they go to CPU memory. */
    bool cpu = gc->writing_deform == GFX_CROWD_DEFORM_CPU;
    out->palette = cpu ? gc->cpu.palette : (float *)gfx_ring_slot(&gc->palettes, s);
    out->bounds = gc->bounds + (size_t)s * (size_t)gc->max_instances * 4;
    out->joint_count = gc->joint_count;
    out->count = count;
    gc->begin_t0 = t0;
    gc->stats.begin_ms = (gfx_wall_seconds() - t0) * 1e3;
    return true;
}

void gfx_crowd_end_update(gfx_crowd_t *gc)
{
    if (gc->palettes.writing < 0)
        return;
    double t0 = gfx_wall_seconds();
    int s = gc->palettes.writing;
    size_t bytes = (size_t)gc->writing_count * gc->palette_bytes;
    bool cpu = gc->writing_deform == GFX_CROWD_DEFORM_CPU;
    /* A CPU-mode update whose jobs were not handed out (they did not fit)
     * is drawn GPU-skinned: its palettes into the ring. */
    if (cpu && !gc->cpu.laid_out) {
        cpu = false;
        memcpy(gfx_ring_slot(&gc->palettes, s), gc->cpu.palette, bytes);
    }
    gfx_ring_end(&gc->palettes);
    gc->slot_count[s] = gc->writing_count;
    gc->slot_deform[s] = cpu ? GFX_CROWD_DEFORM_CPU : GFX_CROWD_DEFORM_GPU;
    gc->stats.deform = gc->slot_deform[s];
    if (cpu)
        gfx_ring_end(&gc->cpu.verts);
    else
        gc->lists_ready = false; /* the draw hook culls */
    /* The palettes into device memory, before the draws read them. */
    if (bytes > 0 && !cpu)
        glCopyNamedBufferSubData(gc->palettes.buffer.id, gc->palette_dev[s].id,
                                 (GLintptr)((size_t)s * gc->palettes.slot_bytes), 0, (GLsizeiptr)bytes);
    gc->cpu.laid_out = false;
    gc->stats.frames_updated++;
    gc->stats.end_ms = (gfx_wall_seconds() - t0) * 1e3;
}

bool gfx_crowd_set_deform(gfx_crowd_t *gc, gfx_crowd_deform_t deform)
{
    if (deform == GFX_CROWD_DEFORM_CPU && !gc->cpu.ok) {
        log_error("render: %s: no CPU deformation here (see the warning at start); the crowd stays GPU-skinned",
                  gc->label);
        return false;
    }
    gc->deform = deform;
    return true;
}

gfx_crowd_deform_t gfx_crowd_get_deform(const gfx_crowd_t *gc) { return gc->deform; }

bool gfx_crowd_cpu_supported(const gfx_crowd_t *gc) { return gc->cpu.ok; }

void gfx_crowd_set_visible(gfx_crowd_t *gc, bool visible) { gc->visible = visible; }

const gfx_crowd_stats_t *gfx_crowd_get_stats(const gfx_crowd_t *gc) { return &gc->stats; }

/* ---- culling and the visible lists */

/* The six planes (a, b, c, d; a x + b y + c z + d >= 0 inside, |abc| = 1)
 * of the clip volume of M (column-major; Gribb and Hartmann). */
static void frustum_planes(const float m[16], float planes[6][4])
{
    for (int i = 0; i < 3; i++)
        for (int sign = 0; sign < 2; sign++) {
            float *p = planes[2 * i + sign];
            for (int c = 0; c < 4; c++)
                p[c] = m[4 * c + 3] + (sign ? -m[4 * c + i] : m[4 * c + i]);
            float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            float inv = len > 0.0f ? 1.0f / len : 0.0f;
            for (int c = 0; c < 4; c++)
                p[c] *= inv;
        }
}

static bool sphere_inside(const float planes[6][4], const float *s)
{
    for (int i = 0; i < 6; i++)
        if (planes[i][0] * s[0] + planes[i][1] * s[1] + planes[i][2] * s[2] + planes[i][3] < -s[3])
            return false;
    return true;
}

void gfx_crowd_view_init(crowd_view_t *v, const float view_proj[16], const float light_view_proj[16],
                         const gfx_frame_desc_t *frame, bool shadows)
{
    frustum_planes(view_proj, v->view);
    frustum_planes(light_view_proj, v->light);
    for (int c = 0; c < 4; c++)
        v->w_row[c] = view_proj[4 * c + 3];
    v->px_scale = frame->proj[5] * 0.5f * (float)frame->height;
    v->shadows = shadows;
}

/* The sphere S's projected radius in pixels in the main view (clip w
 * from the view-projection's last row, the depth along the view; behind
 * the camera, as if the camera turned round); a camera inside it:
 * infinite. */
static float projected_px(const crowd_view_t *v, const float *s)
{
    float w = fabsf(v->w_row[0] * s[0] + v->w_row[1] * s[1] + v->w_row[2] * s[2] + v->w_row[3]);
    if (w <= s[3])
        return INFINITY;
    return s[3] * v->px_scale / w;
}

bool gfx_crowd_classify(const gfx_crowd_t *gc, const crowd_view_t *v, const float *b, bool *seen, int *lod, bool *casts,
                        int *shadow_lod)
{
    if (!(isfinite(b[0]) && isfinite(b[1]) && isfinite(b[2]) && isfinite(b[3]) && b[3] >= 0.0f))
        return false;
    *lod = gfx_crowd_lod_for_px(gc->lod_px, projected_px(v, b));
    *seen = sphere_inside(v->view, b);
    /* One in view casts its shadow with the level it is drawn with (its
     * self-shadowing matches its surface); one out of view only casts,
     * and one level coarser does. */
    *shadow_lod = !*seen && *lod < GFX_CROWD_LODS - 1 ? *lod + 1 : *lod;
    *casts = v->shadows && sphere_inside(v->light, b);
    return true;
}

uint32_t *gfx_crowd_lists_begin(gfx_crowd_t *gc, int *slot)
{
    int ls = gfx_ring_next(&gc->lists);
    bool waited = false;
    double wait_ms;
    if (!gfx_ring_wait(&gc->lists, ls, FENCE_TIMEOUT_NS, &waited, &wait_ms)) {
        log_error("render: %s: list ring fence wait failed", gc->label);
        return NULL;
    }
    gfx_ring_begin(&gc->lists, ls);
    memset(gc->list_count, 0, sizeof gc->list_count);
    *slot = ls;
    return (uint32_t *)gfx_ring_slot(&gc->lists, ls);
}

void gfx_crowd_lists_end(gfx_crowd_t *gc, int count, int bad, double t0)
{
    int ls = gc->lists.writing;
    gfx_ring_end(&gc->lists);
    GLintptr off = (GLintptr)((size_t)ls * gc->lists.slot_bytes);
    glVertexArrayVertexBuffer(gc->vao.id, BIND_INSTANCE, gc->lists.buffer.id, off, sizeof(uint32_t));
    if (gc->cpu.vao.id)
        glVertexArrayVertexBuffer(gc->cpu.vao.id, BIND_INSTANCE, gc->lists.buffer.id, off, sizeof(uint32_t));
    if (bad > 0 && !gc->bad_bounds_logged) {
        log_warn("render: %s: %d of %d bounding spheres not finite or of negative radius: not drawn (logged once)",
                 gc->label, bad, count);
        gc->bad_bounds_logged = true;
    }
    gc->stats.bad_bounds = bad;
    gc->stats.count = count;
    gc->stats.cull_ms = (gfx_wall_seconds() - t0) * 1e3;
    gc->lists_ready = true;
}

/* Culls the drawn slot's spheres for the main pass and (SHADOWS) the
 * shadow pass, and writes the frame's lists into the next list slot. */
static bool write_lists(gfx_crowd_t *gc, const gfx_pass_info_t *info, bool shadows)
{
    double t0 = gfx_wall_seconds();
    int ls;
    uint32_t *lists = gfx_crowd_lists_begin(gc, &ls);
    if (!lists)
        return false;
    int s = gc->palettes.last, count = gc->slot_count[s];
    const float *bounds = gc->bounds + (size_t)s * (size_t)gc->max_instances * 4;
    crowd_view_t view;
    gfx_crowd_view_init(&view, info->view_proj, info->light_view_proj, info->frame, shadows);
    int bad = 0;
    size_t n = (size_t)gc->max_instances;
    for (int i = 0; i < count; i++) {
        bool seen, casts;
        int lod, slod;
        if (!gfx_crowd_classify(gc, &view, &bounds[4 * i], &seen, &lod, &casts, &slod)) {
            bad++;
            continue;
        }
        int l = GFX_CROWD_PASS_MAIN * GFX_CROWD_LODS + lod;
        if (seen)
            lists[(size_t)l * n + (size_t)gc->list_count[l]++] = (uint32_t)i;
        l = GFX_CROWD_PASS_SHADOW * GFX_CROWD_LODS + slod;
        if (casts)
            lists[(size_t)l * n + (size_t)gc->list_count[l]++] = (uint32_t)i;
    }
    gfx_crowd_lists_end(gc, count, bad, t0);
    return true;
}

/* ---- drawing */

int gfx_crowd_draw_list(const gfx_crowd_t *gc, int pass, int lod)
{
    int l = pass * GFX_CROWD_LODS + lod, draws = 0;
    GLuint base = (GLuint)((size_t)l * (size_t)gc->max_instances);
    for (uint32_t m = 0; m < gc->mesh_count;) {
        bool cull = (gc->cull_meshes >> m) & 1u;
        uint32_t e = m + 1;
        while (e < gc->mesh_count && ((gc->cull_meshes >> e) & 1u) == cull)
            e++;
        uint32_t n = gc->index_first[lod][e - 1] + gc->index_counts[lod][e - 1] - gc->index_first[lod][m];
        if (n > 0) {
            if (cull)
                glEnable(GL_CULL_FACE);
            gfx_validate_draw("crowd");
            glDrawElementsInstancedBaseInstance(GL_TRIANGLES, (GLsizei)n, GL_UNSIGNED_INT,
                                                (const void *)((uintptr_t)gc->index_first[lod][m] * sizeof(uint32_t)),
                                                gc->list_count[l], base);
            if (cull)
                glDisable(GL_CULL_FACE);
            draws++;
        }
        m = e;
    }
    return draws;
}

/* Pass PASS of the frame: every level's list with its influence count
 * (GPU mode) or where its vertices are (CPU mode). */
static void draw_pass(gfx_crowd_t *gc, const gfx_pass_info_t *info, int pass)
{
    int s = gc->palettes.last, count = gc->slot_count[s];
    gfx_crowd_stats_t *st = &gc->stats;
    st->drawn[pass] = st->draws[pass] = 0;
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        st->lod[pass][l] = gc->list_count[pass * GFX_CROWD_LODS + l];
        st->drawn[pass] += st->lod[pass][l];
    }
    st->culled[pass] = count - st->bad_bounds - st->drawn[pass];
    if (st->drawn[pass] == 0)
        return;
    int k = pass == GFX_CROWD_PASS_SHADOW               ? PROG_SHADOW
            : (info->frame->layers & GFX_LAYER_SHADOWS) ? PROG_LIT
                                                        : PROG_NOSHADOW;
    bool cpu = gc->slot_deform[s] == GFX_CROWD_DEFORM_CPU;
    const crowd_program_t *p = &gc->prog[k];
    st->cpu_triangles[pass] = st->cpu_triangles_kept[pass] = 0;
    if (cpu) {
        p = gfx_crowd_cpu_use(gc, k);
        int culled_draws = gfx_crowd_cpu_draw_culled(gc, p, info, pass);
        if (culled_draws >= 0) {
            st->draws[pass] = culled_draws;
            glBindVertexArray(0);
            return;
        }
    } else {
        glUseProgram(p->prog.id);
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, gc->palette_dev[s].id, 0,
                          (GLsizeiptr)((size_t)count * gc->palette_bytes));
        glBindVertexArray(gc->vao.id);
    }
    for (int l = 0; l < GFX_CROWD_LODS; l++) {
        if (gc->list_count[pass * GFX_CROWD_LODS + l] == 0)
            continue;
        if (cpu)
            gfx_crowd_cpu_set_lod(gc, p, l);
        else
            glProgramUniform1i(p->prog.id, p->u_influences, gfx_crowd_lod_influences(l));
        st->draws[pass] += gfx_crowd_draw_list(gc, pass, l);
    }
    glBindVertexArray(0);
}

/* Frame F's GPU time, if both timestamps of each timed pass are back; the
 * ring entry is free again either way. */
static void collect_gpu_time(gfx_crowd_t *gc, int f)
{
    bool *issued = gc->gpu_time_issued[f];
    if (!issued[0] && !issued[1])
        return;
    GLuint *q = gc->gpu_time_query[f];
    if (gfx_timestamp_ready(q[issued[1] ? 3 : 1])) {
        gc->stats.gpu_ms = gfx_timestamp_passes_ms(q, issued, 2);
        gc->stats.gpu_samples++;
    }
    issued[0] = issued[1] = false;
}

/* One pass of the frame (shadow, then main). The first pass of a frame
 * culls for both; the main pass fences what the frame read and collects
 * the oldest frame's GPU time. */
static void draw_hook(const gfx_pass_info_t *info, void *user)
{
    gfx_crowd_t *gc = user;
    if (!gc->visible || gc->palettes.last < 0)
        return;
    int pass = info->pass == GFX_PASS_MAIN ? GFX_CROWD_PASS_MAIN : GFX_CROWD_PASS_SHADOW;
    /* A CPU-mode slot comes with its lists (offsets of skinned vertices). */
    bool cpu = gc->slot_deform[gc->palettes.last] == GFX_CROWD_DEFORM_CPU;
    if (!gc->lists_ready && (cpu || !write_lists(gc, info, pass == GFX_CROWD_PASS_SHADOW)))
        return;
    if (pass == GFX_CROWD_PASS_MAIN && !(info->frame->layers & GFX_LAYER_SHADOWS)) {
        memset(gc->stats.lod[GFX_CROWD_PASS_SHADOW], 0, sizeof gc->stats.lod[0]);
        gc->stats.drawn[GFX_CROWD_PASS_SHADOW] = gc->stats.draws[GFX_CROWD_PASS_SHADOW] = 0;
        gc->stats.culled[GFX_CROWD_PASS_SHADOW] = 0;
    }
    int f = gc->gpu_time_frame;
    glQueryCounter(gc->gpu_time_query[f][2 * pass], GL_TIMESTAMP);
    draw_pass(gc, info, pass);
    glQueryCounter(gc->gpu_time_query[f][2 * pass + 1], GL_TIMESTAMP);
    gc->gpu_time_issued[f][pass] = true;
    if (pass == GFX_CROWD_PASS_MAIN) {
        /* The main pass is the last reader of the palettes, the lists and
         * the skinned vertices. A CPU-mode update's lists stay for another
         * frame drawn without an update; a GPU one's are made per frame. */
        gfx_ring_fence(&gc->palettes, gc->palettes.last);
        gfx_ring_fence(&gc->lists, gc->lists.last);
        if (gc->slot_deform[gc->palettes.last] == GFX_CROWD_DEFORM_CPU)
            gfx_ring_fence(&gc->cpu.verts, gc->cpu.verts.last);
        else
            gc->lists_ready = false;
        gc->gpu_time_frame = (f + 1) % GPU_TIME_FRAMES;
        collect_gpu_time(gc, gc->gpu_time_frame);
    }
}
