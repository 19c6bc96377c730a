/* bench_skinning_internal: what the two files of `strider bench skinning`
 * share: bench_skinning.c (the options, the mesh, the CPU rows, the hybrid,
 * and the run's steps) and bench_skinning_gpu.c (the GPU rows: the engine of
 * bench/gpu/gfx_skin_bench set up on the character mesh, timed round-robin,
 * each row checked against the scalar CPU reference, and the notes and the
 * compressed-stream table they make).
 * Call order: skin_parse and select_paths fill a skinning_run_t ->
 * mesh_load -> skinning_gpu_open() (when a GPU path is selected) ->
 * skinning_gpu_note(), then the CPU rows, skinning_gpu_rows() -> the main
 * table printed -> skinning_gpu_print_vcompress() -> skinning_gpu_close().
 * The GPU side does NOT parse options, load the mesh or print the main
 * table: it adds rows and notes to it. Nothing here is seen outside these
 * two files.
 */
#ifndef STRIDER_BENCH_BENCH_SKINNING_INTERNAL_H
#define STRIDER_BENCH_BENCH_SKINNING_INTERNAL_H

#include "anim/pose.h"
#include "asset/character.h"
#include "bench/bench_gl.h"
#include "bench/bench_internal.h"
#include "bench/skin_bench.h"
#include "core/paths.h"

#include <stdbool.h>
#include <stdint.h>

/* The mesh's pose: every joint turned by up to this about a random axis. */
#define GPU_POSE_MAX_RAD 0.6f

/* The paths, in the order of the table's rows. */
enum {
    PATH_REFERENCE,
    PATH_SCALAR,
    PATH_SSE2,
    PATH_AVX2,
    PATH_AVX512,
    PATH_DQS,
    PATH_COPY,
    PATH_GPU_POINTS,
    PATH_GPU_MATRIX,
    PATH_GPU_DQS,
    PATH_GPU_COMPUTE,
    PATH_GPU_UNBINNED,
    PATH_GPU_BINNED,
    PATH_GPU_COMPRESSED,
    PATH_GPU_SKIN_ONCE,
    PATH_GPU_PER_PASS,
    PATH_GPU_LERP,
    PATH_HYBRID,
    PATH_COUNT,
    /* Group names accepted by --paths. */
    PATH_ALL_CPU = PATH_COUNT,
    PATH_ALL_GPU,
    PATH_NAMES
};

/* "cpu-reference", ... "gpu": the name of a path or group, as --paths takes it. */
const char *skinning_path_name(int path);

/* A .chr mesh (all meshes in one numbering), posed, with everything the
 * GPU paths need. */
typedef struct mesh_data_t {
    chr_character_t chr;
    int nv, ni;
    float *pos, *nrm, *tan, *w;
    uint16_t *j;
    uint32_t *idx;
    float palette[SKEL_MAX_JOINTS * POSE_MAT_FLOATS];
    float dq[SKEL_MAX_JOINTS * POSE_DQ_FLOATS];
    skin_bench_mesh_t m;
    char name[64];
} mesh_data_t;

/* The command line and its defaults. */
typedef struct skin_cli_t {
    bench_common_t c;
    int sel[BENCH_LIST_MAX], nsel;
    int verts[BENCH_LIST_MAX], nverts;
    int infl[BENCH_LIST_MAX], ninfl;
    int threads[BENCH_LIST_MAX], nthreads;
    int keys[BENCH_LIST_MAX], nkeys;
    int bones, target;
    bool tangents;
    int weights[BENCH_LIST_MAX], nweights; /* 0: renorm, 1: given */
    const char *mesh_path, *clip_path;
} skin_cli_t;

/* What the GPU rows keep between the steps (bench_skinning_gpu.c). */
typedef struct gpu_state_t gpu_state_t;

/* One `strider bench skinning` run: its options, the paths they select, its
 * inputs and its table, handed from step to step. */
typedef struct skinning_run_t {
    skin_cli_t cli;
    bench_common_t c;
    bool want[PATH_COUNT];
    bool any_gpu, any_cpu, need_mesh;
    const char *mesh_path, *clip_path;
    char default_mesh[PATHS_MAX], default_clip[PATHS_MAX];
    mesh_data_t *mesh;
    gpu_state_t *gpu;
    report_table_t t;
    int failures;
    int rc;
} skinning_run_t;

/* Opens the GL context, checks the mesh against its limits and sets up the
 * GPU engine on R's mesh (R->gpu); false on a failure (reported), with what
 * was opened closed again. */
bool skinning_gpu_open(skinning_run_t *r, bench_gl_t *gl, report_env_t *env);
/* The main table's note on the GPU rows' pose and influence bins. */
void skinning_gpu_note(skinning_run_t *r);
/* Every selected GPU path at every influence count (the lerp once): rows and
 * notes on R's table; a failure sets R->rc, disagreements count in
 * R->failures. */
void skinning_gpu_rows(skinning_run_t *r);
/* The compressed stream's table (after the main table), when
 * gpu-compressed ran. */
void skinning_gpu_print_vcompress(const skinning_run_t *r);
/* Frees the GPU engine and closes the GL context. */
void skinning_gpu_close(skinning_run_t *r, bench_gl_t *gl);

#endif
