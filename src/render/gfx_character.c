#include "render/gfx_character.h"

#include "core/log.h"
#include "render/gfx_shader.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Offsets of the sub-arrays inside a slot are rounded up to this (bytes),
 * comfortably above GL_MIN_MAP_BUFFER_ALIGNMENT and cache lines. */
#define STREAM_ALIGN 256u
/* A fence still pending after this long means the GPU is hung; give up
 * waiting rather than freeze the app (nanoseconds). */
#define FENCE_TIMEOUT_NS 1000000000ull
/* Vertex buffer binding indices of the VAOs (not attribute locations). */
enum {
    BIND_POS = 0,
    BIND_NORMAL,
    BIND_TANGENT,
    BIND_AO,
    BIND_STATIC,
    BIND_SKIN,
    /* Cebenoyan's hybrid: the older key's arrays. */
    BIND_KEY0_POS,
    BIND_KEY0_NORMAL,
    BIND_KEY0_TANGENT,
    BIND_KEY0_AO
};
/* GPU skinning variants (gfx_skin_mode >= 0) and program kinds; FEEDBACK is
 * the skin-once transform-feedback pass. */
enum { GPU_METHODS = 3, KIND_LIT = 0, KIND_NOSHADOW, KIND_SHADOW, KIND_CAPTURE, KIND_FEEDBACK, KINDS };
/* Hybrid keys in the key ring: the two a slot blends, plus one being
 * written, plus one for a frame still on the GPU (each key is fenced). */
enum { KEY_SLOTS = 4 };
/* Bytes per vertex of the skin-once feedback buffer (character.vert's xfb
 * layout: position + AO, normal + 0, tangent). */
#define FEEDBACK_VERTEX_BYTES ((size_t)SKIN_FEEDBACK_VEC4S * 4 * sizeof(float))
/* Byte offsets inside one feedback vertex. */
enum { FEEDBACK_OFF_POS = 0, FEEDBACK_OFF_AO = 12, FEEDBACK_OFF_NORMAL = 16, FEEDBACK_OFF_TANGENT = 32 };
/* How draw_range issues a range of meshes. */
typedef enum draw_how { DRAW_TRIANGLES, DRAW_POINTS, DRAW_FEEDBACK } draw_how;
/* GPU blend-shape layouts (gfx_character_morph >= 0). */
enum { MORPH_LAYOUTS = 2 };
/* vec4s per vertex in the capture SSBO and the bake's transform feedback
 * (character.vert). */
#define CAPTURE_VEC4S 3
#define BAKE_VEC4S 3
/* Bytes of one delta record in morph.glsl (struct morph_delta). */
#define MORPH_RECORD_BYTES ((size_t)MORPH_DELTA_VEC4S * 4 * sizeof(float))
/* Storage blocks of a morphing vertex shader: palette, deltas, active list
 * or weights, and the sparse layout's offsets. */
#define MORPH_BLOCKS(layout) ((layout) == GFX_CHARACTER_MORPH_SPARSE ? 4 : 3)

_Static_assert(GFX_CHARACTER_MORPH_SPARSE == MORPH_LAYOUT_SPARSE && GFX_CHARACTER_MORPH_DENSE == MORPH_LAYOUT_DENSE,
               "gfx_character_morph must match morph.glsl's layouts");

/* One entry of the dense active list (struct morph_entry in morph.glsl). */
typedef struct morph_entry {
    uint32_t target;
    float weight;
} morph_entry;
/* Material arrays in character.frag; must match CHR_MAX_MATERIALS. */
#define MATERIAL_SLOTS CHR_MAX_MATERIALS

/* Static per-vertex data: uv and the material index. */
typedef struct static_vertex {
    float uv[2];
    uint32_t material;
} static_vertex;

/* Static skinning data: joint indices (integer attribute) and weights. */
typedef struct skin_vertex {
    uint16_t joints[4];
    float weights[4];
} skin_vertex;

typedef struct program_locs {
    gfx_program prog;
    GLint u_model, u_influences, u_joint_count;
    GLint u_morph_first, u_morph_vertices, u_morph_targets;
    GLint u_hybrid_t;
} program_locs;

/* Where one mesh's blend shapes live on the GPU (bytes). */
typedef struct morph_mesh {
    uint32_t target_count;          /* 0: no blend shapes */
    size_t delta_off[MORPH_LAYOUTS];   /* in delta_buf[layout] */
    size_t delta_bytes[MORPH_LAYOUTS];
    size_t offsets_off, offsets_bytes; /* sparse offsets, in delta_buf[SPARSE] */
    size_t off_active, off_weights;    /* inside a stream slot */
} morph_mesh;

struct gfx_character {
    char label[64];
    uint32_t vertex_count, index_count, mesh_count;
    uint32_t mesh_first[CHR_MAX_MESHES];
    uint32_t mesh_vertices[CHR_MAX_MESHES];
    char mesh_name[CHR_MAX_MESHES][CHR_NAME_MAX]; /* for messages */
    uint32_t index_first[CHR_MAX_MESHES], index_counts[CHR_MAX_MESHES];
    gfx_buffer stream;            /* GFX_CHARACTER_SLOTS x slot_bytes, persistently mapped */
    gfx_buffer static_vbo, ibo, skin_vbo;
    gfx_vertex_array vao[GFX_CHARACTER_SLOTS];
    uint8_t *mapped;
    size_t slot_bytes;
    size_t off_normal, off_tangent, off_ao; /* inside a slot; positions at 0 */
    size_t off_palette, off_dq;   /* inside a slot: GPU skinning palettes */
    size_t palette_bytes, dq_bytes;
    bool gpu_ok;                  /* limits and shaders allow GPU skinning */
    program_locs gpu[GPU_METHODS][KINDS];
    /* Skinning of each slot, and the one end_update gives the next slot. */
    gfx_skin_mode slot_mode[GFX_CHARACTER_SLOTS], mode;
    int slot_influences[GFX_CHARACTER_SLOTS], influences;
    int slot_joints[GFX_CHARACTER_SLOTS], joint_count;
    GLsync fence[GFX_CHARACTER_SLOTS];
    int writing;                  /* slot handed out by begin_update, -1 none */
    int ready;                    /* slot drawn, -1 until the first end_update */
    program_locs lit, lit_noshadow, shadow;
    /* GPU blend shapes. The unmorphed bind pose (position, normal, tangent,
     * AO arrays as in a slot) is static and read through bind_vao. */
    gfx_buffer bind_vbo;
    gfx_vertex_array bind_vao;
    gfx_buffer delta_buf[MORPH_LAYOUTS];
    morph_mesh morph[CHR_MAX_MESHES];
    bool morph_ok[MORPH_LAYOUTS];
    program_locs morph_prog[MORPH_LAYOUTS][GPU_METHODS][KINDS];
    program_locs bake_prog[MORPH_LAYOUTS];
    gfx_character_morph morph_mode, slot_morph[GFX_CHARACTER_SLOTS];
    uint32_t slot_active[GFX_CHARACTER_SLOTS][CHR_MAX_MESHES]; /* active entries written */
    bool active_written[CHR_MAX_MESHES];                      /* in this update */
    /* Meshes whose morph base is the slot's vertex arrays instead of
     * bind_vbo (a bind pose that changes per frame): in this update, and
     * per slot as ended. */
    bool stream_bind[CHR_MAX_MESHES];
    bool slot_stream_bind[GFX_CHARACTER_SLOTS][CHR_MAX_MESHES];
    uint32_t active_now[CHR_MAX_MESHES];
    float *weight_scratch;        /* max target count: weights summed per target */
    uint32_t max_targets;
    /* Skin once: per slot, the transform-feedback buffer of deformed
     * vertices (written by the slot's first pass of a frame, read by both)
     * and the VAO drawing it with the plain programs. */
    bool skin_once, slot_skin_once[GFX_CHARACTER_SLOTS], slot_skinned[GFX_CHARACTER_SLOTS];
    gfx_buffer skinned[GFX_CHARACTER_SLOTS];
    gfx_vertex_array skinned_vao[GFX_CHARACTER_SLOTS];
    GLuint tfo;
    /* Cebenoyan's hybrid: a persistent-mapped ring of CPU-skinned keys
     * (vertex arrays laid out as in a stream slot), one VAO per key k that
     * reads k as the newer key and k - 1 as the older, and per slot the
     * pair and t it was ended with (t < 0: not a hybrid slot). */
    gfx_buffer keys;
    uint8_t *keys_mapped;
    size_t key_bytes;
    gfx_vertex_array hybrid_vao[KEY_SLOTS];
    GLsync key_fence[KEY_SLOTS];
    int key_writing, key_last;     /* -1: none */
    bool key_single;               /* the last key has no older partner yet */
    float hybrid_t, slot_t[GFX_CHARACTER_SLOTS];
    int slot_key[GFX_CHARACTER_SLOTS];
    bool slot_key_single[GFX_CHARACTER_SLOTS];
    program_locs hybrid_prog[KINDS]; /* FEEDBACK unused */
    float model[16];
    bool visible;
    gfx_character_stats stats;
};

