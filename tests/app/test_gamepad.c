/* The gamepad path with SDL's virtual joystick: hot-plug add, stick and
 * trigger mapping through SDL_GameController, dead zones, button edges and
 * hot-plug removal, all through the same input_* calls the demo makes. */
#include "app/input.h"
#include "check.h"

#include <SDL2/SDL.h>

static SDL_Joystick *attach(void)
{
    SDL_VirtualJoystickDesc desc;
    SDL_zero(desc);
    desc.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    desc.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    desc.naxes = SDL_CONTROLLER_AXIS_MAX;
    desc.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    desc.name = "test pad";
    int index = SDL_JoystickAttachVirtualEx(&desc);
    CHECK(index >= 0);
    return index >= 0 ? SDL_JoystickOpen(index) : NULL;
}

static void pump(input_state_t *in)
{
    SDL_Event ev;
    SDL_PumpEvents();
    while (SDL_PollEvent(&ev))
        input_handle_event(in, &ev);
}

int main(void)
{
    if (SDL_Init(SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    input_state_t in;
    input_init(&in);
    input_frame_t f;

    /* No pad: nothing moves, nothing crashes. */
    pump(&in);
    input_sample(&in, &f);
    CHECK(input_pad_count(&in) == 0 && f.move_x == 0.0f && f.move_y == 0.0f);

    SDL_Joystick *js = attach();
    if (!js) {
        fprintf(stderr, "cannot open the virtual joystick: %s\n", SDL_GetError());
        return check_summary();
    }
    pump(&in);
    CHECK(input_pad_count(&in) == 1);
    CHECK(input_active_pad_name(&in) != NULL);

    /* Stick up = forward; right trigger full = run. */
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_LEFTY, -32768);
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, 32767);
    pump(&in);
    input_sample(&in, &f);
    CHECK_NEAR(f.move_y, 1.0f, 1e-3);
    CHECK_NEAR(f.move_x, 0.0f, 1e-3);
    CHECK(f.speed > 0.95f);

    /* Drift inside the dead zone is ignored. */
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_LEFTY, 0);
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_LEFTX, 3000);
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, -32768);
    pump(&in);
    input_sample(&in, &f);
    CHECK(f.move_x == 0.0f && f.move_y == 0.0f);
    CHECK(f.speed == 0.0f);

    /* Right stick orbits the camera. */
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_RIGHTX, 32767);
    pump(&in);
    input_sample(&in, &f);
    CHECK(f.orbit_yaw_rate > 1.0f);
    SDL_JoystickSetVirtualAxis(js, SDL_CONTROLLER_AXIS_RIGHTX, 0);

    /* A tap of A between two samples still jumps; B crouches while held. */
    SDL_JoystickSetVirtualButton(js, SDL_CONTROLLER_BUTTON_A, 1);
    pump(&in);
    SDL_JoystickSetVirtualButton(js, SDL_CONTROLLER_BUTTON_A, 0);
    SDL_JoystickSetVirtualButton(js, SDL_CONTROLLER_BUTTON_B, 1);
    pump(&in);
    input_sample(&in, &f);
    CHECK(f.jump);
    CHECK(f.crouch);
    input_sample(&in, &f);
    CHECK(!f.jump);

    /* Hot-plug removal: the pad goes away and input falls back to nothing. */
    SDL_JoystickClose(js);
    CHECK(SDL_JoystickDetachVirtual(0) == 0);
    pump(&in);
    CHECK(input_pad_count(&in) == 0);
    input_sample(&in, &f);
    CHECK(!f.crouch && f.move_x == 0.0f);

    /* And plugging one back in works again. */
    js = attach();
    pump(&in);
    CHECK(input_pad_count(&in) == 1);
    SDL_JoystickClose(js);
    SDL_JoystickDetachVirtual(0);
    pump(&in);

    input_shutdown(&in);
    SDL_Quit();
    return check_summary();
}
