#include "bench/gpu/gfx_morph_bench.h"

#include "bench/bench_time.h"
#include "core/log.h"
#include "render/gfx_morph_records.h"
#include "render/gfx_shader.h"
#include "render/gfx_validate.h"

#include "shaders/morph_bench.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GFX_MORPH_VERTEX_FLOATS * 4 == MORPH_BENCH_VERTEX_BYTES, "morph vertex size");
_Static_assert(MORPH_DELTA_VEC4S * 16 == MORPH_BENCH_VERTEX_BYTES, "morph.glsl record = three vec4");

/* A morph.glsl delta record is three vec4, like a morph vertex. */
enum { RECORD_BYTES = MORPH_BENCH_VERTEX_BYTES };
_Static_assert((int)GFX_MORPH_DELTA_FLOATS == (int)GFX_MORPH_CPU_DELTA_FLOATS, "the desc's deltas are bshape's");
/* How long run() waits for a ring slot's fence before calling it a GL
 * failure, in ns (a frame of this benchmark takes well under a second). */
#define RING_WAIT_NS 10000000000ull

static const char *const k_method_label[GFX_MORPH_METHOD_COUNT] = {"ssbo_dense", "ssbo_sparse", "tf_multipass",
                                                                   "compute_dense", "compute_sparse"};

static bool is_compute(gfx_morph_method_t m) { return m == GFX_MORPH_COMPUTE_DENSE || m == GFX_MORPH_COMPUTE_SPARSE; }
/* The layout a one-pass method reads. */
static bool is_dense(gfx_morph_method_t m) { return m == GFX_MORPH_SSBO_DENSE || m == GFX_MORPH_COMPUTE_DENSE; }

/* A vertex-only program: rasterisation is discarded and the output is
 * captured by the xfb_* qualifiers in the shader. */
static bool load_vertex_program(gfx_program_t *out, const char *name, const char *defines, const char *label)
{
    gfx_shader_program_desc_t d = {.vs = name, .defines = defines, .label = label};
    return gfx_shader_program_build(out, &d);
}

static void label_buffer(gfx_buffer_t b, const char *label, const char *what)
{
    char lbl[128];
    snprintf(lbl, sizeof lbl, "%s.%s", label, what);
    glObjectLabel(GL_BUFFER, b.id, -1, lbl);
}

/* Immutable storage written once through a write mapping, so large delta
 * sets need no second CPU copy. The writer fills all BYTES of the mapping. */
typedef void (*record_writer_t)(const gfx_morph_bench_desc_t *d, float *out);

