/* skin_bench: the CPU skinning benchmark behind `strider bench skinning`.
 *
 * Call order: fill a skin_bench_desc_t (zero fields take the defaults below)
 * -> skin_bench_run() -> print with skin_bench_format().
 * It builds a synthetic mesh once (vertices grouped by joint, influences on
 * neighbouring joints, weights sorted and normalised, a random rigid palette),
 * warms up, times REPEATS runs with a monotonic clock, and reports the
 * median, min and max, plus a checksum of the outputs so that the work is
 * observable (and comparable between thread counts: it must not change),
 * and the largest deviation from the scalar reference on the same inputs.
 * Wall-clock time is used here for profiling only.
 * Does NOT: read files, call GL, or keep anything after it returns (all
 * buffers are allocated and freed inside skin_bench_run()).
 */
#ifndef STRIDER_ANIM_SKIN_BENCH_H
#define STRIDER_ANIM_SKIN_BENCH_H

#include "anim/skin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct skin_bench_desc_t {
    int vertex_count;    /* 0: 65536 */
    int joint_count;     /* 0: 32 */
    int influences;      /* 0: 4 */
    int threads;         /* 0: 1 (the calling thread only, through skin_run) */
    int warmup;          /* 0: 5 untimed runs */
    int repeats;         /* 0: 51 timed runs */
    skin_method method;  /* 0: SKIN_LBS_POINTS */
    skin_isa isa;        /* 0: AUTO */
    bool positions_only; /* false: positions + normals */
    bool tangents;       /* also tangents (implies normals) */
    bool u16_indices;    /* uint16 joint indices instead of uint8 */
    uint32_t seed;       /* 0: 1 */
} skin_bench_desc_t;

typedef struct skin_bench_result_t {
    skin_bench_desc_t desc; /* with the defaults filled in */
    skin_isa isa;           /* what AUTO resolved to */
    double median_s, min_s, max_s;
    double median_mverts_s; /* million vertices per second at the median time */
    double best_mverts_s;   /* at the min time */
    uint32_t checksum;      /* FNV-1a of every output array after the last run */
    /* Agreement with the scalar single-thread reference of the same math
     * (transform-then-blend for the LBS methods, scalar DQS for DQS), on the
     * same inputs: max |difference| of positions (cm) and of normals. */
    double max_pos_err_cm, max_nrm_err;
} skin_bench_result_t;

bool skin_bench_run(const skin_bench_desc_t *desc, skin_bench_result_t *out);
/* One line: method, isa, threads, sizes, times (us), M vertices/s, checksum. */
void skin_bench_format(const skin_bench_result_t *r, char *buf, size_t size);

#endif