static size_t align_up(size_t v) { return (v + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN; }

bool gfx_character_gpu_limits_ok(const gfx_info *info, int joints, int extra_blocks, char *msg, size_t msg_size)
{
    int64_t need = (int64_t)joints * GFX_CHARACTER_MAT_FLOATS * (int64_t)sizeof(float);
    if (joints < 1 || joints > GFX_CHARACTER_MAX_JOINTS) {
        snprintf(msg, msg_size, "GPU skinning: %d joints, the palette holds 1 to %d", joints,
                 GFX_CHARACTER_MAX_JOINTS);
        return false;
    }
    if (info->max_ssbo_block_size < need) {
        snprintf(msg, msg_size,
                 "GPU skinning: a %d-joint palette needs %lld bytes, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld", joints,
                 (long long)need, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < 1 + extra_blocks) {
        snprintf(msg, msg_size, "GPU skinning needs %d vertex shader storage blocks, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS is %d",
                 1 + extra_blocks, info->max_vertex_ssbo_blocks);
        return false;
    }
    if (msg_size > 0)
        msg[0] = '\0';
    return true;
}

bool gfx_character_morph_limits_ok(const gfx_info *info, int64_t block_bytes, int blocks, char *msg,
                                   size_t msg_size)
{
    if (info->max_ssbo_block_size < block_bytes) {
        snprintf(msg, msg_size, "a %lld-byte storage block is needed, GL_MAX_SHADER_STORAGE_BLOCK_SIZE is %lld",
                 (long long)block_bytes, (long long)info->max_ssbo_block_size);
        return false;
    }
    if (info->max_vertex_ssbo_blocks < blocks) {
        snprintf(msg, msg_size, "%d vertex shader storage blocks are needed, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS is %d",
                 blocks, info->max_vertex_ssbo_blocks);
        return false;
    }
    if (msg_size > 0)
        msg[0] = '\0';
    return true;
}

static void label_object(GLenum kind, GLuint id, const char *base, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", base, what);
    glObjectLabel(kind, id, -1, name);
}

static bool load_program(program_locs *p, const char *vs, const char *fs, const char *defines, const char *label)
{
    if (!gfx_shader_program_load(&p->prog, vs, fs, defines, label))
        return false;
    p->u_model = glGetUniformLocation(p->prog.id, "u_model");
    p->u_influences = glGetUniformLocation(p->prog.id, "u_influences");
    p->u_joint_count = glGetUniformLocation(p->prog.id, "u_joint_count");
    p->u_morph_first = glGetUniformLocation(p->prog.id, "u_morph_first_vertex");
    p->u_morph_vertices = glGetUniformLocation(p->prog.id, "u_morph_vertex_count");
    p->u_morph_targets = glGetUniformLocation(p->prog.id, "u_morph_target_count");
    p->u_hybrid_t = glGetUniformLocation(p->prog.id, "u_hybrid_t");
    return true;
}

static void set_materials(const program_locs *p, const chr_character_t *c)
{
    float color[MATERIAL_SLOTS][4], params[MATERIAL_SLOTS][4];
    memset(color, 0, sizeof color);
    memset(params, 0, sizeof params);
    for (uint32_t i = 0; i < c->material_count && i < MATERIAL_SLOTS; i++) {
        const chr_material_t *m = &c->materials[i];
        memcpy(color[i], m->color, sizeof color[i]);
        params[i][0] = m->roughness;
        params[i][1] = m->subsurface;
    }
    GLint lc = glGetUniformLocation(p->prog.id, "u_material_color");
    GLint lp = glGetUniformLocation(p->prog.id, "u_material_params");
    if (lc >= 0)
        glProgramUniform4fv(p->prog.id, lc, MATERIAL_SLOTS, &color[0][0]);
    if (lp >= 0)
        glProgramUniform4fv(p->prog.id, lp, MATERIAL_SLOTS, &params[0][0]);
}

static void draw_hook(const gfx_pass_info *info, void *user);

/* The GPU-skinning programs, when the limits allow them (otherwise the CPU
 * path stays the only one and that is logged once). False on a shader error. */
static bool load_gpu_programs(gfx_character *gc, const chr_character_t *c)
{
    char msg[256];
    GLint ssbo_align = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &ssbo_align);
    if (!gfx_character_gpu_limits_ok(gfx_get_info(), (int)c->skel.joint_count, 0, msg, sizeof msg)) {
        log_warn("render: %s: %s; skinning stays on the CPU", gc->label, msg);
        return true;
    }
    if (ssbo_align <= 0 || STREAM_ALIGN % (unsigned)ssbo_align != 0) {
        log_warn("render: %s: GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT %d does not divide %u; skinning stays on the CPU",
                 gc->label, ssbo_align, STREAM_ALIGN);
        return true;
    }
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[KINDS] = {{"character.vert", "character.frag", "", "lit"},
                      {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                      {"character_shadow.vert", "character_shadow.frag", "", "shadow"},
                      {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_CAPTURE\n", "capture"},
                      {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_FEEDBACK\n", "feedback"}};
    for (int m = 0; m < GPU_METHODS; m++) {
        for (int k = 0; k < KINDS; k++) {
            if (k == KIND_CAPTURE && !gfx_character_gpu_limits_ok(gfx_get_info(), (int)c->skel.joint_count, 1, msg,
                                                                  sizeof msg))
                continue; /* capture refused later with MSG */
            char defines[160], name[96];
            snprintf(defines, sizeof defines, "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD %d\n%s", m,
                     kinds[k].defines);
            snprintf(name, sizeof name, "%s.gpu%d.%s", gc->label, m, kinds[k].what);
            if (!load_program(&gc->gpu[m][k], kinds[k].vs, kinds[k].fs, defines, name))
                return false;
            if (k == KIND_LIT || k == KIND_NOSHADOW)
                set_materials(&gc->gpu[m][k], c);
        }
    }
    gc->gpu_ok = true;
    return true;
}

/* Limits and data of LAYOUT for every mesh with targets; false with a
 * one-line reason in MSG. */
static bool morph_layout_ok(const gfx_character *gc, const gfx_character_targets *morph, gfx_character_morph layout,
                            char *msg, size_t msg_size)
{
    const gfx_info *info = gfx_get_info();
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        const gfx_character_targets *t = &morph[m];
        uint64_t vc = gc->mesh_vertices[m], tc = t->target_count;
        if (tc == 0)
            continue;
        int64_t blocks[3] = {0, 0, 0};
        if (layout == GFX_CHARACTER_MORPH_DENSE) {
            if (!t->dense) {
                snprintf(msg, msg_size, "mesh '%s': the dense deltas were not built", gc->mesh_name[m]);
                return false;
            }
            /* morph.glsl indexes records with a uint. */
            if (tc * vc > UINT32_MAX) {
                snprintf(msg, msg_size, "mesh '%s': %llu x %llu dense records overflow a 32-bit index",
                         gc->mesh_name[m], (unsigned long long)tc, (unsigned long long)vc);
                return false;
            }
            blocks[0] = (int64_t)(tc * vc * MORPH_RECORD_BYTES);
            blocks[1] = (int64_t)(MORPH_ACTIVE_HEADER_BYTES + tc * sizeof(morph_entry));
        } else {
            if (!t->vertex_offset || !t->pair_target || !t->pair_delta) {
                snprintf(msg, msg_size, "mesh '%s': the sparse deltas were not built", gc->mesh_name[m]);
                return false;
            }
            for (uint64_t v = 0; v < vc; v++) {
                if (t->vertex_offset[v] > t->vertex_offset[v + 1]) {
                    snprintf(msg, msg_size, "mesh '%s': sparse offsets decrease at vertex %llu", gc->mesh_name[m],
                             (unsigned long long)v);
                    return false;
                }
            }
            if (t->vertex_offset[0] != 0 || t->vertex_offset[vc] != t->pair_count) {
                snprintf(msg, msg_size, "mesh '%s': sparse offsets do not span the %u pairs", gc->mesh_name[m],
                         t->pair_count);
                return false;
            }
            blocks[0] = (int64_t)((t->pair_count ? t->pair_count : 1) * MORPH_RECORD_BYTES);
            blocks[1] = (int64_t)((vc + 1) * sizeof(uint32_t));
            blocks[2] = (int64_t)(tc * sizeof(float));
        }
        for (int b = 0; b < 3; b++) {
            char why[200];
            if (!gfx_character_morph_limits_ok(info, blocks[b], MORPH_BLOCKS(layout), why, sizeof why)) {
                snprintf(msg, msg_size, "mesh '%s': %s", gc->mesh_name[m], why);
                return false;
            }
        }
    }
    return true;
}

/* Record D (GFX_CHARACTER_DELTA_FLOATS) of TARGET as struct morph_delta. */
static void pack_record(const float *d, uint32_t target, float *out)
{
    out[0] = d[0];
    out[1] = d[1];
    out[2] = d[2];
    out[3] = d[9];
    out[4] = d[3];
    out[5] = d[4];
    out[6] = d[5];
    memcpy(&out[7], &target, sizeof target);
    out[8] = d[6];
    out[9] = d[7];
    out[10] = d[8];
    out[11] = 0.0f;
}

/* The immutable delta buffer of LAYOUT (every mesh's records; sparse: then
 * the offsets), from a staging copy freed before returning. */
static bool upload_morph_layout(gfx_character *gc, const gfx_character_targets *morph, gfx_character_morph layout,
                                char *msg, size_t msg_size)
{
    size_t total = 0;
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        morph_mesh *mm = &gc->morph[m];
        const gfx_character_targets *t = &morph[m];
        size_t vc = gc->mesh_vertices[m];
        if (mm->target_count == 0)
            continue;
        mm->delta_off[layout] = total;
        if (layout == GFX_CHARACTER_MORPH_DENSE)
            mm->delta_bytes[layout] = (size_t)mm->target_count * vc * MORPH_RECORD_BYTES;
        else /* at least one record: a bound range may not be empty */
            mm->delta_bytes[layout] = (size_t)(t->pair_count ? t->pair_count : 1) * MORPH_RECORD_BYTES;
        total += align_up(mm->delta_bytes[layout]);
        if (layout == GFX_CHARACTER_MORPH_SPARSE) {
            mm->offsets_off = total;
            mm->offsets_bytes = (vc + 1) * sizeof(uint32_t);
            total += align_up(mm->offsets_bytes);
        }
    }
    uint8_t *staging = calloc(total ? total : 1, 1);
    if (!staging) {
        snprintf(msg, msg_size, "out of memory for %zu bytes of deltas", total);
        return false;
    }
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        const morph_mesh *mm = &gc->morph[m];
        const gfx_character_targets *t = &morph[m];
        size_t vc = gc->mesh_vertices[m];
        if (mm->target_count == 0)
            continue;
        float *rec = (float *)(staging + mm->delta_off[layout]);
        if (layout == GFX_CHARACTER_MORPH_DENSE) {
            for (size_t r = 0; r < (size_t)mm->target_count * vc; r++)
                pack_record(t->dense + r * GFX_CHARACTER_DELTA_FLOATS, (uint32_t)(r / vc),
                            rec + r * MORPH_DELTA_VEC4S * 4);
        } else {
            for (size_t i = 0; i < t->pair_count; i++)
                pack_record(t->pair_delta + i * GFX_CHARACTER_DELTA_FLOATS, t->pair_target[i],
                            rec + i * MORPH_DELTA_VEC4S * 4);
            memcpy(staging + mm->offsets_off, t->vertex_offset, mm->offsets_bytes);
        }
    }
    glCreateBuffers(1, &gc->delta_buf[layout].id);
    /* Immutable and never mapped: written once here, read by vertex shaders. */
    glNamedBufferStorage(gc->delta_buf[layout].id, (GLsizeiptr)(total ? total : 1), staging, 0);
    label_object(GL_BUFFER, gc->delta_buf[layout].id, gc->label,
                 layout == GFX_CHARACTER_MORPH_DENSE ? "blend_deltas_dense" : "blend_deltas_sparse");
    free(staging);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        snprintf(msg, msg_size, "storing %zu bytes of deltas failed (GL error 0x%x)", total, err);
        glDeleteBuffers(1, &gc->delta_buf[layout].id);
        gc->delta_buf[layout].id = 0;
        return false;
    }
    gc->stats.delta_bytes += total;
    return true;
}

/* Both layouts are uploaded when they fit: switching then costs nothing,
 * and slots still in flight keep drawing with the layout they were written
 * for (a rebuild on switch would have to wait for their fences). The price
 * is GPU memory: dense holds every zero (30 MB for the shipped head against
 * 7 MB sparse). A layout beyond the limits is left out with one line. */
static bool setup_morph(gfx_character *gc, const chr_character_t *c, const gfx_character_targets *morph)
{
    if (!morph || !gc->gpu_ok || gc->max_targets == 0)
        return true;
    for (int layout = 0; layout < MORPH_LAYOUTS; layout++) {
        char msg[256];
        const char *name = layout == GFX_CHARACTER_MORPH_DENSE ? "dense" : "sparse";
        if (!morph_layout_ok(gc, morph, (gfx_character_morph)layout, msg, sizeof msg) ||
            !upload_morph_layout(gc, morph, (gfx_character_morph)layout, msg, sizeof msg)) {
            log_warn("render: %s: GPU blend shapes (%s): %s; blend shapes stay on the CPU in that layout", gc->label,
                     name, msg);
            continue;
        }
        for (int m = 0; m < GPU_METHODS; m++) {
            for (int k = 0; k < KINDS; k++) {
                if (k == KIND_CAPTURE && !gfx_character_morph_limits_ok(gfx_get_info(), 0, MORPH_BLOCKS(layout) + 1,
                                                                        msg, sizeof msg))
                    continue; /* capture refused later */
                static const char *const vs[KINDS] = {"character.vert", "character.vert", "character_shadow.vert",
                                                      "character.vert", "character.vert"};
                static const char *const fs[KINDS] = {"character.frag", "character.frag", "character_shadow.frag",
                                                      "character_shadow.frag", "character_shadow.frag"};
                static const char *const extra[KINDS] = {"", "#define STRIDER_NO_SHADOWS\n", "",
                                                         "#define STRIDER_SKIN_CAPTURE\n",
                                                         "#define STRIDER_SKIN_FEEDBACK\n"};
                char defines[200], pname[96];
                snprintf(defines, sizeof defines,
                         "#define STRIDER_GPU_SKIN\n#define SKIN_METHOD %d\n#define STRIDER_GPU_MORPH\n"
                         "#define MORPH_LAYOUT %d\n%s",
                         m, layout, extra[k]);
                snprintf(pname, sizeof pname, "%s.morph_%s.gpu%d.%d", gc->label, name, m, k);
                if (!load_program(&gc->morph_prog[layout][m][k], vs[k], fs[k], defines, pname))
                    return false;
                if (k == KIND_LIT || k == KIND_NOSHADOW)
                    set_materials(&gc->morph_prog[layout][m][k], c);
            }
        }
        char defines[160], pname[96];
        snprintf(defines, sizeof defines,
                 "#define STRIDER_GPU_MORPH\n#define MORPH_LAYOUT %d\n#define STRIDER_MORPH_BAKE\n", layout);
        snprintf(pname, sizeof pname, "%s.bake_%s", gc->label, name);
        if (!load_program(&gc->bake_prog[layout], "character.vert", "character_shadow.frag", defines, pname))
            return false;
        gc->morph_ok[layout] = true;
    }
    return true;
}

/* The unmorphed bind pose, laid out like a stream slot's vertex arrays. */
static bool upload_bind(gfx_character *gc, const chr_character_t *c)
{
    size_t bytes = gc->off_ao + align_up((size_t)gc->vertex_count * sizeof(float));
    uint8_t *data = calloc(bytes, 1);
    if (!data) {
        log_error("render: %s: out of memory for the bind pose", gc->label);
        return false;
    }
    float *pos = (float *)data, *nrm = (float *)(data + gc->off_normal), *tan = (float *)(data + gc->off_tangent);
    float *ao = (float *)(data + gc->off_ao);
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        for (uint32_t v = 0; v < c->meshes[m].vertex_count; v++) {
            const chr_vertex_t *x = &c->meshes[m].vertices[v];
            size_t i = (size_t)gc->mesh_first[m] + v;
            memcpy(pos + 3 * i, x->pos, sizeof x->pos);
            memcpy(nrm + 3 * i, x->normal, sizeof x->normal);
            memcpy(tan + 4 * i, x->tangent, sizeof x->tangent);
            ao[i] = x->ao;
        }
    }
    glCreateBuffers(1, &gc->bind_vbo.id);
    glNamedBufferStorage(gc->bind_vbo.id, (GLsizeiptr)bytes, data, 0);
    label_object(GL_BUFFER, gc->bind_vbo.id, gc->label, "bind_pose");
    free(data);
    return true;
}