static bool upload_records(gfx_buffer_t *buf, size_t bytes, const gfx_morph_bench_desc_t *d, record_writer_t write,
                           const char *label, const char *what)
{
    glCreateBuffers(1, &buf->id);
    glNamedBufferStorage(buf->id, (GLsizeiptr)(bytes ? bytes : RECORD_BYTES), NULL, GL_MAP_WRITE_BIT);
    if (glGetError() != GL_NO_ERROR) {
        log_error("%s: cannot allocate %zu bytes of GPU memory for the %s", label, bytes, what);
        return false;
    }
    label_buffer(*buf, label, what);
    if (!bytes)
        return true;
    float *map = glMapNamedBufferRange(buf->id, 0, (GLsizeiptr)bytes, GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
    if (!map) {
        log_error("%s: cannot map the %s for upload", label, what);
        return false;
    }
    write(d, map);
    return glUnmapNamedBuffer(buf->id) == GL_TRUE;
}

static void write_base(const gfx_morph_bench_desc_t *d, float *o)
{
    for (uint32_t v = 0; v < d->vertex_count; v++, o += GFX_MORPH_VERTEX_FLOATS) {
        memcpy(o, d->positions + (size_t)v * 3, 3 * sizeof(float));
        o[3] = d->ao[v];
        memcpy(o + 4, d->normals + (size_t)v * 3, 3 * sizeof(float));
        o[7] = 0.0f;
        memcpy(o + 8, d->tangents + (size_t)v * 4, 4 * sizeof(float));
    }
}

static void write_dense(const gfx_morph_bench_desc_t *d, float *o)
{
    gfx_morph_records_dense(d->dense, d->target_count, d->vertex_count, o);
}

static void write_sparse(const gfx_morph_bench_desc_t *d, float *o)
{
    gfx_morph_records_sparse(d->pair_delta, d->pair_target, d->pair_count, o);
}

/* The sparse offsets, then each pair's target (morph.glsl). */
static void write_offsets(const gfx_morph_bench_desc_t *d, float *o)
{
    memcpy(o, d->vertex_offset, ((size_t)d->vertex_count + 1) * sizeof(uint32_t));
    memcpy(o + d->vertex_count + 1, d->pair_target, (size_t)d->pair_count * sizeof(uint32_t));
}

static void set_reason(gfx_morph_bench_t *b, gfx_morph_method_t m, const char *why)
{
    b->ready[m] = false;
    snprintf(b->reason[m], GFX_MORPH_REASON_MAX, "%s", why);
}

/* Morph vertices from BUF as three vec4 attributes at LOC.. on BINDING. */
static void vao_morph_vertices(GLuint vao, GLuint binding, GLuint loc)
{
    for (GLuint k = 0; k < 3; k++) {
        glEnableVertexArrayAttrib(vao, loc + k);
        glVertexArrayAttribFormat(vao, loc + k, 4, GL_FLOAT, GL_FALSE, k * 16u);
        glVertexArrayAttribBinding(vao, loc + k, binding);
    }
}

static void build_vertex_arrays(gfx_morph_bench_t *b, const char *label)
{
    char lbl[128];
    /* SSBO methods: the bind pose as the game's attributes. */
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, 0, b->base.id, 0, MORPH_BENCH_VERTEX_BYTES);
    static const struct {
        GLuint loc;
        GLint size;
        GLuint offset;
    } attrs[] = {{ATTR_POSITION, 3, MORPH_BENCH_OFFSET_POS_AO},
                 {ATTR_AO, 1, MORPH_BENCH_OFFSET_POS_AO + 12},
                 {ATTR_NORMAL, 3, MORPH_BENCH_OFFSET_NORMAL},
                 {ATTR_TANGENT, 4, MORPH_BENCH_OFFSET_TANGENT}};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        glEnableVertexArrayAttrib(vao, attrs[i].loc);
        glVertexArrayAttribFormat(vao, attrs[i].loc, attrs[i].size, GL_FLOAT, GL_FALSE, attrs[i].offset);
        glVertexArrayAttribBinding(vao, attrs[i].loc, 0);
    }
    snprintf(lbl, sizeof lbl, "%s.vao_base", label);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, lbl);
    b->vao_base.id = vao;

    /* Stream-out accumulation: binding 0 = running sum, 1..4 = shape slots
     * (their buffer offsets change per pass). */
    glCreateVertexArrays(1, &vao);
    vao_morph_vertices(vao, 0, MORPH_TF_ATTR_ACC);
    for (GLuint k = 0; k < MORPH_TF_SHAPES_PER_PASS; k++) {
        GLuint locs[3] = {MORPH_TF_ATTR_DPOS_AO + k, MORPH_TF_ATTR_DNORMAL + k, MORPH_TF_ATTR_DTANGENT + k};
        GLint sizes[3] = {4, 3, 3};
        for (int a = 0; a < 3; a++) {
            glEnableVertexArrayAttrib(vao, locs[a]);
            glVertexArrayAttribFormat(vao, locs[a], sizes[a], GL_FLOAT, GL_FALSE, (GLuint)a * 16u);
            glVertexArrayAttribBinding(vao, locs[a], 1 + k);
        }
    }
    snprintf(lbl, sizeof lbl, "%s.vao_tf", label);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, lbl);
    b->vao_tf.id = vao;

    /* Final pass: binding 0 = running sum, 1 = base. */
    glCreateVertexArrays(1, &vao);
    vao_morph_vertices(vao, 0, MORPH_TF_ATTR_ACC);
    vao_morph_vertices(vao, 1, MORPH_TF_ATTR_BASE);
    glVertexArrayVertexBuffer(vao, 1, b->base.id, 0, MORPH_BENCH_VERTEX_BYTES);
    snprintf(lbl, sizeof lbl, "%s.vao_tf_finish", label);
    glObjectLabel(GL_VERTEX_ARRAY, vao, -1, lbl);
    b->vao_finish.id = vao;
}

