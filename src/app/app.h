/* app: the demo application: ties platform, input, script, simulation,
 * renderer and debug menu together in one fixed-step loop.
 *
 * One frame: events (UI first) -> input sample -> N fixed 60 Hz steps
 * (script events, sim_step) -> interpolate -> render -> menu -> screenshot
 * -> swap; each stage is timed into the profiler ring buffer.
 * In automated runs (--frames or --script) every rendered frame advances
 * exactly one fixed step, so results never depend on the machine's speed.
 * Call order: app_run() does everything and returns the process exit code.
 * Does NOT: make gl* calls (render/ does) or parse the command line (cli.h).
 */
#ifndef STRIDER_APP_APP_H
#define STRIDER_APP_APP_H

#include "app/cli.h"

int app_run(const app_options_t *opt);

#endif