static bool upload_static(gfx_character *gc, const chr_character_t *c)
{
    static_vertex *sv = malloc((size_t)gc->vertex_count * sizeof *sv);
    skin_vertex *kv = malloc((size_t)gc->vertex_count * sizeof *kv);
    uint32_t *idx = malloc((size_t)gc->index_count * sizeof *idx);
    if (!sv || !idx || !kv) {
        free(sv);
        free(kv);
        free(idx);
        log_error("render: %s: out of memory for %u vertices", gc->label, gc->vertex_count);
        return false;
    }
    uint32_t iv = 0, ii = 0;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        const chr_mesh_t *mesh = &c->meshes[m];
        for (uint32_t v = 0; v < mesh->vertex_count; v++, iv++) {
            sv[iv].uv[0] = mesh->vertices[v].uv[0];
            sv[iv].uv[1] = mesh->vertices[v].uv[1];
            sv[iv].material = mesh->vertices[v].material;
            memcpy(kv[iv].joints, mesh->vertices[v].joints, sizeof kv[iv].joints);
            memcpy(kv[iv].weights, mesh->vertices[v].weights, sizeof kv[iv].weights);
        }
        for (uint32_t i = 0; i < mesh->index_count; i++)
            idx[ii++] = mesh->indices[i] + gc->mesh_first[m];
    }
    glCreateBuffers(1, &gc->static_vbo.id);
    glNamedBufferStorage(gc->static_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *sv), sv, 0);
    label_object(GL_BUFFER, gc->static_vbo.id, gc->label, "static_vertices");
    glCreateBuffers(1, &gc->skin_vbo.id);
    glNamedBufferStorage(gc->skin_vbo.id, (GLsizeiptr)((size_t)gc->vertex_count * sizeof *kv), kv, 0);
    label_object(GL_BUFFER, gc->skin_vbo.id, gc->label, "skin_vertices");
    free(kv);
    glCreateBuffers(1, &gc->ibo.id);
    glNamedBufferStorage(gc->ibo.id, (GLsizeiptr)((size_t)gc->index_count * sizeof *idx), idx, 0);
    label_object(GL_BUFFER, gc->ibo.id, gc->label, "indices");
    free(sv);
    free(idx);
    return true;
}

/* A VAO reading position/normal/tangent/AO from BUF at BASE (+ the slot
 * offsets) and the static attributes. */
