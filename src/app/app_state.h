/* app_state: the demo's state, shared by app.c (loop) and menu.c (debug
 * menu). Internal to src/app; nothing outside the app includes it.
 */
#ifndef STRIDER_APP_APP_STATE_H
#define STRIDER_APP_APP_STATE_H

#include "app/app.h"
#include "app/cli.h"
#include "app/figure.h"
#include "app/input.h"
#include "app/platform.h"
#include "app/prof.h"
#include "app/settings.h"
#include "app/viewer.h"
#include "asset/facemap.h"
#include "core/debug_lines.h"
#include "core/paths.h"
#include "ctrl/ctrl.h"
#include "game/crowd.h"
#include "game/feet_stats.h"
#include "game/loop.h"
#include "game/pose_dump.h"
#include "game/script.h"
#include "game/sim.h"
#include "pfnn/network.h"
#include "render/gfx.h"
#include "world/level.h"

#include <SDL2/SDL.h>

enum {
    APP_DEBUG_LINE_VERTICES = 8192,
    APP_MAX_CHARACTERS = 16,
    /* Members the menu's crowd slider offers at least (--crowd N more). */
    APP_CROWD_SLIDER_MAX = 200
};

/* Blend shapes the game animates on the character's face. */
typedef enum app_face_shape_t {
    APP_FACE_BLINK_L,
    APP_FACE_BLINK_R,
    APP_FACE_JAW_OPEN,
    APP_FACE_DETERMINED,
    APP_FACE_SHAPE_COUNT
} app_face_shape_t;

