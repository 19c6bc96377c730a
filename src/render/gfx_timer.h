/* gfx_timer: GPU time of a stretch of GL commands, in two modes.
 *
 * Query mode (default) wraps the stretch in GL_TIME_ELAPSED queries. The
 * queries are double-buffered: a frame's result is read one frame later and
 * only if it is already available, so measuring never stalls the pipeline.
 * Finish mode brackets the stretch with glFinish() and reads a wall clock;
 * it is exact on any driver but stalls the CPU until the GPU is idle.
 * On Mesa llvmpipe GL_TIME_ELAPSED has been seen to return nonsense: validate
 * query results against finish mode before trusting them (tests/render does).
 * Call order: gfx_timer_init() -> per frame gfx_timer_begin()/gfx_timer_end()
 * -> gfx_timer_ms() -> gfx_timer_free(). Timers must not nest (GL allows one
 * active GL_TIME_ELAPSED query at a time).
 * Does NOT: allocate after init, or average; the caller smooths if it wants.
 */
#ifndef STRIDER_RENDER_GFX_TIMER_H
#define STRIDER_RENDER_GFX_TIMER_H

#include "render/gfx.h"

#include <stdbool.h>

enum { GFX_TIMER_LATENCY = 2 };

typedef struct gfx_timer_t {
    gfx_query_t queries[GFX_TIMER_LATENCY];
    bool pending[GFX_TIMER_LATENCY]; /* query issued, result not read yet */
    int frame;                       /* counts begin/end pairs */
    bool finish_mode;
    double wall_start_s;
    double last_ms; /* latest finished measurement; 0 = none yet */
} gfx_timer_t;

void gfx_timer_init(gfx_timer_t *t, const char *label);
void gfx_timer_free(gfx_timer_t *t);
/* Switching mode drops pending query results. */
void gfx_timer_set_finish_mode(gfx_timer_t *t, bool finish_mode);
void gfx_timer_begin(gfx_timer_t *t);
void gfx_timer_end(gfx_timer_t *t);
double gfx_timer_ms(const gfx_timer_t *t);

/* GL_TIMESTAMP pairs, read without waiting (the characters' per-pass GPU
 * time): whether query Q's result is back, and the milliseconds between two
 * timestamp queries whose results are (0 when the second is not later). */
bool gfx_timestamp_ready(unsigned q);
double gfx_timestamp_span_ms(unsigned q0, unsigned q1);
/* The summed spans of PASSES timed passes, pass p between queries Q[2p] and
 * Q[2p + 1], counting those with ISSUED[p] set (the caller has seen the last
 * issued result is back). */
double gfx_timestamp_passes_ms(const unsigned *q, const bool *issued, int passes);

/* Monotonic wall-clock seconds, for profiling only (never for simulation). */
double gfx_wall_seconds(void);

#endif
