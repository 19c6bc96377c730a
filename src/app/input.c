#include "app/input.h"
#include "game/script.h"

#include "core/log.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Script lines name pad axes and buttons by SDL_GameController's numbers
 * (game/script.h keeps its own copy to stay free of SDL). */
#define SAME_PAD_NUMBER(ours, sdls) _Static_assert((int)(ours) == (int)(sdls), #ours " is " #sdls)
SAME_PAD_NUMBER(SCRIPT_PAD_LEFTX, SDL_CONTROLLER_AXIS_LEFTX);
SAME_PAD_NUMBER(SCRIPT_PAD_LEFTY, SDL_CONTROLLER_AXIS_LEFTY);
SAME_PAD_NUMBER(SCRIPT_PAD_RIGHTX, SDL_CONTROLLER_AXIS_RIGHTX);
SAME_PAD_NUMBER(SCRIPT_PAD_RIGHTY, SDL_CONTROLLER_AXIS_RIGHTY);
SAME_PAD_NUMBER(SCRIPT_PAD_TRIGGERLEFT, SDL_CONTROLLER_AXIS_TRIGGERLEFT);
SAME_PAD_NUMBER(SCRIPT_PAD_TRIGGERRIGHT, SDL_CONTROLLER_AXIS_TRIGGERRIGHT);
SAME_PAD_NUMBER(SCRIPT_PAD_A, SDL_CONTROLLER_BUTTON_A);
SAME_PAD_NUMBER(SCRIPT_PAD_B, SDL_CONTROLLER_BUTTON_B);
SAME_PAD_NUMBER(SCRIPT_PAD_X, SDL_CONTROLLER_BUTTON_X);
SAME_PAD_NUMBER(SCRIPT_PAD_Y, SDL_CONTROLLER_BUTTON_Y);
SAME_PAD_NUMBER(SCRIPT_PAD_BACK, SDL_CONTROLLER_BUTTON_BACK);
SAME_PAD_NUMBER(SCRIPT_PAD_START, SDL_CONTROLLER_BUTTON_START);
SAME_PAD_NUMBER(SCRIPT_PAD_LEFTSHOULDER, SDL_CONTROLLER_BUTTON_LEFTSHOULDER);
SAME_PAD_NUMBER(SCRIPT_PAD_RIGHTSHOULDER, SDL_CONTROLLER_BUTTON_RIGHTSHOULDER);
#undef SAME_PAD_NUMBER

/* SDL reports stick axes as int16; this maps them to [-1, 1]. */
#define AXIS_SCALE (1.0f / 32767.0f)

void input_config_default(input_config_t *cfg)
{
    cfg->stick_deadzone = 0.18f;
    cfg->trigger_deadzone = 0.08f;
    cfg->mouse_rad_per_px = 0.006f;
    cfg->key_orbit_rad_s = 2.0f;
    cfg->stick_orbit_rad_s = 2.5f;
    cfg->wheel_zoom_step = 0.12f;
    cfg->key_zoom_rate = 1.2f;
}

void input_init(input_state_t *in)
{
    memset(in, 0, sizeof *in);
    input_config_default(&in->config);
    in->active_pad = -1;
}

void input_shutdown(input_state_t *in)
{
    for (int i = 0; i < in->pad_count; i++)
        SDL_GameControllerClose(in->pads[i].controller);
    in->pad_count = 0;
    in->active_pad = -1;
    if (in->virtual_pad) {
        SDL_JoystickClose(in->virtual_pad);
        SDL_JoystickDetachVirtual(0);
        in->virtual_pad = NULL;
    }
}

void input_release_all(input_state_t *in)
{
    memset(in->keys, 0, sizeof in->keys);
    in->mouse_dragging = false;
    in->mouse_dx_px = in->mouse_dy_px = in->wheel_notches = 0.0f;
    in->jump_pressed = false;
}

int input_pad_count(const input_state_t *in) { return in->pad_count; }

const char *input_active_pad_name(const input_state_t *in)
{
    if (in->active_pad < 0)
        return NULL;
    const char *name = SDL_GameControllerName(in->pads[in->active_pad].controller);
    return name ? name : "unnamed gamepad";
}

static int find_pad(const input_state_t *in, SDL_JoystickID id)
{
    for (int i = 0; i < in->pad_count; i++)
        if (in->pads[i].instance_id == id)
            return i;
    return -1;
}

