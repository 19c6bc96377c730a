/* gfx_crowd_internal: the crowd renderer's state and what its three files
 * share. Not part of the interface: only src/render/gfx_crowd*.c include it.
 *   gfx_crowd.c      create/destroy, the meshes, the palette and list rings,
 *                    the cull and the levels of detail, the draw hook and the
 *                    GPU-skinned (instanced) draws;
 *   gfx_crowd_cpu.c  the CPU deformation mode: each level's own vertices
 *                    (the sources of the skinning jobs and a static buffer of
 *                    the rest of their attributes), the ring of skinned
 *                    vertices, the jobs it hands out and its draws;
 *   gfx_crowd_cull.c the CPU mode's sample cull on software rasterisers.
 * Internal functions are gfx_crowd_<part>_<verb>; the public ones are in
 * gfx_crowd.h.
 * Does NOT: hold anything a file could keep static.
 */
#ifndef STRIDER_RENDER_GFX_CROWD_INTERNAL_H
#define STRIDER_RENDER_GFX_CROWD_INTERNAL_H

#include "render/gfx_crowd.h"
#include "render/gfx_ring.h"
#include "render/gfx_shader.h"
#include "render/sample_cull.h"

#include "shaders/shader_interface.h"

#include <GL/glew.h>

/* Sub-arrays of a ring slot start at multiples of this (bytes): above
 * GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT and cache lines. */
#define SLOT_ALIGN 256u
/* A fence still pending after this long means the GPU is hung (ns). */
#define FENCE_TIMEOUT_NS 1000000000ull
/* Material arrays of character.vert (MATERIAL_SLOTS there). */
#define MATERIAL_SLOTS CHR_MAX_MATERIALS
/* Frames of timestamps in flight (read back GPU_TIME_FRAMES - 1 later). */
enum { GPU_TIME_FRAMES = 4 };
/* Vertex buffer bindings of the VAO (not attribute locations). */
enum { BIND_VERTEX = 0, BIND_INSTANCE = 1 };
/* Programs: lit, lit without the shadow lookup, shadow caster. */
enum { PROG_LIT = 0, PROG_NOSHADOW, PROG_SHADOW, PROGS };
/* Lists of a list-ring slot: one per pass and level of detail. */
enum { LISTS = 2 * GFX_CROWD_LODS };
/* Floats a CPU-skinned vertex takes in view (position, normal, tangent)
 * and casting a shadow only (position). */
enum { CPU_LIT_FLOATS = 10, CPU_SHADOW_FLOATS = 3 };

/* One vertex as the crowd's shaders read it (the bind pose). */
typedef struct crowd_vertex_t {
    float pos[3];
    float normal[3];
    float tangent[4];
    float uv[2];
    float ao;
    uint32_t material;
    uint16_t joints[4];
    float weights[4];
} crowd_vertex_t;

typedef struct crowd_program_t {
    gfx_program_t prog;
    GLint u_influences, u_joint_count;
    GLint u_lod_first, u_lod_vertices; /* CPU mode's (crowd_cpu.glsl) */
} crowd_program_t;