static GLuint make_vao(const gfx_character *gc, GLuint buf, GLintptr base, const char *what)
{
    GLuint vao;
    glCreateVertexArrays(1, &vao);
    glVertexArrayVertexBuffer(vao, BIND_POS, buf, base, 3 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_NORMAL, buf, base + (GLintptr)gc->off_normal, 3 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_TANGENT, buf, base + (GLintptr)gc->off_tangent, 4 * sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_AO, buf, base + (GLintptr)gc->off_ao, sizeof(float));
    glVertexArrayVertexBuffer(vao, BIND_STATIC, gc->static_vbo.id, 0, sizeof(static_vertex));
    glVertexArrayVertexBuffer(vao, BIND_SKIN, gc->skin_vbo.id, 0, sizeof(skin_vertex));
    glVertexArrayElementBuffer(vao, gc->ibo.id);
    /* Read only by the GPU-skinning variants. */
    glEnableVertexArrayAttrib(vao, ATTR_JOINTS);
    glVertexArrayAttribIFormat(vao, ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, (GLuint)offsetof(skin_vertex, joints));
    glVertexArrayAttribBinding(vao, ATTR_JOINTS, BIND_SKIN);
    glEnableVertexArrayAttrib(vao, ATTR_WEIGHTS);
    glVertexArrayAttribFormat(vao, ATTR_WEIGHTS, 4, GL_FLOAT, GL_FALSE, (GLuint)offsetof(skin_vertex, weights));
    glVertexArrayAttribBinding(vao, ATTR_WEIGHTS, BIND_SKIN);
    static const struct {
        GLuint attr, binding, size;
    } floats[] = {{ATTR_POSITION, BIND_POS, 3},
                  {ATTR_NORMAL, BIND_NORMAL, 3},
                  {ATTR_TANGENT, BIND_TANGENT, 4},
                  {ATTR_AO, BIND_AO, 1}};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        glEnableVertexArrayAttrib(vao, floats[i].attr);
        glVertexArrayAttribFormat(vao, floats[i].attr, (GLint)floats[i].size, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(vao, floats[i].attr, floats[i].binding);
    }
    glEnableVertexArrayAttrib(vao, ATTR_UV);
    glVertexArrayAttribFormat(vao, ATTR_UV, 2, GL_FLOAT, GL_FALSE, (GLuint)offsetof(static_vertex, uv));
    glVertexArrayAttribBinding(vao, ATTR_UV, BIND_STATIC);
    /* The character has no vertex colours: its material index rides in
     * the colour slot as an integer attribute. */
    glEnableVertexArrayAttrib(vao, ATTR_COLOR);
    glVertexArrayAttribIFormat(vao, ATTR_COLOR, 1, GL_UNSIGNED_INT, (GLuint)offsetof(static_vertex, material));
    glVertexArrayAttribBinding(vao, ATTR_COLOR, BIND_STATIC);
    label_object(GL_VERTEX_ARRAY, vao, gc->label, what);
    return vao;
}

/* The older hybrid key's arrays from the key ring at BASE, for VAO. */
static void add_key0(const gfx_character *gc, GLuint vao, GLintptr base)
{
    static const struct {
        GLuint attr, binding, size;
        GLsizei stride;
    } key0[] = {{ATTR_KEY0_POSITION, BIND_KEY0_POS, 3, 3 * sizeof(float)},
                {ATTR_KEY0_NORMAL, BIND_KEY0_NORMAL, 3, 3 * sizeof(float)},
                {ATTR_KEY0_TANGENT, BIND_KEY0_TANGENT, 4, 4 * sizeof(float)},
                {ATTR_KEY0_AO, BIND_KEY0_AO, 1, sizeof(float)}};
    const size_t off[] = {0, gc->off_normal, gc->off_tangent, gc->off_ao};
    for (size_t i = 0; i < sizeof key0 / sizeof key0[0]; i++) {
        glVertexArrayVertexBuffer(vao, key0[i].binding, gc->keys.id, base + (GLintptr)off[i], key0[i].stride);
        glEnableVertexArrayAttrib(vao, key0[i].attr);
        glVertexArrayAttribFormat(vao, key0[i].attr, (GLint)key0[i].size, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(vao, key0[i].attr, key0[i].binding);
    }
}

static void make_vaos(gfx_character *gc)
{
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        snprintf(what, sizeof what, "vao[%d]", s);
        gc->vao[s].id = make_vao(gc, gc->stream.id, (GLintptr)((size_t)s * gc->slot_bytes), what);
        if (!gc->skinned[s].id)
            continue;
        /* Skin once: the same attributes, interleaved in the feedback buffer. */
        snprintf(what, sizeof what, "skinned_vao[%d]", s);
        GLuint vao = make_vao(gc, gc->skinned[s].id, 0, what), buf = gc->skinned[s].id;
        GLsizei stride = (GLsizei)FEEDBACK_VERTEX_BYTES;
        glVertexArrayVertexBuffer(vao, BIND_POS, buf, FEEDBACK_OFF_POS, stride);
        glVertexArrayVertexBuffer(vao, BIND_NORMAL, buf, FEEDBACK_OFF_NORMAL, stride);
        glVertexArrayVertexBuffer(vao, BIND_TANGENT, buf, FEEDBACK_OFF_TANGENT, stride);
        glVertexArrayVertexBuffer(vao, BIND_AO, buf, FEEDBACK_OFF_AO, stride);
        gc->skinned_vao[s].id = vao;
    }
    gc->bind_vao.id = make_vao(gc, gc->bind_vbo.id, 0, "bind_vao");
    for (int k = 0; k < KEY_SLOTS; k++) {
        char what[32];
        snprintf(what, sizeof what, "hybrid_vao[%d]", k);
        GLuint vao = make_vao(gc, gc->keys.id, (GLintptr)((size_t)k * gc->key_bytes), what);
        add_key0(gc, vao, (GLintptr)((size_t)((k + KEY_SLOTS - 1) % KEY_SLOTS) * gc->key_bytes));
        gc->hybrid_vao[k].id = vao;
    }
}

/* Skin once (GPU skinning only): one feedback buffer per stream slot, so a
 * frame's pass never writes what an earlier frame still on the GPU reads. */
static void create_feedback(gfx_character *gc)
{
    if (!gc->gpu_ok)
        return;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        char what[32];
        glCreateBuffers(1, &gc->skinned[s].id);
        /* GPU-only: written by transform feedback, read as vertex arrays. */
        glNamedBufferStorage(gc->skinned[s].id, (GLsizeiptr)((size_t)gc->vertex_count * FEEDBACK_VERTEX_BYTES), NULL,
                             0);
        snprintf(what, sizeof what, "skinned[%d]", s);
        label_object(GL_BUFFER, gc->skinned[s].id, gc->label, what);
    }
    glCreateTransformFeedbacks(1, &gc->tfo);
    label_object(GL_TRANSFORM_FEEDBACK, gc->tfo, gc->label, "skin_once");
}

/* The hybrid's programs (CPU-path variants that blend two keys) and its
 * persistent-mapped key ring; false on a shader or mapping error. */
static bool create_hybrid(gfx_character *gc, const chr_character_t *c)
{
    static const struct {
        const char *vs, *fs, *defines, *what;
    } kinds[KIND_FEEDBACK] = {{"character.vert", "character.frag", "", "lit"},
                              {"character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n", "lit_noshadow"},
                              {"character_shadow.vert", "character_shadow.frag", "", "shadow"},
                              {"character.vert", "character_shadow.frag", "#define STRIDER_SKIN_CAPTURE\n", "capture"}};
    for (int k = 0; k < KIND_FEEDBACK; k++) {
        if (k == KIND_CAPTURE && gfx_get_info()->max_vertex_ssbo_blocks < 1)
            continue; /* capture refused later */
        char defines[96], name[96];
        snprintf(defines, sizeof defines, "#define STRIDER_HYBRID\n%s", kinds[k].defines);
        snprintf(name, sizeof name, "%s.hybrid.%s", gc->label, kinds[k].what);
        if (!load_program(&gc->hybrid_prog[k], kinds[k].vs, kinds[k].fs, defines, name))
            return false;
        if (k == KIND_LIT || k == KIND_NOSHADOW)
            set_materials(&gc->hybrid_prog[k], c);
    }
    /* A key is a slot's vertex arrays (positions .. AO), without palettes. */
    gc->key_bytes = gc->off_palette;
    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr total = (GLsizeiptr)(gc->key_bytes * KEY_SLOTS);
    glCreateBuffers(1, &gc->keys.id);
    glNamedBufferStorage(gc->keys.id, total, NULL, flags);
    label_object(GL_BUFFER, gc->keys.id, gc->label, "hybrid_keys");
    gc->keys_mapped = glMapNamedBufferRange(gc->keys.id, 0, total, flags);
    if (!gc->keys_mapped) {
        log_error("render: %s: cannot map the %lld-byte hybrid key ring", gc->label, (long long)total);
        return false;
    }
    return true;
}