typedef struct app_t {
    const app_options_t *opt;
    platform_t platform;
    input_state_t input;
    script_t script;
    bool have_script;
    level_t level;
    bool level_loaded;
    int pending_level; /* level switch requested by key or menu, -1 none */
    sim_t sim;
    bool viewer_mode; /* --view character: the step animates the viewer, not the marker */
    viewer_t viewer;
    /* The game's PFNN character (absent with --marker and in the viewer);
     * the menu can switch it for another file of the list below. */
    figure_t *fig;
    skel_t driver; /* the controller's skeleton (the figure maps it onto its own) */
    char character_path[APP_MAX_CHARACTERS][PATHS_MAX];
    char character_name[APP_MAX_CHARACTERS][64];
    int character_count;
    int character_index;        /* the one shown */
    int pending_character;      /* requested by the menu, -1 none */
    char character_status[160]; /* the last switch's outcome, for the menu */
    feet_stats_t feet;          /* the shown character's feet and head, for --report */
    pfnn_network_t net;
    bool net_loaded;
    ctrl_t *ctrl;     /* the player's: its own, or the crowd's member 0 */
    crowd_t *crowd;   /* --crowd / the menu: N characters, the player's one of them; NULL: alone */
    int crowd_wanted; /* members asked for (the slider); 1: the player alone */
    int crowd_follow; /* the member the camera follows (0: the player) */
    /* The crowd's look: the shipped character (on the controller's
     * skeleton: the members' poses apply as they are), drawn instanced. */
    chr_character_t crowd_chr;
    bool crowd_chr_loaded;
    pose_bind_t crowd_bind;
    struct gfx_crowd_t *crowd_gfx; /* made when the crowd first has others */
    bool crowd_gfx_failed;         /* that failed (logged): the others are not drawn */
    bool crowd_cpu;                /* the others skinned on the CPU (--crowd-deform, the menu) */
    bool crowd_deform_chosen;      /* without --crowd-deform: the renderer's kind chose it once */
    pose_t draw_pose;              /* the pose drawn this frame (between the last two steps) */
    pose_dump_t dump;              /* --dump-pose */
    float net_ms;                  /* controller step wall time, ms, smoothed over steps */
    float net_ms_last;
    unsigned ctrl_draw; /* CTRL_DRAW_* bits for the debug lines */
    /* Per face channel, the character's shapes that show it (anim/facemap.h:
     * its own shape of that name, or the ARKit shapes it stands for). */
    facemap_term_t face_term[APP_FACE_SHAPE_COUNT][FACEMAP_TERMS_MAX];
    int face_terms[APP_FACE_SHAPE_COUNT];
    loop_clock_t clock;
    prof_t prof;
    app_settings_t settings;
    debug_lines_t lines;
    debug_line_vertex_t line_storage[APP_DEBUG_LINE_VERTICES];
    long frame_index;
    double fps_smoothed;
    bool lockstep; /* one fixed step per frame (automated runs) */
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

/* app_scene.c: the level and the characters. */
/* The start's files, so that bad input fails before any window opens: the
 * viewer's or the game's character (not with --marker), the level's name
 * and the script. 0, or the exit code after one logged line (everything
 * loaded so far freed). */
int app_scene_load_files(app_t *app, const app_options_t *opt, int *level_index);
/* With the window open: the viewer's stage and GPU side (and --bake), or
 * the game's level and the character's GPU side. False after one logged
 * line. */
bool app_scene_load(app_t *app, const app_options_t *opt, int level_index);
/* Loads level file PATH (INDEX: the builtin level's index, or -1) with its
 * GPU side and resets the simulation on it; the current level stays on
 * failure (one logged line). */
bool app_level_load_path(app_t *app, int index, const char *path);
bool app_level_load(app_t *app, int index, const char *name);
/* --crowd-seed, or --seed. */
uint32_t app_crowd_seed(const app_t *app);
/* The builtin level named NAME, or -1. */
int app_level_index(const char *name);
/* GIVEN when set, else FALLBACK under the data folder; false after one
 * logged line. */
bool app_data_path(const char *given, const char *fallback, char out[PATHS_MAX]);
/* The deformation flags of the command line onto F (game or viewer); the
 * menu edits the same fields later. */
void app_apply_skin_options(figure_t *f, const app_options_t *opt);
/* The character given first, then every character file found. */
void app_list_characters(app_t *app, const char *first);
/* The game's files, before any window opens: the network, the character and
 * the controller over both. 0, or EXIT_RUNTIME after one logged line. */
int app_character_load(app_t *app, const app_options_t *opt);
/* The menu's switches to character INDEX of the list (game, viewer). */
void app_character_switch(app_t *app, int index);
void app_viewer_switch(app_t *app, int index);
/* Safe to call twice; the figure's GPU side must go before gfx_shutdown(). */
void app_character_free(app_t *app);
/* The game character's pose between the last two steps (ALPHA), its face,
 * and the whole deformation into the renderer's stream; false when the
 * figure could not be deformed (logged). */
bool app_character_deform(app_t *app, float alpha);

/* The crowd's GPU side (after gfx_init; false after one logged line; with
 * no others yet, made by the first app_crowd_draw that has some), and per
 * drawn frame the members other than the player between their last two
 * steps (ALPHA) into it. */
bool app_crowd_gpu_init(app_t *app);
/* The menu's slider and a script's 'crowd N': N characters (clamped to
 * 1..the crowd's room, logged when over it), the ones that stay kept. */
void app_crowd_resize(app_t *app, int count);
/* The others' palettes and spheres for the frame F about to be drawn and,
 * in CPU mode, their skinning on the crowd's threads. */
void app_crowd_draw(app_t *app, float alpha, const gfx_frame_desc_t *f);
/* The crowd's deformation from the next frame on (the menu, --crowd-deform);
 * false (logged) when CPU is asked for where there is none. */
bool app_crowd_set_cpu(app_t *app, bool cpu);
/* bench crowd: the crowd's figures at the end of the run. */
void app_crowd_bench_finish(const app_t *app, app_crowd_bench_t *b);

/* app_report.c: --report FILE; false after one logged line. */
bool app_report_write(const app_t *app, const char *path);

#endif