static void pad_added(input_state_t *in, int device_index)
{
    if (!SDL_IsGameController(device_index))
        return;
    SDL_JoystickID id = SDL_JoystickGetDeviceInstanceID(device_index);
    if (find_pad(in, id) >= 0)
        return;
    if (in->pad_count == INPUT_MAX_PADS) {
        log_warn("gamepad ignored: already %d open", INPUT_MAX_PADS);
        return;
    }
    SDL_GameController *gc = SDL_GameControllerOpen(device_index);
    if (!gc) {
        log_warn("gamepad %d could not be opened: %s", device_index, SDL_GetError());
        return;
    }
    in->pads[in->pad_count].controller = gc;
    in->pads[in->pad_count].instance_id = id;
    in->active_pad = in->pad_count;
    in->pad_count++;
    const char *name = SDL_GameControllerName(gc);
    log_info("gamepad connected: %s", name ? name : "unnamed");
}

static void pad_removed(input_state_t *in, SDL_JoystickID id)
{
    int i = find_pad(in, id);
    if (i < 0)
        return;
    SDL_GameControllerClose(in->pads[i].controller);
    in->pads[i] = in->pads[in->pad_count - 1];
    in->pad_count--;
    /* Fall back to the most recently opened remaining pad. */
    in->active_pad = in->pad_count - 1;
    log_info("gamepad disconnected (%d left)", in->pad_count);
}

static int key_for_scancode(SDL_Scancode sc)
{
    switch (sc) {
    case SDL_SCANCODE_W:
    case SDL_SCANCODE_UP: return INPUT_KEY_FORWARD;
    case SDL_SCANCODE_S:
    case SDL_SCANCODE_DOWN: return INPUT_KEY_BACK;
    case SDL_SCANCODE_A:
    case SDL_SCANCODE_LEFT: return INPUT_KEY_LEFT;
    case SDL_SCANCODE_D:
    case SDL_SCANCODE_RIGHT: return INPUT_KEY_RIGHT;
    case SDL_SCANCODE_LSHIFT:
    case SDL_SCANCODE_RSHIFT: return INPUT_KEY_RUN;
    case SDL_SCANCODE_C:
    case SDL_SCANCODE_LCTRL:
    case SDL_SCANCODE_RCTRL: return INPUT_KEY_CROUCH;
    case SDL_SCANCODE_SPACE: return INPUT_KEY_JUMP;
    case SDL_SCANCODE_LALT:
    case SDL_SCANCODE_X: return INPUT_KEY_STRAFE;
    case SDL_SCANCODE_Q: return INPUT_KEY_ORBIT_LEFT;
    case SDL_SCANCODE_E: return INPUT_KEY_ORBIT_RIGHT;
    case SDL_SCANCODE_R: return INPUT_KEY_PITCH_UP;
    case SDL_SCANCODE_F: return INPUT_KEY_PITCH_DOWN;
    case SDL_SCANCODE_EQUALS:
    case SDL_SCANCODE_KP_PLUS: return INPUT_KEY_ZOOM_IN;
    case SDL_SCANCODE_MINUS:
    case SDL_SCANCODE_KP_MINUS: return INPUT_KEY_ZOOM_OUT;
    default: return -1;
    }
}

static input_action_t action_for_keydown(SDL_Scancode sc)
{
    if (sc >= SDL_SCANCODE_1 && sc <= SDL_SCANCODE_9)
        return (input_action_t)(INPUT_ACTION_LEVEL_1 + (sc - SDL_SCANCODE_1));
    switch (sc) {
    case SDL_SCANCODE_ESCAPE: return INPUT_ACTION_QUIT;
    case SDL_SCANCODE_F1: return INPUT_ACTION_TOGGLE_MENU;
    case SDL_SCANCODE_F2: return INPUT_ACTION_TOGGLE_VSYNC;
    case SDL_SCANCODE_F3: return INPUT_ACTION_TOGGLE_WIREFRAME;
    case SDL_SCANCODE_F11: return INPUT_ACTION_TOGGLE_FULLSCREEN;
    case SDL_SCANCODE_F12: return INPUT_ACTION_SCREENSHOT;
    default: return INPUT_ACTION_NONE;
    }
}