gfx_character *gfx_character_create(const chr_character_t *c, const gfx_character_targets *morph, const char *label)
{
    if (!c || c->mesh_count == 0 || c->mesh_count > CHR_MAX_MESHES) {
        log_error("render: %s: no meshes to draw", label ? label : "character");
        return NULL;
    }
    gfx_character *gc = calloc(1, sizeof *gc);
    if (!gc) {
        log_error("render: out of memory for a character");
        return NULL;
    }
    snprintf(gc->label, sizeof gc->label, "%s", label ? label : "character");
    gc->writing = -1;
    gc->ready = -1;
    gc->key_writing = -1;
    gc->key_last = -1;
    gc->hybrid_t = -1.0f;
    gc->visible = true;
    for (int k = 0; k < 16; k++)
        gc->model[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    uint64_t vcount = 0, icount = 0;
    gc->mesh_count = c->mesh_count;
    for (uint32_t m = 0; m < c->mesh_count; m++) {
        gc->mesh_first[m] = (uint32_t)vcount;
        gc->mesh_vertices[m] = c->meshes[m].vertex_count;
        memcpy(gc->mesh_name[m], c->meshes[m].name, CHR_NAME_MAX);
        gc->mesh_name[m][CHR_NAME_MAX - 1] = '\0';
        gc->index_first[m] = (uint32_t)icount;
        gc->index_counts[m] = c->meshes[m].index_count;
        vcount += c->meshes[m].vertex_count;
        icount += c->meshes[m].index_count;
        uint32_t tc = morph ? morph[m].target_count : 0;
        if (tc > CHR_MAX_SHAPES + CHR_MAX_CORRECTIVES) {
            log_error("render: %s: mesh %u has %u blend-shape targets, at most %d", gc->label, m, tc,
                      CHR_MAX_SHAPES + CHR_MAX_CORRECTIVES);
            free(gc);
            return NULL;
        }
        gc->morph[m].target_count = tc;
        gc->max_targets = tc > gc->max_targets ? tc : gc->max_targets;
    }
    if (vcount == 0 || icount == 0 || vcount > CHR_MAX_VERTICES || icount > (uint64_t)CHR_MAX_INDICES * 2) {
        log_error("render: %s: %llu vertices, %llu indices: nothing to draw or too many", gc->label,
                  (unsigned long long)vcount, (unsigned long long)icount);
        free(gc);
        return NULL;
    }
    gc->vertex_count = (uint32_t)vcount;
    gc->index_count = (uint32_t)icount;

    size_t v = gc->vertex_count;
    gc->off_normal = align_up(v * 3 * sizeof(float));
    gc->off_tangent = gc->off_normal + align_up(v * 3 * sizeof(float));
    gc->off_ao = gc->off_tangent + align_up(v * 4 * sizeof(float));
    gc->off_palette = gc->off_ao + align_up(v * sizeof(float));
    gc->palette_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_MAT_FLOATS * sizeof(float);
    gc->off_dq = gc->off_palette + align_up(gc->palette_bytes);
    gc->dq_bytes = (size_t)GFX_CHARACTER_MAX_JOINTS * GFX_CHARACTER_DQ_FLOATS * sizeof(float);
    gc->slot_bytes = gc->off_dq + align_up(gc->dq_bytes);
    /* Each morphed mesh's active list (dense) and weight table (sparse). */
    for (uint32_t m = 0; m < gc->mesh_count; m++) {
        morph_mesh *mm = &gc->morph[m];
        if (mm->target_count == 0)
            continue;
        mm->off_active = gc->slot_bytes;
        gc->slot_bytes += align_up(MORPH_ACTIVE_HEADER_BYTES + (size_t)mm->target_count * sizeof(morph_entry));
        mm->off_weights = gc->slot_bytes;
        gc->slot_bytes += align_up((size_t)mm->target_count * sizeof(float));
    }
    gc->mode = GFX_SKIN_CPU;
    gc->morph_mode = GFX_CHARACTER_MORPH_CPU;
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        gc->slot_mode[s] = GFX_SKIN_CPU;
        gc->slot_morph[s] = GFX_CHARACTER_MORPH_CPU;
        gc->slot_t[s] = -1.0f;
    }
    gc->weight_scratch = calloc(gc->max_targets ? gc->max_targets : 1, sizeof *gc->weight_scratch);
    if (!gc->weight_scratch) {
        log_error("render: out of memory for a character");
        free(gc);
        return NULL;
    }

    char name[96];
    snprintf(name, sizeof name, "%s.lit", gc->label);
    bool ok = load_program(&gc->lit, "character.vert", "character.frag", NULL, name);
    snprintf(name, sizeof name, "%s.lit_noshadow", gc->label);
    ok = ok && load_program(&gc->lit_noshadow, "character.vert", "character.frag", "#define STRIDER_NO_SHADOWS\n",
                            name);
    snprintf(name, sizeof name, "%s.shadow", gc->label);
    ok = ok && load_program(&gc->shadow, "character_shadow.vert", "character_shadow.frag", NULL, name);
    ok = ok && load_gpu_programs(gc, c);
    if (!ok || !upload_static(gc, c) || !upload_bind(gc, c) || !setup_morph(gc, c, morph)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    set_materials(&gc->lit, c);
    set_materials(&gc->lit_noshadow, c);

    GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    GLsizeiptr total = (GLsizeiptr)(gc->slot_bytes * GFX_CHARACTER_SLOTS);
    glCreateBuffers(1, &gc->stream.id);
    glNamedBufferStorage(gc->stream.id, total, NULL, flags);
    label_object(GL_BUFFER, gc->stream.id, gc->label, "deformed_stream");
    gc->mapped = glMapNamedBufferRange(gc->stream.id, 0, total, flags);
    if (!gc->mapped) {
        log_error("render: %s: cannot map the %lld-byte vertex stream", gc->label, (long long)total);
        gfx_character_destroy(gc);
        return NULL;
    }
    create_feedback(gc);
    if (!create_hybrid(gc, c)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    make_vaos(gc);
    if (!gfx_add_draw_hook(draw_hook, gc)) {
        gfx_character_destroy(gc);
        return NULL;
    }
    gc->stats.vertex_count = gc->vertex_count;
    gc->stats.triangle_count = gc->index_count / 3;
    gc->stats.stream_bytes = (uint32_t)gc->slot_bytes;
    log_debug("render: %s: %u vertices, %u triangles, %zu bytes per stream slot", gc->label, gc->vertex_count,
              gc->index_count / 3, gc->slot_bytes);
    return gc;
}

void gfx_character_destroy(gfx_character *gc)
{
    if (!gc)
        return;
    gfx_remove_draw_hook(draw_hook, gc);
    for (int s = 0; s < GFX_CHARACTER_SLOTS; s++) {
        if (gc->fence[s])
            glDeleteSync(gc->fence[s]);
        if (gc->vao[s].id)
            glDeleteVertexArrays(1, &gc->vao[s].id);
        if (gc->skinned_vao[s].id)
            glDeleteVertexArrays(1, &gc->skinned_vao[s].id);
        if (gc->skinned[s].id)
            glDeleteBuffers(1, &gc->skinned[s].id);
    }
    for (int k = 0; k < KEY_SLOTS; k++) {
        if (gc->key_fence[k])
            glDeleteSync(gc->key_fence[k]);
        if (gc->hybrid_vao[k].id)
            glDeleteVertexArrays(1, &gc->hybrid_vao[k].id);
    }
    if (gc->keys_mapped)
        glUnmapNamedBuffer(gc->keys.id);
    if (gc->keys.id)
        glDeleteBuffers(1, &gc->keys.id);
    if (gc->tfo)
        glDeleteTransformFeedbacks(1, &gc->tfo);
    for (int k = 0; k < KINDS; k++)
        gfx_shader_program_free(&gc->hybrid_prog[k].prog);
    if (gc->mapped)
        glUnmapNamedBuffer(gc->stream.id);
    if (gc->bind_vao.id)
        glDeleteVertexArrays(1, &gc->bind_vao.id);
    GLuint bufs[7] = {gc->stream.id,       gc->static_vbo.id,   gc->ibo.id,         gc->skin_vbo.id,
                      gc->bind_vbo.id,     gc->delta_buf[0].id, gc->delta_buf[1].id};
    glDeleteBuffers(7, bufs);
    for (int m = 0; m < GPU_METHODS; m++) {
        for (int k = 0; k < KINDS; k++) {
            gfx_shader_program_free(&gc->gpu[m][k].prog);
            for (int l = 0; l < MORPH_LAYOUTS; l++)
                gfx_shader_program_free(&gc->morph_prog[l][m][k].prog);
        }
    }
    for (int l = 0; l < MORPH_LAYOUTS; l++)
        gfx_shader_program_free(&gc->bake_prog[l].prog);
    free(gc->weight_scratch);
    gfx_shader_program_free(&gc->lit.prog);
    gfx_shader_program_free(&gc->lit_noshadow.prog);
    gfx_shader_program_free(&gc->shadow.prog);
    free(gc);
}

uint32_t gfx_character_mesh_first_vertex(const gfx_character *gc, uint32_t mesh)
{
    return mesh < gc->mesh_count ? gc->mesh_first[mesh] : gc->vertex_count;
}

/* Waits for *FENCE (if any) and deletes it; counts a wait in the stats.
 * False (one logged line naming WHAT) when the GPU does not get there. */
static bool wait_fence(gfx_character *gc, GLsync *fence, const char *what)
{
    if (!*fence)
        return true;
    GLenum r = glClientWaitSync(*fence, 0, 0);
    gc->stats.last_wait_ms = 0.0;
    if (r == GL_TIMEOUT_EXPIRED) {
        /* The GPU is more than two frames behind: wait, and count it. */
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        r = glClientWaitSync(*fence, GL_SYNC_FLUSH_COMMANDS_BIT, FENCE_TIMEOUT_NS);
        timespec_get(&t1, TIME_UTC);
        gc->stats.fence_waits++;
        gc->stats.last_wait_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED) {
        log_error("render: %s: %s fence wait failed", gc->label, what);
        return false;
    }
    glDeleteSync(*fence);
    *fence = NULL;
    return true;
}

bool gfx_character_begin_update(gfx_character *gc, gfx_character_stream *out)
{
    int s = (gc->ready + 1) % GFX_CHARACTER_SLOTS;
    if (!wait_fence(gc, &gc->fence[s], "vertex stream"))
        return false;
    gc->writing = s;
    memset(gc->active_written, 0, sizeof gc->active_written);
    memset(gc->stream_bind, 0, sizeof gc->stream_bind);
    uint8_t *base = gc->mapped + (size_t)s * gc->slot_bytes;
    out->vertex_count = gc->vertex_count;
    out->positions = (float *)base;
    out->normals = (float *)(base + gc->off_normal);
    out->tangents = (float *)(base + gc->off_tangent);
    out->ao = (float *)(base + gc->off_ao);
    out->palette = (float *)(base + gc->off_palette);
    out->dq_palette = (float *)(base + gc->off_dq);
    out->slot = s;
    return true;
}

void gfx_character_end_update(gfx_character *gc)
{
    if (gc->writing < 0)
        return;
    gc->ready = gc->writing;
    gc->slot_mode[gc->ready] = gc->mode;
    gc->slot_influences[gc->ready] = gc->influences;
    gc->slot_joints[gc->ready] = gc->joint_count;
    /* CPU skinning takes vertices the CPU has morphed. */
    gc->slot_morph[gc->ready] = gc->mode == GFX_SKIN_CPU ? GFX_CHARACTER_MORPH_CPU : gc->morph_mode;
    for (uint32_t m = 0; m < gc->mesh_count; m++)
        gc->slot_active[gc->ready][m] = gc->active_written[m] ? gc->active_now[m] : 0;
    memcpy(gc->slot_stream_bind[gc->ready], gc->stream_bind, sizeof gc->stream_bind);
    /* Skin once needs the feedback programs (built with the GPU ones). */
    gc->slot_skin_once[gc->ready] = gc->skin_once && gc->mode != GFX_SKIN_CPU && gc->skinned[gc->ready].id;
    gc->slot_skinned[gc->ready] = false;
    /* The hybrid blends keys on the CPU path only, once a key exists. */
    bool hybrid = gc->hybrid_t >= 0.0f && gc->mode == GFX_SKIN_CPU && gc->key_last >= 0;
    gc->slot_t[gc->ready] = hybrid ? gc->hybrid_t : -1.0f;
    gc->slot_key[gc->ready] = gc->key_last;
    gc->slot_key_single[gc->ready] = gc->key_single;
    gc->writing = -1;
    gc->stats.frames_updated++;
}

bool gfx_character_set_skin_once(gfx_character *gc, bool on)
{
    if (on && !gc->gpu_ok) {
        log_error("render: %s: skin once needs GPU skinning, not available on this context", gc->label);
        return false;
    }
    gc->skin_once = on;
    return true;
}

bool gfx_character_begin_key(gfx_character *gc, gfx_character_stream *out)
{
    int k = (gc->key_last + 1) % KEY_SLOTS;
    if (!wait_fence(gc, &gc->key_fence[k], "hybrid key"))
        return false;
    gc->key_writing = k;
    uint8_t *base = gc->keys_mapped + (size_t)k * gc->key_bytes;
    memset(out, 0, sizeof *out);
    out->vertex_count = gc->vertex_count;
    out->positions = (float *)base;
    out->normals = (float *)(base + gc->off_normal);
    out->tangents = (float *)(base + gc->off_tangent);
    out->ao = (float *)(base + gc->off_ao);
    out->slot = k;
    return true;
}

void gfx_character_end_key(gfx_character *gc, bool first)
{
    if (gc->key_writing < 0)
        return;
    gc->key_last = gc->key_writing;
    gc->key_single = first;
    gc->key_writing = -1;
    gc->stats.keys_written++;
}

void gfx_character_set_hybrid(gfx_character *gc, float t)
{
    gc->hybrid_t = t < 0.0f ? -1.0f : t > 1.0f ? 1.0f : t;
}

void gfx_character_set_transform(gfx_character *gc, const float model[16]) { memcpy(gc->model, model, sizeof gc->model); }

void gfx_character_set_visible(gfx_character *gc, bool visible) { gc->visible = visible; }

const gfx_character_stats *gfx_character_get_stats(const gfx_character *gc) { return &gc->stats; }

bool gfx_character_gpu_supported(const gfx_character *gc) { return gc->gpu_ok; }

bool gfx_character_set_skinning(gfx_character *gc, gfx_skin_mode mode, int influences, int joint_count)
{
    if (mode == GFX_SKIN_CPU) {
        gc->mode = mode;
        return true;
    }
    if (!gc->gpu_ok) {
        log_error("render: %s: GPU skinning is not available on this context (see the warning at start)", gc->label);
        return false;
    }
    if ((int)mode < 0 || (int)mode >= GPU_METHODS || influences < 1 || influences > 4 || joint_count < 1 ||
        joint_count > GFX_CHARACTER_MAX_JOINTS) {
        log_error("render: %s: GPU skinning method %d, %d influences, %d joints: out of range", gc->label, (int)mode,
                  influences, joint_count);
        return false;
    }
    gc->mode = mode;
    gc->influences = influences;
    gc->joint_count = joint_count;
    return true;
}

bool gfx_character_morph_supported(const gfx_character *gc, gfx_character_morph layout)
{
    return (layout == GFX_CHARACTER_MORPH_SPARSE || layout == GFX_CHARACTER_MORPH_DENSE) && gc->morph_ok[layout];
}

bool gfx_character_set_morph(gfx_character *gc, gfx_character_morph mode)
{
    if (mode != GFX_CHARACTER_MORPH_CPU && !gfx_character_morph_supported(gc, mode)) {
        log_error("render: %s: GPU blend shapes in layout %d are not available (see the warning at start)", gc->label,
                  (int)mode);
        return false;
    }
    gc->morph_mode = mode;
    return true;
}

/* Sums COUNT (target, weight) entries per target in the scratch and writes
 * the dense active list (ascending, non-zero: bshape_run's order) to ACTIVE
 * and the per-target weight table to WEIGHTS; returns the list's length.
 * The destinations may be write-combined mapped memory: written once. */
static uint32_t fill_lists(gfx_character *gc, uint32_t mesh, int count, const uint32_t *targets,
                           const float *weights, uint8_t *active, float *table)
{
    uint32_t tc = gc->morph[mesh].target_count;
    float *w = gc->weight_scratch;
    memset(w, 0, tc * sizeof *w);
    for (int i = 0; i < count; i++)
        w[targets[i]] += weights[i];
    morph_entry *e = (morph_entry *)(active + MORPH_ACTIVE_HEADER_BYTES);
    uint32_t n = 0;
    for (uint32_t t = 0; t < tc; t++) {
        if (w[t] != 0.0f) {
            e[n].target = t;
            e[n].weight = w[t];
            n++;
        }
    }
    uint32_t header[2] = {n, 0};
    memcpy(active, header, sizeof header);
    memcpy(table, w, tc * sizeof *w);
    return n;
}

static bool check_active(const gfx_character *gc, uint32_t mesh, int count, const uint32_t *targets,
                         const float *weights)
{
    if (mesh >= gc->mesh_count || gc->morph[mesh].target_count == 0) {
        log_error("render: %s: mesh %u has no blend shapes", gc->label, mesh);
        return false;
    }
    uint32_t tc = gc->morph[mesh].target_count;
    if (count < 0 || (count > 0 && (!targets || !weights))) {
        log_error("render: %s: mesh %u: bad active list (%d entries)", gc->label, mesh, count);
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (targets[i] >= tc || !isfinite(weights[i])) {
            log_error("render: %s: mesh %u active entry %d: target %u (of %u), weight %g", gc->label, mesh, i,
                      targets[i], tc, (double)weights[i]);
            return false;
        }
    }
    return true;
}

bool gfx_character_write_active(gfx_character *gc, uint32_t mesh, int count, const uint32_t *targets,
                                const float *weights)
{
    if (gc->writing < 0) {
        log_error("render: %s: write_active outside begin_update/end_update", gc->label);
        return false;
    }
    if (!check_active(gc, mesh, count, targets, weights))
        return false;
    uint8_t *base = gc->mapped + (size_t)gc->writing * gc->slot_bytes;
    const morph_mesh *mm = &gc->morph[mesh];
    gc->active_now[mesh] =
        fill_lists(gc, mesh, count, targets, weights, base + mm->off_active, (float *)(base + mm->off_weights));
    gc->active_written[mesh] = true;
    return true;
}

bool gfx_character_use_stream_bind(gfx_character *gc, uint32_t mesh)
{
    if (gc->writing < 0 || mesh >= gc->mesh_count) {
        log_error("render: %s: use_stream_bind: mesh %u outside begin_update/end_update or out of range", gc->label,
                  mesh);
        return false;
    }
    gc->stream_bind[mesh] = true;
    return true;
}

/* Binds slot S's palette (matrices or dual quaternions) and sets P's skinning uniforms. */
static void bind_palette(const gfx_character *gc, const program_locs *p, int s)
{
    bool dq = gc->slot_mode[s] == GFX_SKIN_GPU_DQS;
    GLintptr off = (GLintptr)((size_t)s * gc->slot_bytes + (dq ? gc->off_dq : gc->off_palette));
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_PALETTE, gc->stream.id, off,
                      (GLsizeiptr)(dq ? gc->dq_bytes : gc->palette_bytes));
    glProgramUniform1i(p->prog.id, p->u_influences, gc->slot_influences[s]);
    glProgramUniform1i(p->prog.id, p->u_joint_count, gc->slot_joints[s]);
}

/* Binds mesh M's blend-shape ranges of LAYOUT (the lists from LIST_BUF at
 * ACTIVE_OFF / WEIGHTS_OFF) and sets P's morph uniforms. */
static void bind_morph(const gfx_character *gc, const program_locs *p, gfx_character_morph layout, uint32_t m,
                       GLuint list_buf, size_t active_off, size_t weights_off)
{
    const morph_mesh *mm = &gc->morph[m];
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_DELTAS, gc->delta_buf[layout].id,
                      (GLintptr)mm->delta_off[layout], (GLsizeiptr)mm->delta_bytes[layout]);
    if (layout == GFX_CHARACTER_MORPH_DENSE) {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_WEIGHTS, list_buf, (GLintptr)active_off,
                          (GLsizeiptr)(MORPH_ACTIVE_HEADER_BYTES + mm->target_count * sizeof(morph_entry)));
    } else {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_WEIGHTS, list_buf, (GLintptr)weights_off,
                          (GLsizeiptr)(mm->target_count * sizeof(float)));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_BLEND_OFFSETS, gc->delta_buf[layout].id,
                          (GLintptr)mm->offsets_off, (GLsizeiptr)mm->offsets_bytes);
    }
    glProgramUniform1i(p->prog.id, p->u_morph_first, (GLint)gc->mesh_first[m]);
    glProgramUniform1ui(p->prog.id, p->u_morph_vertices, gc->mesh_vertices[m]);
    glProgramUniform1ui(p->prog.id, p->u_morph_targets, mm->target_count);
}

