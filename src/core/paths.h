/* paths: where runtime data (assets/, shaders/) is found.
 *
 * The data root defaults to the source tree the binary was built from
 * (STRIDER_DATA_DIR, set by CMake), so a build runs in place. The
 * environment variable STRIDER_DATA or the --data option override it.
 * Call order: paths_init() once at start-up (before anything loads) ->
 * paths_join() wherever a data file is opened.
 * Does NOT: allocate; all strings live in fixed buffers.
 */
#ifndef STRIDER_CORE_PATHS_H
#define STRIDER_CORE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

enum { PATHS_MAX = 1024 };

/* override: a folder given on the command line, or NULL. */
void paths_init(const char *override_dir);
const char *paths_data_dir(void);
/* Writes "<data root>/<rel>" into out; false (and a logged line) if it does not fit. */
bool paths_join(const char *rel, char *out, size_t out_size);

#endif