static size_t align_up(size_t v, size_t a) { return a ? (v + a - 1) / a * a : v; }

/* The methods asked for, each with a reason when it cannot run for want of
 * the deltas it reads. */
static void pick_methods(gfx_morph_bench_t *b, const gfx_morph_bench_desc_t *d)
{
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
        b->ready[m] = d->methods[m];
        if (!d->methods[m])
            set_reason(b, (gfx_morph_method_t)m, "not asked for");
    }
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
        bool dense = is_dense((gfx_morph_method_t)m) || m == GFX_MORPH_TF_MULTIPASS;
        if (b->ready[m] && dense && !d->dense)
            set_reason(b, (gfx_morph_method_t)m, "no dense deltas given");
        if (b->ready[m] && !dense && !d->vertex_offset)
            set_reason(b, (gfx_morph_method_t)m, "no sparse deltas given");
    }
}

/* One glBindBufferRange must cover a whole layout: a method whose deltas
 * exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE gets a reason; the layouts the
 * others need are *NEED_DENSE_OUT and *NEED_SPARSE_OUT. */
static void fit_blocks(gfx_morph_bench_t *b, size_t dense_bytes, size_t sparse_bytes, bool *need_dense_out,
                       bool *need_sparse_out)
{
    const gfx_info_t *info = gfx_get_info();
    char why[GFX_MORPH_REASON_MAX];
    bool need_dense = b->ready[GFX_MORPH_TF_MULTIPASS], need_sparse = false;
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
        if (m == GFX_MORPH_TF_MULTIPASS || !b->ready[m])
            continue;
        bool dense = is_dense((gfx_morph_method_t)m);
        size_t bytes = dense ? dense_bytes : sparse_bytes;
        if ((int64_t)bytes > info->max_ssbo_block_size) {
            snprintf(why, sizeof why, "%s deltas %.0f MB > GL_MAX_SHADER_STORAGE_BLOCK_SIZE %.0f MB",
                     dense ? "dense" : "sparse", (double)bytes / 1048576.0,
                     (double)info->max_ssbo_block_size / 1048576.0);
            set_reason(b, (gfx_morph_method_t)m, why);
            continue;
        }
        need_dense |= dense;
        need_sparse |= !dense;
    }
    *need_dense_out = need_dense;
    *need_sparse_out = need_sparse;
}

/* The running sums (two ping-pong accumulators, the output, a buffer of
 * zeros), the persistently mapped ring of active lists and its per-frame
 * copies; false (logged) when the ring cannot be made. */
