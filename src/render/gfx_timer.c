#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "render/gfx_timer.h"

#include <GL/glew.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

double gfx_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gfx_timer_init(gfx_timer_t *t, const char *label)
{
    memset(t, 0, sizeof *t);
    GLuint ids[GFX_TIMER_LATENCY];
    glCreateQueries(GL_TIME_ELAPSED, GFX_TIMER_LATENCY, ids);
    for (int i = 0; i < GFX_TIMER_LATENCY; i++) {
        t->queries[i].id = ids[i];
        char lbl[96];
        snprintf(lbl, sizeof lbl, "%s.query%d", label, i);
        glObjectLabel(GL_QUERY, ids[i], -1, lbl);
    }
}

void gfx_timer_free(gfx_timer_t *t)
{
    for (int i = 0; i < GFX_TIMER_LATENCY; i++) {
        if (t->queries[i].id)
            glDeleteQueries(1, &t->queries[i].id);
        t->queries[i].id = 0;
    }
}

void gfx_timer_set_finish_mode(gfx_timer_t *t, bool finish_mode)
{
    /* Callers may set the mode every frame; only a real switch may drop the
     * queries in flight, or no result would ever be read. */
    if (t->finish_mode == finish_mode)
        return;
    t->finish_mode = finish_mode;
    for (int i = 0; i < GFX_TIMER_LATENCY; i++)
        t->pending[i] = false;
}

/* Reads slot's result if the GPU has produced it; never waits. */
static void collect(gfx_timer_t *t, int slot)
{
    if (!t->pending[slot])
        return;
    GLuint available = 0;
    glGetQueryObjectuiv(t->queries[slot].id, GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available)
        return;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(t->queries[slot].id, GL_QUERY_RESULT, &ns);
    t->last_ms = (double)ns * 1e-6;
    t->pending[slot] = false;
}

void gfx_timer_begin(gfx_timer_t *t)
{
    if (t->finish_mode) {
        glFinish();
        t->wall_start_s = gfx_wall_seconds();
        return;
    }
    int slot = t->frame % GFX_TIMER_LATENCY;
    /* The slot's previous result is GFX_TIMER_LATENCY frames old: take it if
     * ready, else drop it rather than stall. */
    collect(t, slot);
    t->pending[slot] = false;
    glBeginQuery(GL_TIME_ELAPSED, t->queries[slot].id);
}

void gfx_timer_end(gfx_timer_t *t)
{
    if (t->finish_mode) {
        glFinish();
        t->last_ms = (gfx_wall_seconds() - t->wall_start_s) * 1e3;
        t->frame++;
        return;
    }
    int slot = t->frame % GFX_TIMER_LATENCY;
    glEndQuery(GL_TIME_ELAPSED);
    t->pending[slot] = true;
    t->frame++;
    /* Pick up the previous frame's query if it finished meanwhile. */
    collect(t, t->frame % GFX_TIMER_LATENCY);
}

double gfx_timer_ms(const gfx_timer_t *t) { return t->last_ms; }

bool gfx_timestamp_ready(unsigned q)
{
    GLint ready = 0;
    glGetQueryObjectiv(q, GL_QUERY_RESULT_AVAILABLE, &ready);
    return ready != 0;
}

double gfx_timestamp_span_ms(unsigned q0, unsigned q1)
{
    GLuint64 t0 = 0, t1 = 0;
    glGetQueryObjectui64v(q0, GL_QUERY_RESULT, &t0);
    glGetQueryObjectui64v(q1, GL_QUERY_RESULT, &t1);
    return t1 > t0 ? (double)(t1 - t0) * 1e-6 : 0.0;
}

double gfx_timestamp_passes_ms(const unsigned *q, const bool *issued, int passes)
{
    double ms = 0.0;
    for (int pass = 0; pass < passes; pass++)
        if (issued[pass])
            ms += gfx_timestamp_span_ms(q[2 * pass], q[2 * pass + 1]);
    return ms;
}
