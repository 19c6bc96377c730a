/* settings: the live-tunable switches of the demo, edited by the debug menu
 * and by keys. Later features (skinning path, phase mode, IK, expressions)
 * add their fields here so the menu stays the one place to tune them.
 * Does NOT: apply anything itself; the app reads it each frame.
 */
#ifndef STRIDER_APP_SETTINGS_H
#define STRIDER_APP_SETTINGS_H

#include <stdbool.h>

typedef struct app_settings_t {
    bool show_menu;
    bool vsync;
    bool fullscreen;
    bool wireframe;
    bool pause;              /* freeze the simulation; rendering goes on */
    bool finish_timing;      /* measure GPU time with glFinish instead of timer queries */
    unsigned layers;         /* GFX_LAYER_* bits */
    float sun_azimuth_deg;   /* sun direction around Y, 0 = from +Z */
    float sun_elevation_deg; /* above the horizon */
    int level_index;         /* index into the builtin levels; -1 = loaded by path */
} app_settings_t;

#endif
