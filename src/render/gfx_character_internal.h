/* gfx_character_internal: the character renderer's state and what its
 * files share. Not part of the interface: only src/render/gfx_character*.c
 * include it. One file per technique, each readable on its own:
 *   gfx_character.c          create/destroy, the fenced stream slots, the
 *                            static vertex data, the draw hook (the order
 *                            of a frame's draws), CPU-deformed drawing;
 *   gfx_character_skin.c     the joint palette and GPU skinning (skin.glsl);
 *   gfx_character_morph.c    GPU blend shapes: the deltas in immutable SSBOs
 *                            (dense and sparse), the per-frame active lists,
 *                            the morphing draws (morph.glsl);
 *   gfx_character_once.c     deform once per frame in a compute pass;
 *   gfx_character_hybrid.c   Cebenoyan's hybrid: the ring of CPU-skinned
 *                            keys and their blend in the vertex shader;
 *   gfx_character_capture.c  reading the GPU's vertices back: capture
 *                            (tests) and the blend-shape bake;
 *   gfx_character_cull.c     the CPU path's sample cull: each pass sends
 *                            only triangles that can cover a pixel or
 *                            shadow-map texel centre (sample_cull.h).
 * Internal functions are gfx_char_<technique>_<verb>; the public ones keep
 * gfx_character_ (gfx_character.h).
 * Does NOT: hold anything a file could keep static.
 */
#ifndef STRIDER_RENDER_GFX_CHARACTER_INTERNAL_H
#define STRIDER_RENDER_GFX_CHARACTER_INTERNAL_H

#include "render/gfx_character.h"
#include "render/gfx_ring.h"
#include "render/gfx_shader.h"
#include "render/sample_cull.h"
#include "shaders/shader_interface.h"

#include <GL/glew.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* GPU skinning variants (gfx_skin_mode_t >= 0) and program kinds; DEFORM is
 * the skin-once compute pass (shaders/character_deform.comp). */
enum { GPU_METHODS = 3, KIND_LIT = 0, KIND_NOSHADOW, KIND_SHADOW, KIND_CAPTURE, KIND_DEFORM, KINDS };
/* Frames of character timestamps in flight (gpu_time_query). */
enum { GPU_TIME_FRAMES = 4 };
/* Hybrid keys in the key ring: the two a slot blends, plus one being
 * written, plus one for a frame still on the GPU (each key is fenced). */
enum { KEY_SLOTS = 4 };
/* Bytes per vertex of the skin-once buffer of deformed vertices
 * (character_deform.comp's output, the bake's layout: position + AO,
 * normal + 0, tangent). */
#define FEEDBACK_VERTEX_BYTES ((size_t)SKIN_FEEDBACK_VEC4S * 4 * sizeof(float))
/* Byte offsets inside one feedback vertex. */
enum { FEEDBACK_OFF_POS = 0, FEEDBACK_OFF_AO = 12, FEEDBACK_OFF_NORMAL = 16, FEEDBACK_OFF_TANGENT = 32 };
/* How a range of meshes is issued: drawn as triangles, drawn as points
 * (capture), or deformed by the skin-once compute pass. */
typedef enum draw_how_t { DRAW_TRIANGLES, DRAW_POINTS, DRAW_COMPUTE } draw_how_t;
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
typedef struct morph_entry_t {
    uint32_t target;
    float weight;
} morph_entry_t;
/* Material arrays in character.frag; must match CHR_MAX_MATERIALS. */
#define MATERIAL_SLOTS CHR_MAX_MATERIALS

/* Static per-vertex data: uv and the material index. */
typedef struct static_vertex_t {
    float uv[2];
    uint32_t material;
} static_vertex_t;

/* Static skinning data: joint indices (integer attribute) and weights. */
typedef struct skin_vertex_t {
    uint16_t joints[4];
    float weights[4];
} skin_vertex_t;

typedef struct program_locs_t {
    gfx_program_t prog;
    GLint u_model, u_influences, u_joint_count;
    GLint u_morph_first, u_morph_vertices, u_morph_targets;
    GLint u_hybrid_t;
    GLint u_deform_first, u_deform_count; /* the skin-once compute pass */
    GLuint deform_group_vertices;         /* its vertices a work group (0: not a compute program) */
} program_locs_t;