/* Meshes [A, B) as triangles, as points (capture), or as points streamed
 * out into FEEDBACK at their own vertices (the transform feedback object is
 * bound; each range is its own begin/end, so programs may change between
 * ranges and the output lands at the vertex numbering the passes draw). */
static void draw_range(const gfx_character *gc, uint32_t a, uint32_t b, draw_how how, GLuint feedback)
{
    if (how != DRAW_TRIANGLES) {
        uint32_t n = gc->mesh_first[b - 1] + gc->mesh_vertices[b - 1] - gc->mesh_first[a];
        if (how == DRAW_FEEDBACK) {
            glTransformFeedbackBufferRange(gc->tfo, 0, feedback,
                                           (GLintptr)((size_t)gc->mesh_first[a] * FEEDBACK_VERTEX_BYTES),
                                           (GLsizeiptr)((size_t)n * FEEDBACK_VERTEX_BYTES));
            glBeginTransformFeedback(GL_POINTS);
        }
        glDrawArrays(GL_POINTS, (GLint)gc->mesh_first[a], (GLsizei)n);
        if (how == DRAW_FEEDBACK)
            glEndTransformFeedback();
    } else {
        uint32_t n = gc->index_first[b - 1] + gc->index_counts[b - 1] - gc->index_first[a];
        glDrawElements(GL_TRIANGLES, (GLsizei)n, GL_UNSIGNED_INT,
                       (const void *)((uintptr_t)gc->index_first[a] * sizeof(uint32_t)));
    }
}

