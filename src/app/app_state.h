/* app_state: the demo's state, shared by app.c (loop) and menu.c (debug
 * menu). Internal to src/app; nothing outside the app includes it.
 */
#ifndef STRIDER_APP_APP_STATE_H
#define STRIDER_APP_APP_STATE_H

#include "asset/facemap.h"
#include "app/cli.h"
#include "app/figure.h"
#include "app/input.h"
#include "game/loop.h"
#include "app/platform.h"
#include "game/pose_dump.h"
#include "app/prof.h"
#include "game/script.h"
#include "app/settings.h"
#include "game/sim.h"
#include "app/viewer.h"
#include "core/paths.h"
#include "ctrl/ctrl.h"
#include "pfnn/network.h"
#include "core/debug_lines.h"
#include "world/level.h"

#include <SDL2/SDL.h>

enum { APP_DEBUG_LINE_VERTICES = 8192, APP_MAX_CHARACTERS = 16, APP_FEET_CONTACTS_MAX = 2048 };

/* Blend shapes the game animates on the character's face. */
typedef enum app_face_shape {
    APP_FACE_BLINK_L,
    APP_FACE_BLINK_R,
    APP_FACE_JAW_OPEN,
    APP_FACE_DETERMINED,
    APP_FACE_SHAPE_COUNT
} app_face_shape;

/* The shown character's own feet and head as drawn (lockstep runs: one
 * per step), for --report: how far planted ankles move, against the
 * controller's own heels in the same frames, and the highest head top. */
typedef struct app_feet_stats {
    int frames, contact_frames;
    bool have_prev;
    float prev_ankle[2][3], prev_heel[2][3];
    bool prev_contact[2];
    double slide_cm[2], ctrl_slide_cm[2];
    float slide_max_cm, ctrl_slide_max_cm;
    /* Per contact of the drawn character's ankle or toe joint (a run of
     * frames where the controller holds that heel or toe: flag and lock
     * weight > 0.5), its horizontal path, as the motion goals count slide;
     * the first APP_FEET_CONTACTS_MAX contacts go into the percentile, the
     * maximum sees all. [side][ankle, toe]. */
    bool point_prev_contact[2][2];
    float point_prev[2][2][3];
    float point_run_cm[2][2];
    float contact_slide_cm[APP_FEET_CONTACTS_MAX];
    int contacts;
    float contact_slide_max_cm;
    /* The same for the controller's own heel and toe-tip points. */
    float ctrl_point_prev[2][2][3];
    float ctrl_point_run_cm[2][2];
    float ctrl_contact_slide_cm[APP_FEET_CONTACTS_MAX];
    float ctrl_contact_slide_max_cm;
    /* Deepest an ankle or toe joint went below its rest height above the
     * terrain under it (> 0: sunk; the motion goals allow 1 cm). */
    float sink_max_cm;
    float ctrl_sink_max_cm;         /* the controller's heel and toe tip, likewise */
    float head_top_max_cm;          /* highest head top above the terrain under the root */
    float ceiling_clearance_min_cm; /* least room between head top and a crouch area's ceiling */
    int ceiling_frames;
    bool finite;
} app_feet_stats;

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
    /* The game's PFNN character (absent with --marker and in the viewer);
     * the menu can switch it for another file of the list below. */
    figure_t *fig;
    skel_t driver;                 /* the controller's skeleton (the figure maps it onto its own) */
    char character_path[APP_MAX_CHARACTERS][PATHS_MAX];
    char character_name[APP_MAX_CHARACTERS][64];
    int character_count;
    int character_index;           /* the one shown */
    int pending_character;         /* requested by the menu, -1 none */
    char character_status[160];    /* the last switch's outcome, for the menu */
    app_feet_stats feet;
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