input_action_t input_handle_event(input_state_t *in, const SDL_Event *ev)
{
    switch (ev->type) {
    case SDL_QUIT: return INPUT_ACTION_QUIT;
    case SDL_KEYDOWN:
    case SDL_KEYUP: {
        bool down = ev->type == SDL_KEYDOWN;
        int k = key_for_scancode(ev->key.keysym.scancode);
        if (k >= 0) {
            if (down && k == INPUT_KEY_JUMP && !in->keys[k])
                in->jump_pressed = true;
            in->keys[k] = down;
        }
        if (down && !ev->key.repeat)
            return action_for_keydown(ev->key.keysym.scancode);
        return INPUT_ACTION_NONE;
    }
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        if (ev->button.button == SDL_BUTTON_LEFT)
            in->mouse_dragging = ev->type == SDL_MOUSEBUTTONDOWN;
        else if (ev->button.button == SDL_BUTTON_RIGHT)
            in->keys[INPUT_KEY_STRAFE] = ev->type == SDL_MOUSEBUTTONDOWN;
        return INPUT_ACTION_NONE;
    case SDL_MOUSEMOTION:
        if (in->mouse_dragging) {
            in->mouse_dx_px += (float)ev->motion.xrel;
            in->mouse_dy_px += (float)ev->motion.yrel;
        }
        return INPUT_ACTION_NONE;
    case SDL_MOUSEWHEEL: in->wheel_notches += ev->wheel.preciseY; return INPUT_ACTION_NONE;
    case SDL_CONTROLLERDEVICEADDED: pad_added(in, ev->cdevice.which); return INPUT_ACTION_NONE;
    case SDL_CONTROLLERDEVICEREMOVED: pad_removed(in, ev->cdevice.which); return INPUT_ACTION_NONE;
    case SDL_CONTROLLERBUTTONDOWN: {
        int i = find_pad(in, ev->cbutton.which);
        if (i >= 0)
            in->active_pad = i;
        if (ev->cbutton.button == SDL_CONTROLLER_BUTTON_A)
            in->pad_jump_pressed = true;
        if (ev->cbutton.button == SDL_CONTROLLER_BUTTON_START)
            return INPUT_ACTION_TOGGLE_MENU;
        return INPUT_ACTION_NONE;
    }
    case SDL_CONTROLLERAXISMOTION: {
        /* A pad becomes active when it is actually used, not on tiny drift. */
        int i = find_pad(in, ev->caxis.which);
        if (i >= 0 && fabsf((float)ev->caxis.value * AXIS_SCALE) > in->config.stick_deadzone)
            in->active_pad = i;
        return INPUT_ACTION_NONE;
    }
    case SDL_WINDOWEVENT:
        if (ev->window.event == SDL_WINDOWEVENT_FOCUS_LOST)
            input_release_all(in);
        return INPUT_ACTION_NONE;
    default: return INPUT_ACTION_NONE;
    }
}

void input_deadzone(float x, float y, float deadzone, float *out_x, float *out_y)
{
    float mag = sqrtf(x * x + y * y);
    if (mag <= deadzone || deadzone >= 1.0f) {
        *out_x = *out_y = 0.0f;
        return;
    }
    float clamped = mag > 1.0f ? 1.0f : mag;
    float scale = (clamped - deadzone) / (1.0f - deadzone) / mag;
    *out_x = x * scale;
    *out_y = y * scale;
}

void input_map_keys(const bool keys[INPUT_KEY_COUNT], const input_config_t *cfg, input_frame_t *out)
{
    memset(out, 0, sizeof *out);
    out->move_x = (float)keys[INPUT_KEY_RIGHT] - (float)keys[INPUT_KEY_LEFT];
    out->move_y = (float)keys[INPUT_KEY_FORWARD] - (float)keys[INPUT_KEY_BACK];
    out->speed = keys[INPUT_KEY_RUN] ? 1.0f : 0.0f;
    out->crouch = keys[INPUT_KEY_CROUCH];
    out->jump = keys[INPUT_KEY_JUMP];
    out->strafe = keys[INPUT_KEY_STRAFE];
    out->orbit_yaw_rate = cfg->key_orbit_rad_s *
                          ((float)keys[INPUT_KEY_ORBIT_RIGHT] - (float)keys[INPUT_KEY_ORBIT_LEFT]);
    out->orbit_pitch_rate = cfg->key_orbit_rad_s * 0.5f *
                            ((float)keys[INPUT_KEY_PITCH_UP] - (float)keys[INPUT_KEY_PITCH_DOWN]);
    out->zoom_rate = cfg->key_zoom_rate * ((float)keys[INPUT_KEY_ZOOM_IN] - (float)keys[INPUT_KEY_ZOOM_OUT]);
}