/* The CPU deformation mode's state (gfx_crowd_cpu.c). */
typedef struct crowd_cpu_t {
    bool ok; /* built at create; false: the crowd is GPU-skinned only (logged) */
    /* Each level's own vertices (those its triangles use, in the full
     * mesh's order), one level after another. */
    uint32_t first[GFX_CROWD_LODS], vertices[GFX_CROWD_LODS];
    float *pos, *nrm, *tan, *weights; /* 3, 3, 4, 4 per vertex: the jobs' sources */
    uint16_t *joints;                 /* 4 per vertex */
    gfx_buffer_t vbo, ibo;            /* their uv, AO and material; the levels' indices into them */
    gfx_vertex_array_t vao;
    crowd_program_t prog[PROGS];
    /* Skinned vertices, written by the jobs straight into the mapped ring
     * and read there by the vertex shaders; fenced after the main pass. */
    gfx_ring_t verts;
    size_t slot_floats;                  /* one slot's room */
    size_t used_floats[GFX_CROWD_SLOTS]; /* of each slot, when last laid out */
    float *palette;                      /* max_instances palettes, CPU memory (the jobs read them) */
    skin_job_t *jobs;                    /* max_instances: one per member skinned */
    bool laid_out;                       /* this update's jobs were handed out */
    bool overflow_logged;                /* a frame that did not fit was logged */
    /* The sample cull (software rasterisers only, gfx_crowd_cpu_draw_culled;
     * NULL elsewhere): every level's indices onto its own vertices (from 0,
     * laid out as the index buffer), one member's projected vertices, the
     * kept indices of a pass and their room, and per drawn member and run
     * of meshes the first kept index and count (first CULL_UNCUT: drawn
     * whole from ibo, the kept ones did not fit). */
    uint32_t *cull_idx;
    sample_cull_vertex_t *cull_projected;
    uint32_t *cull_kept, cull_room;
    uint32_t (*cull_ranges)[2];
    gfx_buffer_t cull_ibo[2]; /* per pass: the kept indices, cull_room each */
} crowd_cpu_t;

/* What the cull needs of a view: both frustums, the main view's clip w
 * row and its pixels per unit of radius over w. */
typedef struct crowd_view_t {
    float view[6][4], light[6][4];
    float w_row[4];
    float px_scale;
    bool shadows;
} crowd_view_t;

struct gfx_crowd_t {
    char label[64];
    int max_instances, joint_count;
    bool every_triangle; /* no sample cull in the CPU mode (desc) */
    float lod_px[2];
    uint32_t vertex_count, index_count, mesh_count;
    /* Per level of detail, each mesh's indices (asset/lod.h): the levels
     * one after another in the index buffer, the meshes of a level in
     * order, so meshes alike in culling draw as one run. */
    uint32_t index_first[GFX_CROWD_LODS][CHR_MAX_MESHES], index_counts[GFX_CROWD_LODS][CHR_MAX_MESHES];
    uint32_t lod_triangles[GFX_CROWD_LODS]; /* of one instance at each level */
    uint32_t cull_meshes;                   /* bit m: mesh m's back faces never show (chr_cullable_meshes) */
    gfx_buffer_t vbo, ibo;
    gfx_vertex_array_t vao;
    crowd_program_t prog[PROGS];
    /* Palettes: written by the CPU into the mapped ring, copied by
     * end_update into the slot's device-local buffer, which the shaders
     * read (mapped memory may be the CPU's, across the bus). */
    gfx_ring_t palettes;
    gfx_buffer_t palette_dev[GFX_CROWD_SLOTS];
    size_t palette_bytes; /* one instance's palette */
    int slot_count[GFX_CROWD_SLOTS];
    /* How each palette slot's members are drawn (CPU: from cpu.verts). */
    gfx_crowd_deform_t slot_deform[GFX_CROWD_SLOTS];
    gfx_crowd_deform_t deform, writing_deform; /* asked for; of the update being written */
    float *bounds;                             /* GFX_CROWD_SLOTS x max_instances x 4, CPU memory */
    /* The visible lists of a frame: LISTS x max_instances instance indices
     * (CPU mode: float offsets into cpu.verts' slot), read as the instance
     * attribute; fenced after the main pass. */
    gfx_ring_t lists;
    int list_count[LISTS];
    bool lists_ready; /* this frame's lists are written (by the shadow or main pass, or CPU mode's update) */
    bool bad_bounds_logged, visible;
    int writing_count;
    double begin_t0;
    GLuint gpu_time_query[GPU_TIME_FRAMES][4]; /* shadow, main: begin, end */
    bool gpu_time_issued[GPU_TIME_FRAMES][2];
    int gpu_time_frame;
    crowd_cpu_t cpu;
    gfx_crowd_stats_t stats;
};

