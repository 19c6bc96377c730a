/* skin_internal: what skin.c (validation, palette layout, scalar kernels,
 * dispatch), skin_simd.c (the SSE2/AVX2 kernels), skin_avx512.c (the AVX-512
 * ones) and skin_pool.c (the threads
 * that run them) share. Not part of the interface: only src/anim/skin*.c include
 * it. A validated job is bound once, by skin_bind(): the ISA resolved, the
 * palette copied into the SIMD layout its kernel reads, the kernel chosen;
 * the kernel then runs on any split of [0, vertex_count) into ranges and
 * gives the same bits for every vertex whatever the split.
 * Does NOT: validate (skin_validate() comes first), allocate, or start threads.
 */
#ifndef STRIDER_ANIM_SKIN_INTERNAL_H
#define STRIDER_ANIM_SKIN_INTERNAL_H

#include "anim/skin.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SKIN_X86 1
#else
#define SKIN_X86 0
#endif

/* Prepared palette entries: every uint8 index lands inside, and clamped uint16
 * indices land on the last entry, which stays zero (no contribution). */
#define SKIN_PAD_JOINTS (SKIN_MAX_JOINTS + 1)
/* SIMD matrix layouts, one or two 64-byte cache lines per joint:
 * columns c0 c1 c2 c3 of (x y z 0) (SSE2; AVX2 LBS with 2-4 influences or
 * with tangents; AVX-512 LBS, one 64-byte load per joint), or the same columns each twice, (c0|c0) (c1|c1) (c2|c2)
 * (c3|0) (the AVX2 LBS kernel with one influence; see skin_avx2_pn). */
#define SKIN_COLS_FLOATS 16
#define SKIN_DUP_FLOATS 32

/* One job uses one layout, so they share the memory (33 kB). */
typedef struct skin_prepared_t {
    union {
        _Alignas(64) float cols[SKIN_PAD_JOINTS][SKIN_COLS_FLOATS];
        _Alignas(64) float dup[SKIN_PAD_JOINTS][SKIN_DUP_FLOATS];
        _Alignas(64) float dq[SKIN_PAD_JOINTS][8];
    } u;
} skin_prepared_t;

/* One resolved job: the caller's arrays plus the prepared palette. */
typedef struct skin_ctx_t {
    const skin_job_t *job;
    const skin_prepared_t *prep;
    skin_isa_t isa; /* resolved, never AUTO */
} skin_ctx_t;

typedef void (*skin_range_fn_t)(const skin_ctx_t *c, int begin, int end);

/* Binds the validated JOB: fills CTX, prepares PREP when the kernel is a SIMD
 * one (PREP is left alone for the scalar kernels) and returns the kernel. */
skin_range_fn_t skin_bind(const skin_job_t *job, skin_prepared_t *prep, skin_ctx_t *ctx);

/* The kept weights: renormalised when truncated (K < 4), as given otherwise;
 * PRENORM: the first K as given (they sum to 1). A single kept weight is 1
 * either way (w / w), and is not read. */
static inline void skin_weights(const float *w, int k, bool prenorm, float out[4])
{
    if (k == 1 || prenorm) {
        for (int i = 0; i < 4; i++)
            out[i] = k == 1 ? (i == 0 ? 1.0f : 0.0f) : i < k ? w[i] : 0.0f;
        return;
    }
    if (k == SKIN_MAX_INFLUENCES) {
        out[0] = w[0];
        out[1] = w[1];
        out[2] = w[2];
        out[3] = w[3];
        return;
    }
    float sum = w[0];
    for (int i = 1; i < k; i++)
        sum += w[i];
    float inv = 1.0f / sum;
    for (int i = 0; i < 4; i++)
        out[i] = i < k ? w[i] * inv : 0.0f;
}

#if SKIN_X86
/* skin_simd.c: the SIMD kernel for the validated, non-points JOB on ISA
 * (SSE2 or AVX2, already resolved). */
skin_range_fn_t skin_simd_kernel(const skin_job_t *job, skin_isa_t isa);
/* skin_avx512.c: the AVX-512 kernel for the validated, non-points JOB (the
 * CPU runs AVX-512: skin_isa_supported). */
skin_range_fn_t skin_avx512_kernel(const skin_job_t *job);
#endif

#endif