static bool create_sums_and_ring(gfx_morph_bench_t *b, const char *label, size_t vbytes, uint32_t tc)
{
    static const char *const sum_names[4] = {"tf_acc0", "tf_acc1", "out", "tf_zero"};
    gfx_buffer_t *sums[4] = {&b->acc[0], &b->acc[1], &b->out, &b->zero};
    for (int k = 0; k < 4; k++) {
        glCreateBuffers(1, &sums[k]->id);
        glNamedBufferStorage(sums[k]->id, (GLsizeiptr)(vbytes ? vbytes : RECORD_BYTES), NULL, 0);
        label_buffer(*sums[k], label, sum_names[k]);
    }
    /* Every pass reads a running sum, the first one this buffer of zeros:
     * an enabled attribute with no buffer is undefined in GL (NVIDIA's
     * driver crashed on it; render/gfx_validate.h). */
    const GLuint zero_bits = 0u;
    glClearNamedBufferData(b->zero.id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero_bits);
    /* The ring: per slot the dense active list (header + target_count
     * entries) or the sparse weight table, whichever is larger. */
    GLint align = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    size_t slot = MORPH_ACTIVE_HEADER_BYTES + (size_t)tc * 2 * sizeof(uint32_t);
    b->ring_slot_bytes = align_up(slot, (size_t)(align > 0 ? align : 256));
    glCreateBuffers(1, &b->ring.id);
    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glNamedBufferStorage(b->ring.id, (GLsizeiptr)(b->ring_slot_bytes * GFX_MORPH_RING), NULL, flags);
    b->ring_map = glMapNamedBufferRange(b->ring.id, 0, (GLsizeiptr)(b->ring_slot_bytes * GFX_MORPH_RING), flags);
    label_buffer(b->ring, label, "active_ring");
    for (int i = 0; i < GFX_MORPH_RING; i++) {
        glCreateBuffers(1, &b->frame_data[i].id);
        glNamedBufferStorage(b->frame_data[i].id, (GLsizeiptr)b->ring_slot_bytes, NULL, 0);
        label_buffer(b->frame_data[i], label, "active_frame");
    }
    if (!b->ring_map || glGetError() != GL_NO_ERROR) {
        log_error("%s: cannot create the persistent-mapped active-list ring", label);
        return false;
    }
    return true;
}

/* The programs of the methods still ready; false when one fails to build. */
static bool build_programs(gfx_morph_bench_t *b, const char *label)
{
    bool progs_ok = true;
    char lbl[128];
    if (b->ready[GFX_MORPH_SSBO_DENSE]) {
        snprintf(lbl, sizeof lbl, "%s.%s", label, k_method_label[GFX_MORPH_SSBO_DENSE]);
        progs_ok &= load_vertex_program(&b->prog[GFX_MORPH_SSBO_DENSE], "morph_bench.vert",
                                        "#define MORPH_LAYOUT MORPH_LAYOUT_DENSE", lbl);
    }
    if (b->ready[GFX_MORPH_SSBO_SPARSE]) {
        snprintf(lbl, sizeof lbl, "%s.%s", label, k_method_label[GFX_MORPH_SSBO_SPARSE]);
        progs_ok &= load_vertex_program(&b->prog[GFX_MORPH_SSBO_SPARSE], "morph_bench.vert",
                                        "#define MORPH_LAYOUT MORPH_LAYOUT_SPARSE", lbl);
    }
    for (int m = GFX_MORPH_COMPUTE_DENSE; m <= GFX_MORPH_COMPUTE_SPARSE; m++) {
        if (!b->ready[m])
            continue;
        snprintf(lbl, sizeof lbl, "%s.%s", label, k_method_label[m]);
        gfx_shader_program_desc_t cd = {.cs = "morph_bench.comp",
                                        .defines = is_dense((gfx_morph_method_t)m)
                                                       ? "#define MORPH_LAYOUT MORPH_LAYOUT_DENSE\n"
                                                       : "#define MORPH_LAYOUT MORPH_LAYOUT_SPARSE\n",
                                        .label = lbl};
        progs_ok &= gfx_shader_program_build(&b->prog[m], &cd);
    }
    if (b->ready[GFX_MORPH_TF_MULTIPASS]) {
        snprintf(lbl, sizeof lbl, "%s.tf_pass", label);
        progs_ok &= load_vertex_program(&b->prog[GFX_MORPH_TF_MULTIPASS], "morph_tf.vert", NULL, lbl);
        snprintf(lbl, sizeof lbl, "%s.tf_finish", label);
        progs_ok &= load_vertex_program(&b->tf_finish, "morph_tf.vert", "#define MORPH_TF_FINISH", lbl);
    }
    return progs_ok;
}

