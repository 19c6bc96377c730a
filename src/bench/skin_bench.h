/* skin_bench: the CPU skinning benchmark behind `strider bench skinning`.
 *
 * Call order: fill a skin_bench_desc_t (zero fields take the defaults below)
 * -> skin_bench_run() -> print with skin_bench_format().
 * It builds a synthetic mesh once (vertices grouped by joint, influences on
 * neighbouring joints, weights sorted and normalised, a random rigid palette),
 * warms up, times REPEATS runs with a monotonic clock (several
 * configurations and thread counts in alternation: skin_bench_run_set()),
 * and reports the median, min and max, plus a checksum of the outputs so that the work is
 * observable (and comparable between thread counts: it must not change),
 * and the largest deviation from the scalar reference on the same inputs.
 * Wall-clock time is used here for profiling only.
 * A real mesh and pose (skin_bench_mesh_t, e.g. a loaded character) can
 * replace the synthetic data; the GPU benchmarks use the same struct.
 * A prenormalized run does the work of ozz-animation's SkinningJob: the
 * weights are normalised for the influence count before timing, and the job
 * (and its reference) uses them as given, without output renormalisation.
 * skin_bench_copy_floor_threads() times a plain copy of the bytes a one-influence
 * kernel moves (positions and normals in and out, joint indices in): the
 * memory floor of this machine for the same arrays, on one thread or
 * several.
 * skin_bench_bin_influences() is Cebenoyan's binning: a vertex order that
 * groups vertices by their count of non-zero weights, so that each group
 * can be skinned by a variant made for that count.
 * Does NOT: read files, call GL, or keep anything after it returns (all
 * buffers are allocated and freed inside skin_bench_run()).
 */
#ifndef STRIDER_BENCH_SKIN_BENCH_H
#define STRIDER_BENCH_SKIN_BENCH_H

#include "anim/skin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A mesh in one pose, borrowed (never copied or freed by skin_bench). */
typedef struct skin_bench_mesh_t {
    int vertex_count;
    int joint_count;         /* 1..SKIN_MAX_JOINTS */
    const float *positions;  /* 3 per vertex, bind space, cm */
    const float *normals;    /* 3 per vertex */
    const float *tangents;   /* 4 per vertex */
    const uint16_t *joints;  /* 4 per vertex */
    const float *weights;    /* 4 per vertex, sorted descending, summing to 1 */
    const float *palette;    /* joint_count x 12: the pose, 3x4 row-major */
    const float *dq_palette; /* joint_count x 8: the same pose as dual quaternions */
    float height_cm;         /* Y extent of the bind pose, for relative errors */
} skin_bench_mesh_t;

typedef struct skin_bench_desc_t {
    int vertex_count;              /* 0: 65536 */
    int joint_count;               /* 0: 32 */
    int influences;                /* 0: 4 */
    int threads;                   /* 0: 1 (the calling thread only, through skin_run) */
    int warmup;                    /* 0: 5 untimed runs */
    int repeats;                   /* 0: 51 timed runs */
    skin_method_t method;          /* 0: SKIN_LBS_POINTS */
    skin_isa_t isa;                /* 0: AUTO */
    bool positions_only;           /* false: positions + normals */
    bool tangents;                 /* also tangents (implies normals) */
    bool u16_indices;              /* uint16 joint indices instead of uint8 */
    bool prenormalized;            /* weights normalised for the count, used as given (skin_job_t.prenormalized) */
    uint32_t seed;                 /* 0: 1 */
    const skin_bench_mesh_t *mesh; /* NULL: the synthetic mesh; else its vertex and joint counts are used */
} skin_bench_desc_t;

typedef struct skin_bench_result_t {
    skin_bench_desc_t desc; /* with the defaults filled in */
    skin_isa_t isa;         /* what AUTO resolved to */
    double median_s, min_s, max_s;
    double median_mverts_s; /* million vertices per second at the median time */
    double best_mverts_s;   /* at the min time */
    uint32_t checksum;      /* FNV-1a of every output array after the last run */
    /* Agreement with the scalar single-thread reference of the same math
     * (transform-then-blend for the LBS methods, scalar DQS for DQS), on the
     * same inputs: max |difference| of positions (cm) and of normals. */
    double max_pos_err_cm, max_nrm_err;
    char kernel[160]; /* skin_kernel_name() of the timed job */
} skin_bench_result_t;

/* DESC alone, on DESC's thread count. */
bool skin_bench_run(const skin_bench_desc_t *desc, skin_bench_result_t *out);
/* Several configurations of one mesh at NTHREADS thread counts (THREADS[t],
 * 1..SKIN_POOL_MAX_THREADS; the descs' own counts are ignored), all timed in
 * alternation: DESCS[0..COUNT) may differ in method, ISA, influences,
 * weights (prenormalized), normals, tangents, index width and warmup, and
 * must share the vertex and joint counts, seed, mesh and repeats. Every
 * round runs each (configuration, thread count) pair once (an untimed run,
 * then the timed one), in an order that rotates by round, so the ratio of
 * any two results (one path over another, one influence count over another,
 * one thread count over another) is measured under one condition; on a
 * shared host whose speed drifts within a run, separate runs are not.
 * OUT[c * NTHREADS + t] is the result of DESCS[c] on THREADS[t] threads. */
enum { SKIN_BENCH_MAX_THREAD_COUNTS = 32, SKIN_BENCH_MAX_SET = 512 };
bool skin_bench_run_set(const skin_bench_desc_t *descs, int count, const int *threads, int nthreads,
                        skin_bench_result_t *out);
/* The memory floor for DESC's vertex count (method, ISA and influences are
 * ignored) at COUNT thread counts: OUT[i]'s times, M vertices/s and checksum
 * are those of memcpy()ing positions and normals while summing the joint
 * indices on THREADS[i] threads, split and timed as skin_bench_run_set()
 * splits and times a job (chunks from one counter, the counts in
 * alternation). Its speedups are how far the machine's caches and memory
 * scale for the bytes a 1-influence kernel moves. */
bool skin_bench_copy_floor_threads(const skin_bench_desc_t *desc, const int *threads, int count,
                                   skin_bench_result_t *out);
/* One line: method, isa, threads, sizes, times (us), M vertices/s, checksum. */
void skin_bench_format(const skin_bench_result_t *r, char *buf, size_t size);

/* Vertices grouped by influence count: bin k (0..3) holds the vertices with
 * k + 1 non-zero weights (more than MAX_INFLUENCES count as MAX_INFLUENCES),
 * order[first[k] .. first[k] + count[k]) lists their original indices in
 * increasing order. */
typedef struct skin_bench_bins_t {
    int first[SKIN_MAX_INFLUENCES];
    int count[SKIN_MAX_INFLUENCES];
} skin_bench_bins_t;

/* Non-zero weights among the 4 of W (at least 1). */
int skin_bench_influence_count(const float w[4]);
/* Fills out_order (VERTEX_COUNT entries: new position -> original index) and OUT. */
void skin_bench_bin_influences(int vertex_count, const float *weights, int max_influences, int *out_order,
                               skin_bench_bins_t *out);

#endif
