/* platform: the SDL2 window, its OpenGL context, events and the wall clock.
 *
 * Asks for an OpenGL 4.5 core context and accepts 4.3 or newer; anything
 * older fails with one line naming what was asked for and what was found.
 * The hidden-window mode (tests, benchmarks) uses exactly the same path.
 * Call order: platform_init() -> per frame platform_poll() / swap ->
 * platform_shutdown(). platform_now_s() is for profiling and the frame
 * clock only, never read by the simulation; platform_peak_rss_bytes() is
 * for reports.
 * Does NOT: make gl* calls (the renderer does), or own input state.
 */
#ifndef STRIDER_APP_PLATFORM_H
#define STRIDER_APP_PLATFORM_H

#include <SDL2/SDL.h>
#include <stdbool.h>

typedef struct platform_desc_t {
    const char *title;
    int width, height;
    bool hidden, fullscreen, vsync, debug_context;
} platform_desc_t;

typedef struct platform_t {
    SDL_Window *window;
    SDL_GLContext gl;
    int gl_major, gl_minor;
    bool vsync, fullscreen, minimized, hidden;
    /* Why the last platform_init() failed (the logged line without its
     * prefix), so callers that silence the log can still say it. */
    char error[256];
} platform_t;

bool platform_init(platform_t *p, const platform_desc_t *desc);
void platform_shutdown(platform_t *p);
void platform_swap(platform_t *p);
/* Drawable size in pixels (may differ from window size on high-DPI). */
void platform_drawable_size(const platform_t *p, int *w, int *h);
bool platform_set_vsync(platform_t *p, bool on);
void platform_set_fullscreen(platform_t *p, bool on);
/* Tracks minimise/restore from a window event. */
void platform_handle_event(platform_t *p, const SDL_Event *ev);
double platform_now_s(void);
/* This process's peak resident memory so far (Linux: VmHWM of
 * /proc/self/status), bytes; 0 where it cannot be read. For reports. */
unsigned long long platform_peak_rss_bytes(void);
void platform_sleep_ms(unsigned ms);

#endif