bool gfx_morph_bench_create(gfx_morph_bench_t *b, const gfx_morph_bench_desc_t *d)
{
    memset(b, 0, sizeof *b);
    const char *label = d->label ? d->label : "morph_bench";
    b->vertex_count = d->vertex_count;
    b->target_count = d->target_count;
    pick_methods(b, d);

    uint32_t tc = d->target_count ? d->target_count : 1;
    b->weight_scratch = calloc(tc, sizeof *b->weight_scratch);
    b->list_target = calloc(tc, sizeof *b->list_target);
    b->list_weight = calloc(tc, sizeof *b->list_weight);
    if (!b->weight_scratch || !b->list_target || !b->list_weight) {
        log_error("%s: out of memory for %u targets", label, d->target_count);
        gfx_morph_bench_destroy(b);
        return false;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
    size_t vbytes = (size_t)d->vertex_count * MORPH_BENCH_VERTEX_BYTES;
    size_t dense_bytes = (size_t)d->target_count * d->vertex_count * RECORD_BYTES;
    size_t sparse_bytes = (size_t)d->pair_count * RECORD_BYTES;
    bool need_dense, need_sparse;
    fit_blocks(b, dense_bytes, sparse_bytes, &need_dense, &need_sparse);

    if (!upload_records(&b->base, vbytes, d, write_base, label, "base") ||
        (need_dense && !upload_records(&b->dense, dense_bytes, d, write_dense, label, "dense_deltas")) ||
        (need_sparse && !upload_records(&b->sparse, sparse_bytes, d, write_sparse, label, "sparse_deltas")) ||
        (need_sparse && !upload_records(&b->offsets, ((size_t)d->vertex_count + 1 + d->pair_count) * sizeof(uint32_t),
                                        d, write_offsets, label, "sparse_offsets"))) {
        gfx_morph_bench_destroy(b);
        return false;
    }
    if (!create_sums_and_ring(b, label, vbytes, tc)) {
        gfx_morph_bench_destroy(b);
        return false;
    }

    if (!build_programs(b, label)) {
        gfx_morph_bench_destroy(b);
        return false;
    }
    char lbl[128];
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++) {
        GLuint p = b->prog[m].id;
        if (!p || m == GFX_MORPH_TF_MULTIPASS)
            continue;
        glProgramUniform1i(p, glGetUniformLocation(p, "u_morph_first_vertex"), 0);
        glProgramUniform1ui(p, glGetUniformLocation(p, "u_morph_vertex_count"), d->vertex_count);
        glProgramUniform1ui(p, glGetUniformLocation(p, "u_morph_target_count"), d->target_count);
    }
    if (b->prog[GFX_MORPH_TF_MULTIPASS].id)
        b->loc_tf_weight = glGetUniformLocation(b->prog[GFX_MORPH_TF_MULTIPASS].id, "u_tf_weight");
    build_vertex_arrays(b, label);
    glCreateTransformFeedbacks(1, &b->tfo);
    snprintf(lbl, sizeof lbl, "%s.xfb", label);
    glObjectLabel(GL_TRANSFORM_FEEDBACK, b->tfo, -1, lbl);
    glCreateQueries(GL_TIME_ELAPSED, 1, &b->query.id);
    snprintf(lbl, sizeof lbl, "%s.query", label);
    glObjectLabel(GL_QUERY, b->query.id, -1, lbl);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("%s: GL error 0x%x while creating the benchmark objects", label, err);
        gfx_morph_bench_destroy(b);
        return false;
    }
    return true;
}

void gfx_morph_bench_destroy(gfx_morph_bench_t *b)
{
    for (int m = 0; m < GFX_MORPH_METHOD_COUNT; m++)
        gfx_shader_program_free(&b->prog[m]);
    gfx_shader_program_free(&b->tf_finish);
    gfx_buffer_t *bufs[] = {&b->base, &b->dense, &b->sparse,        &b->offsets,       &b->acc[0],       &b->acc[1],
                            &b->out,  &b->zero,  &b->frame_data[0], &b->frame_data[1], &b->frame_data[2]};
    _Static_assert(GFX_MORPH_RING == 3, "every frame_data buffer listed");
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->id)
            glDeleteBuffers(1, &bufs[i]->id);
    if (b->ring.id) {
        if (b->ring_map)
            glUnmapNamedBuffer(b->ring.id);
        glDeleteBuffers(1, &b->ring.id);
    }
    for (int i = 0; i < GFX_MORPH_RING; i++)
        if (b->fences[i])
            glDeleteSync((GLsync)b->fences[i]);
    gfx_vertex_array_t *vaos[] = {&b->vao_base, &b->vao_tf, &b->vao_finish};
    for (size_t i = 0; i < sizeof vaos / sizeof vaos[0]; i++)
        if (vaos[i]->id)
            glDeleteVertexArrays(1, &vaos[i]->id);
    if (b->tfo)
        glDeleteTransformFeedbacks(1, &b->tfo);
    if (b->query.id)
        glDeleteQueries(1, &b->query.id);
    free(b->weight_scratch);
    free(b->list_target);
    free(b->list_weight);
    memset(b, 0, sizeof *b);
}

