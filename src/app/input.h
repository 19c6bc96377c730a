/* input: keyboard, mouse and gamepads -> one input_frame_t per rendered frame,
 * plus app-level actions (menu, level keys, quit, toggles).
 *
 * Call order: input_init() -> per frame: input_handle_event() for each SDL
 * event the UI did not consume -> input_sample() -> ... -> input_shutdown().
 * Gamepads go through SDL_GameController, so any pad in SDL's mapping
 * database works; pads are opened and closed on hot-plug events. The most
 * recently used pad drives the intent. The pure mapping functions
 * (input_map_keys, input_map_pad, input_deadzone) are what the tests check.
 * Does NOT: know the camera or the world (see intent.h), or allocate.
 */
#ifndef STRIDER_APP_INPUT_H
#define STRIDER_APP_INPUT_H

#include "game/intent.h"
#include "game/script.h"

#include <SDL2/SDL.h>
#include <stdbool.h>

enum { INPUT_MAX_PADS = 8 };

/* Logical keys; several physical keys map onto one (WASD and arrows). */
typedef enum input_key_t {
    INPUT_KEY_FORWARD,
    INPUT_KEY_BACK,
    INPUT_KEY_LEFT,
    INPUT_KEY_RIGHT,
    INPUT_KEY_RUN,
    INPUT_KEY_CROUCH,
    INPUT_KEY_JUMP,
    INPUT_KEY_STRAFE,
    INPUT_KEY_ORBIT_LEFT,
    INPUT_KEY_ORBIT_RIGHT,
    INPUT_KEY_PITCH_UP,
    INPUT_KEY_PITCH_DOWN,
    INPUT_KEY_ZOOM_IN,
    INPUT_KEY_ZOOM_OUT,
    INPUT_KEY_COUNT
} input_key_t;

/* One-shot actions for the app, reported by input_handle_event(). */
typedef enum input_action_t {
    INPUT_ACTION_NONE = 0,
    INPUT_ACTION_QUIT,
    INPUT_ACTION_TOGGLE_MENU,
    INPUT_ACTION_TOGGLE_FULLSCREEN,
    INPUT_ACTION_TOGGLE_VSYNC,
    INPUT_ACTION_TOGGLE_WIREFRAME,
    INPUT_ACTION_SCREENSHOT,
    INPUT_ACTION_LEVEL_1, /* LEVEL_1 + k selects level k + 1 */
    INPUT_ACTION_LEVEL_2,
    INPUT_ACTION_LEVEL_3,
    INPUT_ACTION_LEVEL_4,
    INPUT_ACTION_LEVEL_5,
    INPUT_ACTION_LEVEL_6,
    INPUT_ACTION_LEVEL_7,
    INPUT_ACTION_LEVEL_8,
    INPUT_ACTION_LEVEL_9
} input_action_t;

typedef struct input_pad_t {
    SDL_GameController *controller;
    SDL_JoystickID instance_id;
} input_pad_t;

/* Tunables; input_config_default() fills them. */
typedef struct input_config_t {
    float stick_deadzone;    /* radial, fraction of full deflection */
    float trigger_deadzone;  /* fraction of full pull */
    float mouse_rad_per_px;  /* orbit per pixel of drag */
    float key_orbit_rad_s;   /* Q/E orbit rate */
    float stick_orbit_rad_s; /* right stick at full deflection */
    float wheel_zoom_step;   /* log-distance per wheel notch */
    float key_zoom_rate;     /* log-distance per second for +/- */
} input_config_t;

typedef struct input_state_t {
    input_config_t config;
    bool keys[INPUT_KEY_COUNT];
    bool jump_pressed; /* edge since the last sample, so a tap is never lost */
    bool mouse_dragging;
    float mouse_dx_px, mouse_dy_px, wheel_notches;
    input_pad_t pads[INPUT_MAX_PADS];
    int pad_count;
    int active_pad; /* index into pads, -1 when none */
    bool pad_jump_pressed;
    SDL_Joystick *virtual_pad; /* --virtual-gamepad, driven by script lines */
} input_state_t;

void input_config_default(input_config_t *cfg);
void input_init(input_state_t *in);
void input_shutdown(input_state_t *in);
/* Returns an app action, or INPUT_ACTION_NONE. */
input_action_t input_handle_event(input_state_t *in, const SDL_Event *ev);
/* Builds this frame's request from devices and resets per-frame accumulators. */
void input_sample(input_state_t *in, input_frame_t *out);
/* Forgets held keys and drags (e.g. when the window loses focus or the menu
 * takes the keyboard), so nothing stays stuck down. */
void input_release_all(input_state_t *in);
int input_pad_count(const input_state_t *in);
/* --virtual-gamepad: attaches SDL's virtual gamepad (false after one logged
 * line); script lines then drive it through SDL, so they reach the game by
 * exactly the path a real pad's events take. input_shutdown() detaches it. */
bool input_virtual_pad_attach(input_state_t *in);
/* A script's 'pad' or 'button' line (game/script.h) onto the virtual pad. */
void input_virtual_pad_drive(input_state_t *in, const script_event_t *ev);
const char *input_active_pad_name(const input_state_t *in);

/* Pure mappings (tested). */
/* Radial dead zone with rescaling: |out| goes 0..1 over |in| in dz..1. */
void input_deadzone(float x, float y, float deadzone, float *out_x, float *out_y);
void input_map_keys(const bool keys[INPUT_KEY_COUNT], const input_config_t *cfg, input_frame_t *out);
/* axes: SDL_CONTROLLER_AXIS_MAX values in [-1, 1] (triggers in [0, 1]);
 * buttons: SDL_CONTROLLER_BUTTON_MAX flags. Adds onto *out. */
void input_map_pad(const float *axes, const bool *buttons, const input_config_t *cfg, input_frame_t *out);

#endif