static void use_program(const gfx_character *gc, const program_locs *p, int s)
{
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    bind_palette(gc, p, s);
}

/* Slot S with GPU blend shapes: each mesh with an active list this frame is
 * its own morphing draw; runs of the other meshes share one skin-only draw.
 * A mesh's base vertices come from bind_vao, or from the slot's own arrays
 * (vao[s]) where the caller wrote a per-frame bind pose there; the shaders
 * are the same, only the attribute source changes. Returns the number of
 * morphing draws. */
static uint32_t draw_meshes(const gfx_character *gc, int s, int kind, draw_how how, GLuint feedback)
{
    gfx_character_morph layout = gc->slot_morph[s];
    int method = (int)gc->slot_mode[s];
    const program_locs *skin = &gc->gpu[method][kind], *mp = &gc->morph_prog[layout][method][kind];
    size_t slot = (size_t)s * gc->slot_bytes;
    uint32_t draws = 0, run = UINT32_MAX;
    GLuint run_vao = 0;
    for (uint32_t m = 0; m <= gc->mesh_count; m++) {
        bool end = m == gc->mesh_count;
        bool morph = !end && gc->slot_active[s][m] > 0 && mp->prog.id;
        GLuint vao = !end && gc->slot_stream_bind[s][m] ? gc->vao[s].id : gc->bind_vao.id;
        if (run != UINT32_MAX && (end || morph || vao != run_vao)) {
            glBindVertexArray(run_vao);
            use_program(gc, skin, s);
            draw_range(gc, run, m, how, feedback);
            run = UINT32_MAX;
        }
        if (end)
            break;
        if (!morph) {
            if (run == UINT32_MAX) {
                run = m;
                run_vao = vao;
            }
            continue;
        }
        glBindVertexArray(vao);
        use_program(gc, mp, s);
        bind_morph(gc, mp, layout, m, gc->stream.id, slot + gc->morph[m].off_active,
                   slot + gc->morph[m].off_weights);
        draw_range(gc, m, m + 1, how, feedback);
        draws++;
    }
    glBindVertexArray(0);
    return draws;
}

/* Skin once: slot S's morph and skinning, once, into its feedback buffer
 * (rasterizer discard); returns the morphing draws. The passes of the frame
 * read the buffer after it in GL command order, so no barrier or fence is
 * needed (transform-feedback writes are ordered with later vertex fetches). */
static uint32_t skin_once_pass(gfx_character *gc, int s)
{
    uint32_t draws = 0;
    glEnable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, gc->tfo);
    if (gc->slot_morph[s] != GFX_CHARACTER_MORPH_CPU) {
        draws = draw_meshes(gc, s, KIND_FEEDBACK, DRAW_FEEDBACK, gc->skinned[s].id);
    } else {
        use_program(gc, &gc->gpu[gc->slot_mode[s]][KIND_FEEDBACK], s);
        glBindVertexArray(gc->vao[s].id);
        draw_range(gc, 0, gc->mesh_count, DRAW_FEEDBACK, gc->skinned[s].id);
        glBindVertexArray(0);
    }
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glDisable(GL_RASTERIZER_DISCARD);
    gc->slot_skinned[s] = true;
    gc->stats.feedback_passes++;
    gc->stats.feedback_morph_draws = draws;
    return draws;
}

/* Reads BYTES of vec4 records (CAPTURE_VEC4S per vertex) from BUF into the
 * caller's spans. */
static bool read_vertices(gfx_character *gc, GLuint buf, float *out_pos, float *out_nrm, float *out_tan,
                          float *out_ao)
{
    size_t bytes = (size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float);
    float *data = malloc(bytes);
    if (!data) {
        log_error("render: %s: out of memory for the capture", gc->label);
        return false;
    }
    glGetNamedBufferSubData(buf, 0, (GLsizeiptr)bytes, data);
    for (size_t v = 0; v < gc->vertex_count; v++) {
        const float *d = data + v * CAPTURE_VEC4S * 4;
        memcpy(out_pos + 3 * v, d, 3 * sizeof(float));
        memcpy(out_nrm + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(out_tan + 4 * v, d + 8, 4 * sizeof(float));
        if (out_ao)
            out_ao[v] = d[3];
    }
    free(data);
    return true;
}

_Static_assert(SKIN_FEEDBACK_VEC4S == CAPTURE_VEC4S, "the feedback buffer is read back like a capture");

/* Slot S (hybrid): the blended keys through the capture variant. */
static bool capture_hybrid(gfx_character *gc, int s, GLuint buf)
{
    const program_locs *p = &gc->hybrid_prog[KIND_CAPTURE];
    if (!p->prog.id) {
        log_error("render: %s: cannot capture the hybrid: no vertex shader storage blocks", gc->label);
        return false;
    }
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    glProgramUniform1f(p->prog.id, p->u_hybrid_t, gc->slot_key_single[s] ? 1.0f : gc->slot_t[s]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, buf);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(gc->hybrid_vao[gc->slot_key[s]].id);
    glDrawArrays(GL_POINTS, 0, (GLsizei)gc->vertex_count);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, 0);
    return true;
}