bool gfx_morph_bench_ready(const gfx_morph_bench_t *b, gfx_morph_method_t m)
{
    return m >= 0 && m < GFX_MORPH_METHOD_COUNT && b->ready[m];
}

const char *gfx_morph_bench_reason(const gfx_morph_bench_t *b, gfx_morph_method_t m)
{
    return m >= 0 && m < GFX_MORPH_METHOD_COUNT ? b->reason[m] : "unknown method";
}

/* Sums duplicate entries per target (bshape_run does the same) and lists
 * the targets with a non-zero weight in ascending order: the order of the
 * CPU job and of morph.glsl's dense loop. Returns the list length. */
static int prepare_active(gfx_morph_bench_t *b, int count, const uint32_t *targets, const float *weights)
{
    memset(b->weight_scratch, 0, (b->target_count ? b->target_count : 1) * sizeof *b->weight_scratch);
    for (int i = 0; i < count; i++)
        b->weight_scratch[targets[i]] += weights[i];
    int n = 0;
    for (uint32_t t = 0; t < b->target_count; t++) {
        if (b->weight_scratch[t] == 0.0f)
            continue;
        b->list_target[n] = t;
        b->list_weight[n++] = b->weight_scratch[t];
    }
    return n;
}

/* Waits until the GPU is done with ring slot SLOT's previous frame. */
static bool ring_wait(gfx_morph_bench_t *b, int slot)
{
    GLsync f = (GLsync)b->fences[slot];
    if (!f)
        return true;
    GLenum r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, RING_WAIT_NS);
    glDeleteSync(f);
    b->fences[slot] = NULL;
    return r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED;
}

static void draw_captured(GLuint out_buffer, uint32_t vertex_count, uint32_t tfo)
{
    glTransformFeedbackBufferBase(tfo, 0, out_buffer);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, tfo);
    glBeginTransformFeedback(GL_POINTS);
    gfx_validate_draw("morph bench");
    glDrawArrays(GL_POINTS, 0, (GLsizei)vertex_count);
    glEndTransformFeedback();
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
}

/* The one-pass methods: the frame's active data into the ring slot, one
 * pass, by a vertex shader captured by transform feedback or by a compute
 * pass. */
static int run_ssbo(gfx_morph_bench_t *b, gfx_morph_method_t m, int n, int slot)
{
    uint8_t *dst = (uint8_t *)b->ring_map + (size_t)slot * b->ring_slot_bytes;
    size_t bytes;
    if (is_dense(m)) {
        uint32_t header[2] = {(uint32_t)n, 0u};
        memcpy(dst, header, sizeof header);
        uint8_t *e = dst + MORPH_ACTIVE_HEADER_BYTES;
        for (int i = 0; i < n; i++, e += 8) {
            memcpy(e, &b->list_target[i], 4);
            memcpy(e + 4, &b->list_weight[i], 4);
        }
        bytes = MORPH_ACTIVE_HEADER_BYTES + (size_t)(n ? n : 1) * 8;
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_DELTAS, b->dense.id);
    } else {
        memcpy(dst, b->weight_scratch, (size_t)b->target_count * sizeof(float));
        bytes = (size_t)(b->target_count ? b->target_count : 1) * sizeof(float);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_DELTAS, b->sparse.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_OFFSETS, b->offsets.id);
    }
    /* The GPU copies the slot next to the deltas; the copy is ordered
     * before the pass that reads it. */
    glCopyNamedBufferSubData(b->ring.id, b->frame_data[slot].id, (GLintptr)((size_t)slot * b->ring_slot_bytes), 0,
                             (GLsizeiptr)bytes);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_WEIGHTS, b->frame_data[slot].id, 0, (GLsizeiptr)bytes);
    glUseProgram(b->prog[m].id);
    if (is_compute(m)) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_SOURCE, b->base.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_DEFORM_OUT, b->out.id);
        gfx_validate_dispatch("morph bench compute");
        glDispatchCompute((b->vertex_count + DEFORM_MORPH_GROUP_VERTICES - 1) / DEFORM_MORPH_GROUP_VERTICES, 1, 1);
        /* Transform feedback's writes are ordered with later reads; a
         * compute pass's need the barrier. */
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT);
        return 1;
    }
    glBindVertexArray(b->vao_base.id);
    draw_captured(b->out.id, b->vertex_count, b->tfo);
    return 1;
}