/* Where one mesh's blend shapes live on the GPU (bytes). */
typedef struct morph_mesh_t {
    uint32_t target_count;           /* 0: no blend shapes */
    size_t delta_off[MORPH_LAYOUTS]; /* in delta_buf[layout] */
    size_t delta_bytes[MORPH_LAYOUTS];
    size_t offsets_off, offsets_bytes; /* sparse offsets, then the pairs' targets, in delta_buf[SPARSE] */
    size_t off_active, off_weights;    /* inside a stream slot */
} morph_mesh_t;

/* One stream slot: what a frame in flight owns (its GL objects, fenced by
 * the main pass that read it last) and how end_update said to deform and
 * draw it. Slot s's vertex arrays and palettes live in `stream` at
 * s * slot_bytes; its fence is stream.fence[s]. */
typedef struct char_slot_t {
    gfx_vertex_array_t vao; /* the slot's vertex arrays, with the static and skin attributes */
    /* A device-local copy of the slot's tail [off_palette, slot_bytes):
     * palettes, active lists, weight tables. end_update has the GPU copy it
     * there; the shaders read the copy. The CPU's writes go to mapped
     * memory, which on NVIDIA is the CPU's own memory: a shader reading it
     * per vertex crosses the bus. */
    gfx_buffer_t frame_data;
    /* Sample culling: the positions as the CPU wrote them (cacheable
     * memory, read by the cull; end_update copies them into the mapped
     * slot); NULL where the cull does not run. */
    float *pos;
    /* Skin once: the deformed vertices (written by the compute pass before
     * the slot's first draw of a frame, read by both passes), the VAO that
     * draws them with the plain programs, and whether this frame's pass ran. */
    gfx_buffer_t skinned;
    gfx_vertex_array_t skinned_vao;
    bool deformed;
    /* As ended: skinning, blend shapes, skin once, the hybrid's keys and t
     * (t < 0: not a hybrid slot), the reach, each mesh's active entries and
     * whether its morph base is the slot's own arrays. */
    gfx_skin_mode_t mode;
    int influences, joints;
    gfx_character_morph_t morph;
    bool skin_once;
    float hybrid_t;
    int key;
    bool key_single;
    float reach[4];
    float model[16]; /* model -> world */
    uint32_t active[CHR_MAX_MESHES];
    bool stream_bind[CHR_MAX_MESHES];
} char_slot_t;