void input_map_pad(const float *axes, const bool *buttons, const input_config_t *cfg, input_frame_t *out)
{
    float lx, ly, rx, ry;
    input_deadzone(axes[SDL_CONTROLLER_AXIS_LEFTX], axes[SDL_CONTROLLER_AXIS_LEFTY], cfg->stick_deadzone, &lx, &ly);
    input_deadzone(axes[SDL_CONTROLLER_AXIS_RIGHTX], axes[SDL_CONTROLLER_AXIS_RIGHTY], cfg->stick_deadzone, &rx, &ry);
    input_frame_t pad = {0};
    /* SDL's stick Y grows downwards; pushing the stick up means "forward". */
    pad.move_x = lx;
    pad.move_y = -ly;
    float rt = axes[SDL_CONTROLLER_AXIS_TRIGGERRIGHT];
    float lt = axes[SDL_CONTROLLER_AXIS_TRIGGERLEFT];
    pad.speed = rt > cfg->trigger_deadzone ? (rt - cfg->trigger_deadzone) / (1.0f - cfg->trigger_deadzone) : 0.0f;
    pad.strafe = lt > 0.5f;
    pad.jump = buttons[SDL_CONTROLLER_BUTTON_A];
    pad.crouch = buttons[SDL_CONTROLLER_BUTTON_B];
    pad.orbit_yaw_rate = rx * cfg->stick_orbit_rad_s;
    /* Stick up looks from lower down, like most third-person games. */
    pad.orbit_pitch_rate = ry * cfg->stick_orbit_rad_s * 0.6f;
    pad.zoom_rate = cfg->key_zoom_rate * ((float)buttons[SDL_CONTROLLER_BUTTON_RIGHTSHOULDER] -
                                          (float)buttons[SDL_CONTROLLER_BUTTON_LEFTSHOULDER]);
    input_frame_t merged;
    input_merge(out, &pad, &merged);
    *out = merged;
}

void input_sample(input_state_t *in, input_frame_t *out)
{
    input_map_keys(in->keys, &in->config, out);
    out->jump = out->jump || in->jump_pressed;
    out->orbit_yaw_impulse = in->mouse_dx_px * in->config.mouse_rad_per_px;
    out->orbit_pitch_impulse = in->mouse_dy_px * in->config.mouse_rad_per_px;
    out->zoom_impulse = in->wheel_notches * in->config.wheel_zoom_step;
    in->mouse_dx_px = in->mouse_dy_px = in->wheel_notches = 0.0f;
    in->jump_pressed = false;

    if (in->active_pad >= 0) {
        SDL_GameController *gc = in->pads[in->active_pad].controller;
        float axes[SDL_CONTROLLER_AXIS_MAX];
        bool buttons[SDL_CONTROLLER_BUTTON_MAX];
        for (int a = 0; a < SDL_CONTROLLER_AXIS_MAX; a++)
            axes[a] = (float)SDL_GameControllerGetAxis(gc, (SDL_GameControllerAxis)a) * AXIS_SCALE;
        for (int b = 0; b < SDL_CONTROLLER_BUTTON_MAX; b++)
            buttons[b] = SDL_GameControllerGetButton(gc, (SDL_GameControllerButton)b) != 0;
        if (in->pad_jump_pressed)
            buttons[SDL_CONTROLLER_BUTTON_A] = true;
        input_map_pad(axes, buttons, &in->config, out);
    }
    in->pad_jump_pressed = false;
}

bool input_virtual_pad_attach(input_state_t *in)
{
    SDL_VirtualJoystickDesc desc;
    SDL_zero(desc);
    desc.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    desc.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    desc.naxes = SDL_CONTROLLER_AXIS_MAX;
    desc.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    desc.name = "Strider virtual gamepad";
    int index = SDL_JoystickAttachVirtualEx(&desc);
    if (index < 0) {
        log_error("cannot attach a virtual gamepad: %s", SDL_GetError());
        return false;
    }
    in->virtual_pad = SDL_JoystickOpen(index);
    if (!in->virtual_pad) {
        log_error("cannot open the virtual gamepad: %s", SDL_GetError());
        return false;
    }
    return true;
}

/* Script lines for the virtual pad go through SDL, so they reach the game by
 * exactly the path a real pad's events take. */
void input_virtual_pad_drive(input_state_t *in, const script_event_t *ev)
{
    if (!in->virtual_pad) {
        log_warn("script gamepad line ignored: run with --virtual-gamepad");
        return;
    }
    if (ev->cmd == SCRIPT_PAD_AXIS) {
        float v = ev->a;
        /* SDL maps a full-range virtual axis onto the 0..1 trigger range. */
        if (ev->index == SCRIPT_PAD_TRIGGERLEFT || ev->index == SCRIPT_PAD_TRIGGERRIGHT)
            v = v * 2.0f - 1.0f;
        float raw = v * 32767.0f;
        if (raw < -32768.0f)
            raw = -32768.0f;
        SDL_JoystickSetVirtualAxis(in->virtual_pad, ev->index, (Sint16)lrintf(raw));
    } else {
        SDL_JoystickSetVirtualButton(in->virtual_pad, ev->index, ev->a != 0.0f ? 1 : 0);
    }
}
