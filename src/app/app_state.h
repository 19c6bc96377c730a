/* app_state: the demo's state, shared by app.c (loop) and menu.c (debug
 * menu). Internal to src/app; nothing outside the app includes it.
 */
#ifndef STRIDER_APP_APP_STATE_H
#define STRIDER_APP_APP_STATE_H

#include "anim/facemap.h"
#include "app/cli.h"
#include "app/figure.h"
#include "app/input.h"
#include "app/loop.h"
#include "app/platform.h"
#include "app/pose_dump.h"
#include "app/prof.h"
#include "app/script.h"
#include "app/settings.h"
#include "app/sim.h"
#include "app/viewer.h"
#include "ctrl/ctrl.h"
#include "pfnn/network.h"
#include "render/debug_lines.h"
#include "world/level.h"

#include <SDL2/SDL.h>

enum { APP_DEBUG_LINE_VERTICES = 8192 };

/* Blend shapes the game animates on the character's face. */
typedef enum app_face_shape {
    APP_FACE_BLINK_L,
    APP_FACE_BLINK_R,
    APP_FACE_JAW_OPEN,
    APP_FACE_DETERMINED,
    APP_FACE_SHAPE_COUNT
} app_face_shape;

typedef struct app_t {
    const app_options *opt;
    platform_t platform;
    input_state input;
    script_t script;
    bool have_script;
    SDL_Joystick *virtual_pad;     /* --virtual-gamepad, driven by script lines */
    level_t level;
    bool level_loaded;
    int pending_level;             /* level switch requested by key or menu, -1 none */
    sim_t sim;
    bool viewer_mode;              /* --view character: the step animates the viewer, not the marker */
    viewer_t viewer;
    /* The game's PFNN character (absent with --marker and in the viewer) */
    figure_t fig;
    pfnn_network net;
    bool net_loaded;
    ctrl_t *ctrl;
    pose_t draw_pose;              /* the pose drawn this frame (between the last two steps) */
    pose_dump dump;                /* --dump-pose */
    float net_ms;                  /* controller step wall time, ms, smoothed over steps */
    float net_ms_last;
    unsigned ctrl_draw;            /* CTRL_DRAW_* bits for the debug lines */
    /* Per face channel, the character's shapes that show it (anim/facemap.h:
     * its own shape of that name, or the ARKit shapes it stands for). */
    facemap_term face_term[APP_FACE_SHAPE_COUNT][FACEMAP_TERMS_MAX];
    int face_terms[APP_FACE_SHAPE_COUNT];
    loop_clock clock;
    prof_t prof;
    app_settings settings;
    debug_lines lines;
    debug_line_vertex line_storage[APP_DEBUG_LINE_VERTICES];
    long frame_index;
    double fps_smoothed;
    bool lockstep;                 /* one fixed step per frame (automated runs) */
    bool quit;
    bool screenshot_requested;
    /* The run's outcome beyond the loop: a runtime failure after the start
     * (the figure could not be deformed), requested outputs (--screenshot,
     * F12, --report) that could not be written, and whether the
     * --screenshot of the last frame was. Any failure: exit 1. */
    bool failed;
    int failed_outputs;
    bool screenshot_written;
} app_t;

void menu_draw(app_t *app);

#endif