struct gfx_character_t {
    char label[64];
    uint32_t vertex_count, index_count, mesh_count;
    uint32_t mesh_first[CHR_MAX_MESHES];
    uint32_t mesh_vertices[CHR_MAX_MESHES];
    char mesh_name[CHR_MAX_MESHES][CHR_NAME_MAX]; /* for messages */
    uint32_t index_first[CHR_MAX_MESHES], index_counts[CHR_MAX_MESHES];
    /* Bit M: mesh M is part of a closed surface or authored one-sided
     * (chr_cullable_meshes): its back faces never show, and are culled. */
    uint32_t cull_meshes;
    gfx_ring_t stream; /* GFX_CHARACTER_SLOTS x slot_bytes; last: the slot ready to draw */
    char_slot_t slot[GFX_CHARACTER_SLOTS];
    size_t frame_data_bytes; /* a slot's tail [off_palette, slot_bytes) */
    /* The character, kept (the caller's) for the GPU techniques' vertex
     * data: skin_vbo (joints, weights) and bind_vbo are uploaded when
     * first needed, not at create: the CPU path reads neither. */
    const chr_character_t *chr;
    gfx_buffer_t static_vbo, ibo, skin_vbo;
    size_t slot_bytes;                      /* one stream slot (gfx_ring) */
    size_t off_normal, off_tangent, off_ao; /* inside a slot; positions at 0 */
    size_t off_palette, off_dq;             /* inside a slot: GPU skinning palettes */
    size_t palette_bytes, dq_bytes;
    bool gpu_ok;     /* the limits allow GPU skinning */
    int skel_joints; /* joints of the character's skeleton (capture limits) */
    /* GPU-skinning programs of each method, compiled when the method is
     * first asked for (begin_update); failed: a shader error, logged once. */
    bool gpu_built[GPU_METHODS], gpu_failed[GPU_METHODS];
    program_locs_t gpu[GPU_METHODS][KINDS];
    /* The character's materials, set on each lit program when it is built. */
    float material_color[MATERIAL_SLOTS][4], material_params[MATERIAL_SLOTS][4];
    /* The update being written: as begin_update took its desc (skinning,
     * blend shapes, skin once, hybrid t, transform), for end_update to give
     * the slot. */
    gfx_skin_mode_t mode;
    int influences, joint_count;
    float next_model[16];
    /* The CPU path's programs; lit_noshadow is built the first time
     * shadows are off (failed: a shader error, logged once). Its shadow
     * pass draws with the renderer's depth program (gfx_pass_info.caster,
     * set into `caster` for the pass): the same positions through the same
     * projection, so no program of its own. */
    program_locs_t lit, lit_noshadow, caster;
    bool noshadow_failed;
    /* The same two without the fog (STRIDER_NO_FOG), built the first time
     * a slot's reach keeps the whole figure before the fog's start. */
    program_locs_t lit_nofog[2]; /* [0] lit, [1] without the shadow lookup */
    bool nofog_failed[2];
    /* What gfx_character_set_reach() said of the slot being written:
     * centre xyz, radius (cm, model space; < 0: unknown). */
    float reach[4];
    bool fog_everywhere;
    /* GPU blend shapes. The unmorphed bind pose (position, normal, tangent,
     * AO arrays as in a slot) is static and read through bind_vao. */
    gfx_buffer_t bind_vbo;
    gfx_vertex_array_t bind_vao;
    gfx_buffer_t delta_buf[MORPH_LAYOUTS];
    morph_mesh_t morph[CHR_MAX_MESHES];
    /* Per layout: the targets fit the limits (create), its deltas and
     * programs are on the GPU (prepare_morph), or preparing failed. */
    bool morph_fits[MORPH_LAYOUTS], morph_ok[MORPH_LAYOUTS], morph_failed[MORPH_LAYOUTS];
    program_locs_t morph_prog[MORPH_LAYOUTS][GPU_METHODS][KINDS];
    program_locs_t bake_prog[MORPH_LAYOUTS];
    gfx_character_morph_t morph_mode;
    bool active_written[CHR_MAX_MESHES]; /* in this update */
    /* Meshes whose morph base is the slot's vertex arrays instead of
     * bind_vbo (a bind pose that changes per frame), in this update. */
    bool stream_bind[CHR_MAX_MESHES];
    uint32_t active_now[CHR_MAX_MESHES];
    float *weight_scratch; /* max target count: weights summed per target */
    uint32_t max_targets;
    /* Skin once for the next slot; the slots' buffers exist (the first update asking for it). */
    bool skin_once, once_built;
    /* Cebenoyan's hybrid: a persistent-mapped ring of CPU-skinned keys
     * (vertex arrays laid out as in a stream slot), one VAO per key k that
     * reads k as the newer key and k - 1 as the older, and per slot the
     * pair and t it was ended with (t < 0: not a hybrid slot). */
    gfx_ring_t keys; /* KEY_SLOTS keys of a slot's vertex arrays */
    gfx_vertex_array_t hybrid_vao[KEY_SLOTS];
    bool key_single; /* the last key has no older partner yet */
    float hybrid_t;
    program_locs_t hybrid_prog[KINDS]; /* DEFORM unused */
    bool hybrid_built, hybrid_failed;  /* the ring and programs (first begin_key) */
    /* Sample culling (gfx_character_cull.c), on software rasterisers only
     * (elsewhere all NULL/0; each slot's positions: char_slot.pos): the
     * index buffer's copy, scratch for one view's projected vertices and
     * kept indices, an index buffer per pass. */
    uint32_t *cpu_indices;
    sample_cull_vertex_t *cull_projected;
    uint32_t *cull_kept;
    gfx_buffer_t cull_ibo[2];
    bool all_triangles; /* gfx_character_set_all_triangles: the cull off */
    bool visible;
    /* GPU time of the character's part of a frame: timestamps around its
     * draw hook in the shadow and the main pass (a compute pass included),
     * per frame of a ring read back GPU_TIME_FRAMES - 1 frames later, when
     * available (never waited for). */
    GLuint gpu_time_query[GPU_TIME_FRAMES][6]; /* shadow, main pass, skin-once compute: begin, end */
    bool gpu_time_issued[GPU_TIME_FRAMES][3];  /* [frame][shadow, main, compute]: both timestamps issued */
    int gpu_time_frame;
    gfx_character_stats_t stats;
};