static inline size_t gfx_crowd_align_up(size_t v) { return (v + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN; }
void gfx_crowd_label_object(GLenum kind, GLuint id, const char *base, const char *what);
/* The three programs into PROG (character.vert/.frag and the shadow pair
 * with STRIDER_CROWD and SKIN_DEFINES) and the materials on the lit ones. */
bool gfx_crowd_load_programs(gfx_crowd_t *gc, const chr_character_t *c, const char *skin_defines, const char *what,
                             crowd_program_t prog[PROGS]);
/* The attributes both VAOs read alike: uv, AO and material of the vertex
 * buffer at BIND_VERTEX (the caller binds it), and the instance index from
 * the list ring at BIND_INSTANCE, divisor 1. */
void gfx_crowd_static_attribs(const gfx_crowd_t *gc, GLuint vao);

/* The cull's view of a frame (the main camera, the sun's window). */
void gfx_crowd_view_init(crowd_view_t *v, const float view_proj[16], const float light_view_proj[16],
                         const gfx_frame_desc_t *frame, bool shadows);
/* Sphere B of a member: false when it is not finite (not drawn). Else
 * *SEEN (in view, at level *LOD) and *CASTS (into the shadow map, at level
 * *SHADOW_LOD: the same as drawn when seen, one coarser when not). */
bool gfx_crowd_classify(const gfx_crowd_t *gc, const crowd_view_t *v, const float *b, bool *seen, int *lod, bool *casts,
                        int *shadow_lod);
/* The next list slot, waited for and begun (NULL: logged), its counts
 * zeroed; and its end: the VAOs' instance binding, the cull's stats, from
 * COUNT members of which BAD had no sphere, since T0 (wall seconds). */
uint32_t *gfx_crowd_lists_begin(gfx_crowd_t *gc, int *slot);
void gfx_crowd_lists_end(gfx_crowd_t *gc, int count, int bad, double t0);
/* Level LOD's list of pass PASS with the VAO bound: one instanced draw per
 * run of meshes alike in culling back faces; returns the draws issued. */
int gfx_crowd_draw_list(const gfx_crowd_t *gc, int pass, int lod);

/* CPU mode: built at create from the full vertices V and every level's
 * INDICES (false: no CPU mode, logged; the crowd still draws GPU-skinned),
 * freed at destroy. _use binds program kind K, the VAO and the slot's
 * vertices for a pass; _set_lod sets where level LOD's vertices are. */
bool gfx_crowd_cpu_create(gfx_crowd_t *gc, const chr_character_t *c, const crowd_vertex_t *v, const uint32_t *indices,
                          size_t slot_bytes);
void gfx_crowd_cpu_destroy(gfx_crowd_t *gc);
const crowd_program_t *gfx_crowd_cpu_use(gfx_crowd_t *gc, int k);
/* Software rasterisers: pass PASS's lists drawn with only the triangles
 * that can cover a pixel (shadow texel) centre of each member
 * (sample_cull.h: the same pixels as drawing them all), program P bound by
 * _use; returns the draws issued, or -1 when the pass cannot be culled so
 * (no cull state, wireframe, multisampling): draw the lists whole. */
/* The sample cull's indices and buffers, after the CPU mode's levels are
 * built from CPU_IDX (its index buffer); nothing on a hardware
 * rasteriser or with every_triangle, and the CPU mode draws whole when
 * memory runs out (logged). */
bool gfx_crowd_cull_create(gfx_crowd_t *gc, const uint32_t *cpu_idx);
void gfx_crowd_cull_destroy(gfx_crowd_t *gc);
int gfx_crowd_cpu_draw_culled(gfx_crowd_t *gc, const crowd_program_t *p, const gfx_pass_info_t *info, int pass);
void gfx_crowd_cpu_set_lod(const gfx_crowd_t *gc, const crowd_program_t *p, int lod);

#endif
