/* skin: CPU skinning jobs. Deforms bind-space positions, normals and
 * tangents by a joint palette with up to 4 influences per vertex.
 *
 * Call order: fill a skin_job_t (inputs + caller-owned output spans) ->
 * skin_run() on the calling thread, or skin_pool_run() on a pool made once by
 * skin_pool_create() (destroy with skin_pool_destroy()). skin_check_vertices()
 * is the O(n) check of indices and weights, meant for load time.
 * Methods: LBS transform-then-blend (scalar reference), LBS accumulated
 * weighted matrix (Dawn 4.4.1; scalar, SSE2, AVX2+FMA, AVX-512 picked at run
 * time) and dual-quaternion skinning (Kavan; scalar, SSE2, AVX2+FMA, AVX-512).
 * AVX-512 needs F, VL, DQ and BW in cpuid and the OS saving the opmask and
 * ZMM registers (XCR0 bits 5-7); its kernels run 16-vertex blocks with masked
 * loads and stores for the last, short one (skin_avx512.c says how).
 * Normals and tangents go through the blended upper 3x3 and are renormalised;
 * for the rigid palettes pose_ makes, the inverse transpose of that 3x3 is
 * the matrix itself, so no inverse is computed. Tangent w (handedness) is copied.
 * A prenormalized job does the work of ozz-animation's SkinningJob instead:
 * the caller's first N weights already sum to 1 and are used as given, and
 * output directions are not renormalised (see skin_job_t.prenormalized).
 * Every (method, ISA, influence count) runs its own kernel; skin_kernel_name()
 * says which one a job gets.
 * Joint indices >= joint_count contribute nothing (never read out of bounds).
 * Does NOT: allocate per call, upload to GL, apply blend shapes, or own any array.
 */
#ifndef STRIDER_ANIM_SKIN_H
#define STRIDER_ANIM_SKIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SKIN_MAX_JOINTS = 256, SKIN_MAX_INFLUENCES = 4, SKIN_POOL_MAX_THREADS = 64 };

typedef enum skin_method_t {
    SKIN_LBS_POINTS = 0, /* transform by every joint, then blend the points (reference) */
    SKIN_LBS_MATRIX,     /* blend the matrices, then transform once (Dawn 4.4.1) */
    SKIN_DQS             /* blend dual quaternions (Kavan); no candy-wrapper collapse */
} skin_method_t;

typedef enum skin_isa_t {
    SKIN_ISA_AUTO = 0, /* the widest this CPU runs */
    SKIN_ISA_SCALAR,
    SKIN_ISA_SSE2,
    SKIN_ISA_AVX2,  /* AVX2 + FMA */
    SKIN_ISA_AVX512 /* AVX-512 F/VL/DQ/BW + FMA, with the OS saving ZMM state */
} skin_isa_t;

typedef struct skin_job_t {
    int vertex_count;
    int influences; /* 1..4: the first N weights are kept and renormalised (N < 4;
                             one kept weight is 1, and is not read) */
    /* false: as above, and output normals and tangents are renormalised.
     * true: the first N weights already sum to 1 and are used as given; LBS
     * output directions are left as the blended matrix makes them (unit
     * where it is a rotation). The work of ozz-animation's SkinningJob. */
    bool prenormalized;
    skin_method_t method;
    skin_isa_t isa;           /* ignored by SKIN_LBS_POINTS, which is scalar only */
    const float *positions;   /* 3 per vertex, bind space, cm */
    const float *normals;     /* 3 per vertex (unit), or NULL */
    const float *tangents;    /* 4 per vertex (xyz unit, w = +-1), or NULL; needs normals */
    const uint8_t *joints_u8; /* 4 per vertex; exactly one of joints_u8 / joints_u16 */
    const uint16_t *joints_u16;
    const float *weights;    /* 4 per vertex, sorted descending, summing to 1 */
    int joint_count;         /* palette entries, 1..SKIN_MAX_JOINTS */
    const float *palette;    /* 12 per joint, 3x4 row-major (LBS methods) */
    const float *dq_palette; /* 8 per joint, real xyzw + dual xyzw (SKIN_DQS) */
    float *out_positions;    /* 3 per vertex */
    float *out_normals;      /* 3 per vertex, when normals */
    float *out_tangents;     /* 4 per vertex, when tangents */
} skin_job_t;

typedef struct skin_pool_t skin_pool_t;

/* O(1) checks of pointers, counts and method/ISA; one logged line on failure. */
bool skin_validate(const skin_job_t *job);
/* Validates, then skins every vertex on the calling thread. */
bool skin_run(const skin_job_t *job);
/* O(n): every index < joint_count, weights finite, >= 0, descending, sum 1
 * within 1e-3 (the first N of them for a prenormalized job). Meant for load
 * time; logs the first bad vertex. */
bool skin_check_vertices(const skin_job_t *job);

/* The ISA that AUTO resolves to on this CPU, and whether ISA can run here. */
skin_isa_t skin_isa_best(void);
bool skin_isa_supported(skin_isa_t isa);
const char *skin_isa_name(skin_isa_t isa);
const char *skin_method_name(skin_method_t method);
/* Names into OUT the kernel skin_run() picks for JOB on this CPU, e.g.
 * "avx2 lbs-matrix 2 influences, pos+nrm, weights as given, 8-vertex blocks".
 * Reads only the method, ISA, influence count, prenormalized and which
 * attributes are given; validates nothing ("unsupported isa" when this CPU
 * lacks the job's ISA). */
void skin_kernel_name(const skin_job_t *job, char *out, size_t size);

/* A persistent pool: THREAD_COUNT - 1 worker threads plus the caller, all
 * created here once; NULL (and a logged line) on failure. */
skin_pool_t *skin_pool_create(int thread_count);
void skin_pool_destroy(skin_pool_t *pool);
int skin_pool_thread_count(const skin_pool_t *pool);
/* Validates, then skins chunks of 1024 vertices on every thread of the pool
 * (the caller included), each thread taking the next free chunk. Results are
 * bit-identical to skin_run() for the same job. Not reentrant: one call at a
 * time per pool. */
bool skin_pool_run(skin_pool_t *pool, const skin_job_t *job);

#endif
