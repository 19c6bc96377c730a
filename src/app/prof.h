/* prof: per-stage frame timings in a ring buffer (like Quake III's com_speeds),
 * shown in the debug menu as numbers and a plot.
 *
 * Call order: prof_init() -> per frame: prof_begin_frame(), then
 * prof_add(stage, ms) for each stage -> prof_end_frame(); readers use
 * prof_average_ms() and prof_history().
 * Wall-clock time here is for profiling only, never for simulation.
 * Does NOT: allocate, or measure by itself (callers pass milliseconds).
 */
#ifndef STRIDER_APP_PROF_H
#define STRIDER_APP_PROF_H

typedef enum prof_stage_t {
    PROF_INPUT,
    PROF_SIMULATION,
    PROF_CONTROLLER,
    PROF_DEFORMATION,
    PROF_RENDER,
    PROF_UI,
    PROF_PRESENT, /* the buffer swap: on a software rasteriser the frame's rasterisation, with vsync the display */
    PROF_STAGE_COUNT
} prof_stage_t;

enum { PROF_HISTORY = 240 };

/* GPU times a frame reports beside its CPU stages (ms; < 0: not known yet):
 * the whole frame (render/gfx's timer) and the character's part of it
 * (its passes and its compute pass: gfx_character_stats.gpu_ms), and the
 * crowd's instanced passes (gfx_crowd_stats.gpu_ms). */
typedef enum prof_gpu_t {
    PROF_GPU_FRAME,
    PROF_GPU_CHARACTER,
    PROF_GPU_CHARACTER_DEFORM, /* of which its skin-once compute pass */
    PROF_GPU_CROWD,            /* the crowd's shadow and main draws */
    PROF_GPU_COUNT
} prof_gpu_t;

typedef struct prof_t {
    float ms[PROF_STAGE_COUNT][PROF_HISTORY];
    float frame_ms[PROF_HISTORY]; /* whole frame, start to start */
    float current[PROF_STAGE_COUNT];
    float gpu_ms[PROF_GPU_COUNT][PROF_HISTORY];
    float gpu_current[PROF_GPU_COUNT];
    int head;   /* next slot to write */
    int filled; /* valid slots, <= PROF_HISTORY */
} prof_t;

void prof_init(prof_t *p);
void prof_begin_frame(prof_t *p);
void prof_add(prof_t *p, prof_stage_t stage, float ms);
/* The frame's GPU time WHICH (the latest the GPU has reported). */
void prof_set_gpu(prof_t *p, prof_gpu_t which, float ms);
void prof_end_frame(prof_t *p, float frame_ms);
float prof_average_ms(const prof_t *p, prof_stage_t stage);
float prof_average_frame_ms(const prof_t *p);
/* Oldest-first copy of a stage's history (or the frame time when stage is
 * PROF_STAGE_COUNT) into out[PROF_HISTORY]; returns the valid count. */
int prof_history(const prof_t *p, int stage, float *out);
const char *prof_stage_name(prof_stage_t stage);
/* Oldest-first copy of WHICH's known (>= 0) values into out[PROF_HISTORY];
 * returns their count. */
int prof_gpu_history(const prof_t *p, prof_gpu_t which, float *out);

#endif