/* The stream-out baseline: ceil(n / 4) accumulation passes + the final one.
 * The running sum starts as the zero buffer and ping-pongs between acc[0]
 * and acc[1]; a pass never reads the buffer it writes. */
static int run_tf(gfx_morph_bench_t *b, int n)
{
    int passes = 0;
    GLuint src = b->zero.id; /* the running sum so far */
    int dst = 0;             /* acc buffer the next pass writes */
    GLuint prog = b->prog[GFX_MORPH_TF_MULTIPASS].id;
    glUseProgram(prog);
    glBindVertexArray(b->vao_tf.id);
    for (int first = 0; first < n; first += MORPH_TF_SHAPES_PER_PASS) {
        float w[MORPH_TF_SHAPES_PER_PASS] = {0};
        for (int k = 0; k < MORPH_TF_SHAPES_PER_PASS; k++) {
            /* Unused slots read target 0's records with weight 0. */
            uint32_t t = first + k < n ? b->list_target[first + k] : 0u;
            w[k] = first + k < n ? b->list_weight[first + k] : 0.0f;
            glVertexArrayVertexBuffer(b->vao_tf.id, 1u + (GLuint)k, b->dense.id,
                                      (GLintptr)((size_t)t * b->vertex_count * RECORD_BYTES), RECORD_BYTES);
        }
        glVertexArrayVertexBuffer(b->vao_tf.id, 0, src, 0, MORPH_BENCH_VERTEX_BYTES);
        glProgramUniform4fv(prog, b->loc_tf_weight, 1, w);
        draw_captured(b->acc[dst].id, b->vertex_count, b->tfo);
        src = b->acc[dst].id;
        dst ^= 1;
        passes++;
    }
    glUseProgram(b->tf_finish.id);
    glBindVertexArray(b->vao_finish.id);
    glVertexArrayVertexBuffer(b->vao_finish.id, 0, src, 0, MORPH_BENCH_VERTEX_BYTES);
    draw_captured(b->out.id, b->vertex_count, b->tfo);
    return passes + 1;
}

/* Every active entry names a target of the mesh with a finite weight; one
 * logged line on the first that does not. */
static bool active_ok(const gfx_morph_bench_t *b, int active_count, const uint32_t *targets, const float *weights)
{
    for (int i = 0; i < active_count; i++) {
        if (targets[i] >= b->target_count || !isfinite(weights[i])) {
            log_error("gfx_morph_bench: active entry %d: target %u (of %u), weight %g", i, targets[i], b->target_count,
                      (double)weights[i]);
            return false;
        }
    }
    return true;
}

