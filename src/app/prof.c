#include "app/prof.h"

#include <string.h>

void prof_init(prof_t *p) { memset(p, 0, sizeof *p); }

void prof_begin_frame(prof_t *p)
{
    memset(p->current, 0, sizeof p->current);
    for (int g = 0; g < PROF_GPU_COUNT; g++)
        p->gpu_current[g] = -1.0f;
}

void prof_set_gpu(prof_t *p, prof_gpu_t which, float ms)
{
    if (which < PROF_GPU_COUNT)
        p->gpu_current[which] = ms;
}

void prof_add(prof_t *p, prof_stage_t stage, float ms) { p->current[stage] += ms; }

void prof_end_frame(prof_t *p, float frame_ms)
{
    for (int s = 0; s < PROF_STAGE_COUNT; s++)
        p->ms[s][p->head] = p->current[s];
    for (int g = 0; g < PROF_GPU_COUNT; g++)
        p->gpu_ms[g][p->head] = p->gpu_current[g];
    p->frame_ms[p->head] = frame_ms;
    p->head = (p->head + 1) % PROF_HISTORY;
    if (p->filled < PROF_HISTORY)
        p->filled++;
}

static float average(const float *v, int filled)
{
    if (filled == 0)
        return 0.0f;
    double sum = 0.0;
    for (int i = 0; i < filled; i++)
        sum += v[i];
    return (float)(sum / filled);
}

/* Slots [0, filled) hold data before the ring wraps; after that all do, so
 * averaging over the first 'filled' slots is correct either way. */
float prof_average_ms(const prof_t *p, prof_stage_t stage) { return average(p->ms[stage], p->filled); }
float prof_average_frame_ms(const prof_t *p) { return average(p->frame_ms, p->filled); }

int prof_history(const prof_t *p, int stage, float *out)
{
    const float *src = stage >= PROF_STAGE_COUNT ? p->frame_ms : p->ms[stage];
    int start = p->filled < PROF_HISTORY ? 0 : p->head;
    for (int i = 0; i < p->filled; i++)
        out[i] = src[(start + i) % PROF_HISTORY];
    return p->filled;
}

const char *prof_stage_name(prof_stage_t stage)
{
    static const char *names[PROF_STAGE_COUNT] = {"input",  "simulation", "controller", "deformation",
                                                  "render", "ui",         "present"};
    return stage < PROF_STAGE_COUNT ? names[stage] : "?";
}

int prof_gpu_history(const prof_t *p, prof_gpu_t which, float *out)
{
    if (which >= PROF_GPU_COUNT)
        return 0;
    int start = p->filled < PROF_HISTORY ? 0 : p->head, n = 0;
    for (int i = 0; i < p->filled; i++) {
        float v = p->gpu_ms[which][(start + i) % PROF_HISTORY];
        if (v >= 0.0f)
            out[n++] = v;
    }
    return n;
}