static inline size_t gfx_char_align(size_t v) { return (v + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN; }

/* ---- gfx_character.c: shared by every technique */

/* Names a GL object "BASE.WHAT" in debug output. */
void gfx_char_label(GLenum kind, GLuint id, const char *base, const char *what);
/* Builds a program and looks up the uniforms of program_locs_t. */
bool gfx_char_load_program(program_locs_t *p, const char *vs, const char *fs, const char *defines, const char *label);
/* Sets the character's material colours and parameters on a lit program. */
void gfx_char_set_materials(const gfx_character_t *gc, const program_locs_t *p);
/* The CPU path's program of KIND (lit, unshadowed or shadow): it draws
 * vertices that are already deformed. */
const program_locs_t *gfx_char_cpu_program(const gfx_character_t *gc, int kind);
/* A VAO reading position/normal/tangent/AO from BUF at BASE (+ the slot
 * offsets) and the static attributes. */
GLuint gfx_char_make_vao(const gfx_character_t *gc, GLuint buf, GLintptr base, const char *what);
/* Meshes [A, B) as triangles (the back faces of closed meshes culled) or as
 * points (HOW is DRAW_TRIANGLES or DRAW_POINTS). */
void gfx_char_draw_range(const gfx_character_t *gc, uint32_t a, uint32_t b, draw_how_t how);
/* Meshes [A, B) as triangles from the bound index buffer: FIRST[m] and
 * COUNTS[m] indices of mesh m, runs of meshes alike in culling back faces
 * drawn as one. */
void gfx_char_draw_triangles(const gfx_character_t *gc, uint32_t a, uint32_t b, const uint32_t *first,
                             const uint32_t *counts);
/* Waits for *FENCE (if any) and deletes it; false (one line) on a timeout. */
bool gfx_char_wait_fence(gfx_character_t *gc, GLsync *fence, const char *what);

/* Uploads the joints and weights (skin_vbo) if not yet there and attaches
 * them to every vertex array; false (logged) when memory runs out. */
bool gfx_char_skin_vertices_ready(gfx_character_t *gc);

/* ---- gfx_character_cull.c: sample culling of the CPU path */

/* The buffers of the sample cull; false (logged) when memory runs out. */
bool gfx_char_cull_create(gfx_character_t *gc);
void gfx_char_cull_destroy(gfx_character_t *gc);
/* Draws slot S (CPU path, its VAO bound) with the triangles INFO's pass
 * can sample; false when the cull does not apply (off, wireframe, several
 * samples per pixel): the caller draws every triangle. */
bool gfx_char_cull_draw(gfx_character_t *gc, int s, const gfx_pass_info_t *info);

/* ---- gfx_character_skin.c: the palette and GPU skinning */

/* Whether the limits allow GPU skinning (gpu_ok); builds no program. */
void gfx_char_skin_create(gfx_character_t *gc, const chr_character_t *c);
/* The programs of METHOD (a gfx_skin_mode_t >= 0), built on first use;
 * false (one line, once) on a shader error. */
bool gfx_char_skin_build(gfx_character_t *gc, int method);
void gfx_char_skin_destroy(gfx_character_t *gc);
/* Binds slot S's palette and sets P's skinning uniforms. */
void gfx_char_skin_bind_palette(const gfx_character_t *gc, const program_locs_t *p, int s);
/* Whether DESC's GPU skinning can run here: the limits, its method,
 * influence and joint counts (one line when not); builds its programs the
 * first time, and sets the update's mode, influences and joint count. */
bool gfx_char_skin_choose(gfx_character_t *gc, const gfx_character_desc_t *desc);
/* Uses P with the model matrix and slot S's palette. */
void gfx_char_skin_use_program(const gfx_character_t *gc, const program_locs_t *p, int s);

/* ---- gfx_character_morph.c: GPU blend shapes */

/* The unmorphed bind pose (and bind_vao reading it), from gc->chr. */
bool gfx_char_morph_upload_bind(gfx_character_t *gc);
/* Which layouts fit the limits (morph_fits); uploads and builds nothing
 * (gfx_character_prepare_morph does, on first use). */
void gfx_char_morph_create(gfx_character_t *gc, const gfx_character_targets_t *morph);
void gfx_char_morph_destroy(gfx_character_t *gc);
bool gfx_char_morph_check_active(const gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                 const float *weights);
/* Writes the dense active list to ACTIVE and the weight table to TABLE;
 * returns the list's length. */
uint32_t gfx_char_morph_fill_lists(gfx_character_t *gc, uint32_t mesh, int count, const uint32_t *targets,
                                   const float *weights, uint8_t *active, float *table);
/* Binds mesh M's blend-shape ranges of LAYOUT and sets P's morph uniforms. */
void gfx_char_morph_bind(const gfx_character_t *gc, const program_locs_t *p, gfx_character_morph_t layout, uint32_t m,
                         GLuint list_buf, size_t active_off, size_t weights_off);
/* GPU-skinned slot S (blend shapes on the GPU or not), drawn HOW
 * (DRAW_COMPUTE: deformed into the bound SSBO_DEFORM_OUT), each mesh from
 * the bind pose or the slot's own arrays; returns the morphing draws (or
 * dispatches). */
uint32_t gfx_char_morph_draw(const gfx_character_t *gc, int s, int kind, draw_how_t how);

/* ---- gfx_character_once.c: deform once per frame in a compute pass */

/* The deformed-vertex buffers and their VAOs (GPU skinning only), built by
 * the first update that asks for skin once. */
void gfx_char_once_build(gfx_character_t *gc);
void gfx_char_once_destroy(gfx_character_t *gc);
/* The compute program of the pass (character_deform.comp with DEFINES;
 * MORPH: they define STRIDER_GPU_MORPH) into P, its uniforms looked up;
 * false (logged) on a shader error. */
bool gfx_char_once_load_program(gfx_character_t *gc, program_locs_t *p, bool morph, const char *defines,
                                const char *label);
/* Binds the pass's source vertices: slot S's arrays (STREAM) or bind_vbo. */
void gfx_char_once_bind_source(const gfx_character_t *gc, int s, bool stream);
/* Dispatches P (bound, its blocks bound) over the vertices of meshes [A, B). */
void gfx_char_once_dispatch(const gfx_character_t *gc, const program_locs_t *p, uint32_t a, uint32_t b);
/* Deforms slot S once into its buffer; returns the morphing dispatches.
 * TIMED (from the draw hook): timestamps around it for this frame's
 * gpu_deform_ms. */
uint32_t gfx_char_once_pass(gfx_character_t *gc, int s, bool timed);
/* Draws slot S's deformed buffer with the program of KIND (deforming it
 * first if no pass of this frame has). */
void gfx_char_once_draw(gfx_character_t *gc, int s, int kind, bool main_pass);

/* ---- gfx_character_hybrid.c: Cebenoyan's hybrid */

/* The blending programs, the persistent-mapped key ring and its VAOs,
 * built by the first begin_key; false (one line, once) on an error. */
bool gfx_char_hybrid_build(gfx_character_t *gc);
void gfx_char_hybrid_destroy(gfx_character_t *gc);
/* Draws slot S's two keys blended at its t with the program of KIND. */
void gfx_char_hybrid_draw(gfx_character_t *gc, int s, int kind, bool main_pass);
/* After the main pass: fences the two keys slot S read. */
void gfx_char_hybrid_fence_keys(gfx_character_t *gc, int s);

#endif