bool gfx_character_capture(gfx_character *gc, float *out_pos, float *out_nrm, float *out_tan, float *out_ao)
{
    int s = gc->ready;
    if (s >= 0 && gc->slot_t[s] >= 0.0f) {
        GLuint buf;
        glCreateBuffers(1, &buf);
        glNamedBufferStorage(buf, (GLsizeiptr)((size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float)), NULL,
                             0);
        bool ok = capture_hybrid(gc, s, buf) && read_vertices(gc, buf, out_pos, out_nrm, out_tan, out_ao);
        glDeleteBuffers(1, &buf);
        return ok && glGetError() == GL_NO_ERROR;
    }
    if (s >= 0 && gc->slot_mode[s] != GFX_SKIN_CPU && gc->slot_skin_once[s]) {
        /* The skin-once buffer itself, as the passes draw it. */
        if (!gc->slot_skinned[s])
            skin_once_pass(gc, s);
        return read_vertices(gc, gc->skinned[s].id, out_pos, out_nrm, out_tan, out_ao) &&
               glGetError() == GL_NO_ERROR;
    }
    if (s < 0 || gc->slot_mode[s] == GFX_SKIN_CPU) {
        log_error("render: %s: capture needs a GPU-skinned slot", gc->label);
        return false;
    }
    const program_locs *p = &gc->gpu[gc->slot_mode[s]][KIND_CAPTURE];
    gfx_character_morph layout = gc->slot_morph[s];
    if (!p->prog.id) {
        char msg[256];
        gfx_character_gpu_limits_ok(gfx_get_info(), gc->slot_joints[s], 1, msg, sizeof msg);
        log_error("render: %s: cannot capture: %s", gc->label, msg);
        return false;
    }
    if (layout != GFX_CHARACTER_MORPH_CPU && !gc->morph_prog[layout][gc->slot_mode[s]][KIND_CAPTURE].prog.id) {
        char msg[256];
        if (gfx_character_morph_limits_ok(gfx_get_info(), 0, MORPH_BLOCKS(layout) + 1, msg, sizeof msg))
            snprintf(msg, sizeof msg, "its program was not built at create");
        log_error("render: %s: cannot capture the GPU blend shapes: %s", gc->label, msg);
        return false;
    }
    size_t bytes = (size_t)gc->vertex_count * CAPTURE_VEC4S * 4 * sizeof(float);
    float *data = malloc(bytes);
    if (!data) {
        log_error("render: %s: out of memory for the capture", gc->label);
        return false;
    }
    GLuint buf;
    glCreateBuffers(1, &buf);
    glNamedBufferStorage(buf, (GLsizeiptr)bytes, NULL, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, buf);
    glEnable(GL_RASTERIZER_DISCARD);
    if (layout != GFX_CHARACTER_MORPH_CPU) {
        draw_meshes(gc, s, KIND_CAPTURE, DRAW_POINTS, 0);
    } else {
        use_program(gc, p, s);
        glBindVertexArray(gc->vao[s].id);
        glDrawArrays(GL_POINTS, 0, (GLsizei)gc->vertex_count);
        glBindVertexArray(0);
    }
    glDisable(GL_RASTERIZER_DISCARD);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(buf, 0, (GLsizeiptr)bytes, data);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SKIN_CAPTURE, 0);
    glDeleteBuffers(1, &buf);
    for (size_t v = 0; v < gc->vertex_count; v++) {
        const float *d = data + v * CAPTURE_VEC4S * 4;
        memcpy(out_pos + 3 * v, d, 3 * sizeof(float));
        memcpy(out_nrm + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(out_tan + 4 * v, d + 8, 4 * sizeof(float));
        if (out_ao)
            out_ao[v] = d[3];
    }
    free(data);
    return glGetError() == GL_NO_ERROR;
}

static void draw_hook(const gfx_pass_info *info, void *user)
{
    gfx_character *gc = user;
    if (!gc->visible || gc->ready < 0)
        return;
    int s = gc->ready;
    int kind = info->pass == GFX_PASS_SHADOW                 ? KIND_SHADOW
               : (info->frame->layers & GFX_LAYER_SHADOWS) ? KIND_LIT
                                                           : KIND_NOSHADOW;
    bool once = gc->slot_mode[s] != GFX_SKIN_CPU && gc->slot_skin_once[s];
    if (once) {
        /* The frame's first pass deforms the slot once; every pass then
         * draws the feedback buffer with the CPU path's programs. */
        if (!gc->slot_skinned[s])
            skin_once_pass(gc, s);
        const program_locs *p = kind == KIND_SHADOW ? &gc->shadow : kind == KIND_LIT ? &gc->lit : &gc->lit_noshadow;
        glUseProgram(p->prog.id);
        glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
        glBindVertexArray(gc->skinned_vao[s].id);
        glDrawElements(GL_TRIANGLES, (GLsizei)gc->index_count, GL_UNSIGNED_INT, NULL);
        glBindVertexArray(0);
        if (info->pass == GFX_PASS_MAIN)
            gc->stats.morph_draws = gc->stats.feedback_morph_draws;
    } else if (gc->slot_t[s] >= 0.0f) {
        /* Cebenoyan's hybrid: blend the slot's two keys. */
        const program_locs *p = &gc->hybrid_prog[kind];
        glUseProgram(p->prog.id);
        glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
        glProgramUniform1f(p->prog.id, p->u_hybrid_t, gc->slot_key_single[s] ? 1.0f : gc->slot_t[s]);
        glBindVertexArray(gc->hybrid_vao[gc->slot_key[s]].id);
        glDrawElements(GL_TRIANGLES, (GLsizei)gc->index_count, GL_UNSIGNED_INT, NULL);
        glBindVertexArray(0);
        if (info->pass == GFX_PASS_MAIN)
            gc->stats.morph_draws = 0;
    } else if (gc->slot_mode[s] != GFX_SKIN_CPU && gc->slot_morph[s] != GFX_CHARACTER_MORPH_CPU) {
        uint32_t draws = draw_meshes(gc, s, kind, DRAW_TRIANGLES, 0);
        if (info->pass == GFX_PASS_MAIN)
            gc->stats.morph_draws = draws;
    } else {
        const program_locs *p;
        if (gc->slot_mode[s] != GFX_SKIN_CPU) {
            p = &gc->gpu[gc->slot_mode[s]][kind];
            bind_palette(gc, p, s);
        } else {
            p = kind == KIND_SHADOW ? &gc->shadow : kind == KIND_LIT ? &gc->lit : &gc->lit_noshadow;
        }
        glUseProgram(p->prog.id);
        glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
        glBindVertexArray(gc->vao[s].id);
        glDrawElements(GL_TRIANGLES, (GLsizei)gc->index_count, GL_UNSIGNED_INT, NULL);
        glBindVertexArray(0);
        if (info->pass == GFX_PASS_MAIN)
            gc->stats.morph_draws = 0;
    }
    if (info->pass == GFX_PASS_MAIN) {
        /* The main pass is the slot's last reader this frame. */
        if (gc->fence[s])
            glDeleteSync(gc->fence[s]);
        gc->fence[s] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        if (gc->slot_t[s] >= 0.0f) {
            /* ... and of its two keys. */
            int keys[2] = {gc->slot_key[s], (gc->slot_key[s] + KEY_SLOTS - 1) % KEY_SLOTS};
            for (int i = 0; i < 2; i++) {
                if (gc->key_fence[keys[i]])
                    glDeleteSync(gc->key_fence[keys[i]]);
                gc->key_fence[keys[i]] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
            }
        }
    }
}

bool gfx_character_bake(gfx_character *gc, const gfx_character_bake_job *job)
{
    if (!job || !job->out_positions || !job->out_normals || !job->out_tangents || !job->out_ao) {
        log_error("render: %s: bake without output spans", gc->label);
        return false;
    }
    if (!gfx_character_morph_supported(gc, job->layout) || !gc->bake_prog[job->layout].prog.id) {
        log_error("render: %s: cannot bake: GPU blend shapes in layout %d are not available", gc->label,
                  (int)job->layout);
        return false;
    }
    if (!check_active(gc, job->mesh, job->active_count, job->active_target, job->active_weight))
        return false;
    uint32_t m = job->mesh, vc = gc->mesh_vertices[m];
    const morph_mesh *mm = &gc->morph[m];
    size_t active_bytes = align_up(MORPH_ACTIVE_HEADER_BYTES + (size_t)mm->target_count * sizeof(morph_entry));
    size_t list_bytes = active_bytes + (size_t)mm->target_count * sizeof(float);
    size_t out_bytes = (size_t)vc * BAKE_VEC4S * 4 * sizeof(float);
    uint8_t *lists = calloc(list_bytes, 1);
    float *data = malloc(out_bytes ? out_bytes : 1);
    if (!lists || !data || vc == 0) {
        free(lists);
        free(data);
        log_error("render: %s: cannot bake mesh %u (%u vertices, out of memory?)", gc->label, m, vc);
        return false;
    }
    fill_lists(gc, m, job->active_count, job->active_target, job->active_weight, lists,
               (float *)(lists + active_bytes));
    GLuint bufs[2], tfo, query;
    glCreateBuffers(2, bufs);
    glNamedBufferStorage(bufs[0], (GLsizeiptr)list_bytes, lists, 0);
    glNamedBufferStorage(bufs[1], (GLsizeiptr)out_bytes, NULL, 0);
    label_object(GL_BUFFER, bufs[1], gc->label, "bake_feedback");
    glCreateTransformFeedbacks(1, &tfo);
    glTransformFeedbackBufferBase(tfo, 0, bufs[1]);
    glCreateQueries(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, 1, &query);
    const program_locs *p = &gc->bake_prog[job->layout];
    glUseProgram(p->prog.id);
    glProgramUniformMatrix4fv(p->prog.id, p->u_model, 1, GL_FALSE, gc->model);
    bind_morph(gc, p, job->layout, m, bufs[0], 0, active_bytes);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(gc->bind_vao.id);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, tfo);
    glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, (GLint)gc->mesh_first[m], (GLsizei)vc);
    glEndTransformFeedback();
    glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glBindVertexArray(0);
    glDisable(GL_RASTERIZER_DISCARD);
    GLuint written = 0;
    glGetQueryObjectuiv(query, GL_QUERY_RESULT, &written);
    glGetNamedBufferSubData(bufs[1], 0, (GLsizeiptr)out_bytes, data);
    glDeleteQueries(1, &query);
    glDeleteTransformFeedbacks(1, &tfo);
    glDeleteBuffers(2, bufs);
    for (size_t v = 0; v < vc; v++) {
        const float *d = data + v * BAKE_VEC4S * 4;
        memcpy(job->out_positions + 3 * v, d, 3 * sizeof(float));
        job->out_ao[v] = d[3];
        memcpy(job->out_normals + 3 * v, d + 4, 3 * sizeof(float));
        memcpy(job->out_tangents + 4 * v, d + 8, 4 * sizeof(float));
    }
    free(lists);
    free(data);
    GLenum err = glGetError();
    if (written != vc || err != GL_NO_ERROR) {
        log_error("render: %s: bake of mesh %u wrote %u of %u vertices (GL error 0x%x)", gc->label, m, written, vc,
                  err);
        return false;
    }
    return true;
}