bool gfx_morph_bench_run(gfx_morph_bench_t *b, gfx_morph_method_t m, int active_count, const uint32_t *targets,
                         const float *weights, gfx_morph_time_t *out_time)
{
    if (!gfx_morph_bench_ready(b, m)) {
        log_error("gfx_morph_bench: method %d is not ready: %s", (int)m, gfx_morph_bench_reason(b, m));
        return false;
    }
    if (!active_ok(b, active_count, targets, weights))
        return false;
    glFinish();
    double t0 = bench_now_s();
    int n = prepare_active(b, active_count, targets, weights);
    int slot = b->frame % GFX_MORPH_RING;
    if (!ring_wait(b, slot)) {
        log_error("gfx_morph_bench: the GPU did not release active-list slot %d", slot);
        return false;
    }
    glBeginQuery(GL_TIME_ELAPSED, b->query.id);
    glEnable(GL_RASTERIZER_DISCARD);
    int passes = m == GFX_MORPH_TF_MULTIPASS ? run_tf(b, n) : run_ssbo(b, m, n, slot);
    glDisable(GL_RASTERIZER_DISCARD);
    glEndQuery(GL_TIME_ELAPSED);
    b->fences[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFinish();
    double t1 = bench_now_s();
    b->frame++;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(b->query.id, GL_QUERY_RESULT, &ns);
    glBindVertexArray(0);
    glUseProgram(0);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("gfx_morph_bench: GL error 0x%x in method %s", err, k_method_label[m]);
        return false;
    }
    if (out_time) {
        out_time->wall_ms = (t1 - t0) * 1e3;
        out_time->query_ms = (double)ns * 1e-6;
        out_time->passes = passes;
    }
    return true;
}

bool gfx_morph_bench_run_pipelined(gfx_morph_bench_t *b, gfx_morph_method_t m, int active_count,
                                   const uint32_t *targets, const float *weights, int repeats, double *out_ms)
{
    if (repeats < 1 || !gfx_morph_bench_ready(b, m)) {
        log_error("gfx_morph_bench: pipelined run of method %d: %d repeats, %s", (int)m, repeats,
                  gfx_morph_bench_reason(b, m));
        return false;
    }
    if (!active_ok(b, active_count, targets, weights))
        return false;
    glFinish();
    for (int s = 0; s < GFX_MORPH_RING; s++)
        if (!ring_wait(b, s)) {
            log_error("gfx_morph_bench: the GPU did not release active-list slot %d", s);
            return false;
        }
    /* The ring's slots in turn, as frames use them (no frame's copy waits
     * for the one before to be read); each rewrites its slot with the same
     * list, the same bytes a queued copy may be reading. */
    int n = prepare_active(b, active_count, targets, weights);
    GLuint ts[2];
    glGenQueries(2, ts);
    glEnable(GL_RASTERIZER_DISCARD);
    glQueryCounter(ts[0], GL_TIMESTAMP);
    for (int r = 0; r < repeats; r++) {
        if (m == GFX_MORPH_TF_MULTIPASS)
            run_tf(b, n);
        else
            run_ssbo(b, m, n, r % GFX_MORPH_RING);
    }
    glQueryCounter(ts[1], GL_TIMESTAMP);
    glDisable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(0);
    glUseProgram(0);
    glFinish();
    GLuint64 t0 = 0, t1 = 0;
    glGetQueryObjectui64v(ts[0], GL_QUERY_RESULT, &t0);
    glGetQueryObjectui64v(ts[1], GL_QUERY_RESULT, &t1);
    glDeleteQueries(2, ts);
    *out_ms = t1 > t0 ? (double)(t1 - t0) * 1e-6 / repeats : NAN;
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("gfx_morph_bench: GL error 0x%x in the pipelined runs of %s", err, k_method_label[m]);
        return false;
    }
    return true;
}

bool gfx_morph_bench_clear_output(gfx_morph_bench_t *b)
{
    const GLuint nan_bits = 0xffffffffu;
    glClearNamedBufferData(b->out.id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &nan_bits);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("gfx_morph_bench: GL error 0x%x clearing the output", err);
        return false;
    }
    return true;
}

bool gfx_morph_bench_read(const gfx_morph_bench_t *b, float *out_vertices)
{
    glGetNamedBufferSubData(b->out.id, 0, (GLsizeiptr)((size_t)b->vertex_count * MORPH_BENCH_VERTEX_BYTES),
                            out_vertices);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        log_error("gfx_morph_bench: GL error 0x%x reading the result back", err);
        return false;
    }
    return true;
}
