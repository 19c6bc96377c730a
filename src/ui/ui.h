/* ui: a thin C bridge to Dear ImGui 1.86 (SDL2 + OpenGL3 backends), the only
 * C++ in Strider. The debug menu itself is written in C (app/menu.c) on top
 * of these functions.
 *
 * Call order: ui_init() after the GL context exists -> per frame:
 * ui_process_event() for every SDL event BEFORE the game sees it (returns
 * true if the UI consumed it) -> ui_new_frame() -> widgets -> ui_render()
 * after the scene -> ui_shutdown().
 * Does NOT: own application state; widgets edit the caller's variables.
 */
#ifndef STRIDER_UI_UI_H
#define STRIDER_UI_UI_H

#include <SDL2/SDL.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

bool ui_init(SDL_Window *window, void *gl_context);
void ui_shutdown(void);
/* Feeds the event to ImGui; true when ImGui wants that kind of input (the
 * keyboard while a widget has focus, the mouse over a window). */
bool ui_process_event(const SDL_Event *ev);
bool ui_wants_keyboard(void);
void ui_new_frame(void);
void ui_render(void);

/* Widgets (thin wrappers, same meaning as the ImGui functions). */
/* x, y, w, h: placement on first use, in pixels. */
bool ui_begin(const char *title, bool *open, float x, float y, float w, float h);
void ui_end(void);
bool ui_header(const char *label, bool default_open);
void ui_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ui_text_colored(float r, float g, float b, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ui_separator(void);
void ui_same_line(void);
bool ui_checkbox(const char *label, bool *v);
bool ui_checkbox_flags(const char *label, unsigned *flags, unsigned bit);
bool ui_slider_float(const char *label, float *v, float lo, float hi, const char *fmt);
bool ui_slider_int(const char *label, int *v, int lo, int hi);
bool ui_button(const char *label);
bool ui_combo(const char *label, int *current, const char *const *items, int count);
void ui_plot_lines(const char *label, const float *values, int count, float lo, float hi, float height,
                   const char *overlay);
/* Stacked bars, one colour per series: values[s * count + i]. */
void ui_plot_stacked(const char *label, const float *values, int series, int count, float hi, float height,
                     const float (*colors)[3]);
void ui_begin_disabled(bool disabled);
void ui_end_disabled(void);
void ui_push_id(int id);
void ui_pop_id(void);
/* Width of the following widgets in pixels (e.g. two sliders side by side);
 * a negative width leaves that many pixels free on the right. */
void ui_push_item_width(float width);
void ui_pop_item_width(void);
/* Width of the content region left on the current line, in pixels. */
float ui_content_width(void);

#ifdef __cplusplus
}
#endif

#endif
