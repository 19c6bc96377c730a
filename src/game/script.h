/* script: timed intents from a text file (--script FILE), for tests,
 * benchmarks and reproducible demos.
 *
 * Format (docs/COMMAND_LINE.md, "Scripts"): one event line per time stamp,
 *   TIME COMMAND ARGS [COMMAND ARGS ...]     # comment
 * TIME is in seconds from the start and must not decrease; an event fires on
 * the first fixed step at or after round(TIME * 60). Values persist until
 * changed. Commands:
 *   move X Y        camera-relative stick, X right, Y forward, each in [-1, 1]
 *   speed S         0 walk .. 1 run
 *   strafe B | crouch B | jump B     B is 0 or 1 (held state)
 *   orbit YAW PITCH camera orbit rates in degrees per second
 *   zoom R          zoom rate (log-distance per second, > 0 zooms in)
 *   pad AXIS V      virtual gamepad axis (leftx lefty rightx righty
 *                   lefttrigger righttrigger) in [-1, 1]; needs --virtual-gamepad
 *   button NAME B   virtual gamepad button (a b x y back start
 *                   leftshoulder rightshoulder)
 *   screenshot      what F12 does: a PNG of this step's frame, named
 *                   strider-FRAME.png in the working folder
 *   character N     switch to the menu's character N (0 = the one the run
 *                   started with, then the files found, in the menu's order)
 *   crowd N         what the menu's crowd slider does: N characters, yours one
 *                   of them (1..4096; at most what the run's crowd was made
 *                   for: max(--crowd, 200))
 *   quit            stop the run at this time (exit code 0)
 * Call order: script_load() -> each step script_next_due() until it returns
 * NULL, applying each event -> script_free().
 * Does NOT: read clocks; time is the fixed step count.
 */
#ifndef STRIDER_GAME_SCRIPT_H
#define STRIDER_GAME_SCRIPT_H

#include "game/intent.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum script_cmd_t {
    SCRIPT_MOVE,
    SCRIPT_SPEED,
    SCRIPT_STRAFE,
    SCRIPT_CROUCH,
    SCRIPT_JUMP,
    SCRIPT_ORBIT,
    SCRIPT_ZOOM,
    SCRIPT_PAD_AXIS,
    SCRIPT_PAD_BUTTON,
    SCRIPT_SCREENSHOT,
    SCRIPT_CHARACTER,
    SCRIPT_CROWD,
    SCRIPT_QUIT
} script_cmd_t;

/* The virtual gamepad's axes and buttons, numbered as SDL_GameController
 * numbers them (its enum values are part of SDL's ABI; app/app.c checks
 * them at compile time), so the headless game needs no SDL. */
enum {
    SCRIPT_PAD_LEFTX = 0,
    SCRIPT_PAD_LEFTY = 1,
    SCRIPT_PAD_RIGHTX = 2,
    SCRIPT_PAD_RIGHTY = 3,
    SCRIPT_PAD_TRIGGERLEFT = 4,
    SCRIPT_PAD_TRIGGERRIGHT = 5
};
enum {
    SCRIPT_PAD_A = 0,
    SCRIPT_PAD_B = 1,
    SCRIPT_PAD_X = 2,
    SCRIPT_PAD_Y = 3,
    SCRIPT_PAD_BACK = 4,
    SCRIPT_PAD_START = 6,
    SCRIPT_PAD_LEFTSHOULDER = 9,
    SCRIPT_PAD_RIGHTSHOULDER = 10
};

typedef struct script_event_t {
    uint64_t step;
    script_cmd_t cmd;
    int index; /* pad axis or button: SCRIPT_PAD_* */
    float a, b;
} script_event_t;

typedef struct script_t {
    script_event_t *events;
    int count;
    int next;           /* first event not yet fired */
    input_frame_t held; /* the persistent request built from fired events */
} script_t;

bool script_load(script_t *s, const char *path);
bool script_parse(script_t *s, const char *text, size_t len, const char *source);
void script_free(script_t *s);
/* Returns the next event due at or before 'step' and consumes it, or NULL. */
const script_event_t *script_next_due(script_t *s, uint64_t step);
/* Folds an intent-type event into s->held (pad, button, screenshot,
 * character, crowd and quit are the caller's to handle). */
void script_apply(script_t *s, const script_event_t *ev);
bool script_finished(const script_t *s);
/* Whether the script has a 'quit' line (it ends the run by itself). */
bool script_has_quit(const script_t *s);

#endif
