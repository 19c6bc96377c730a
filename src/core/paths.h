/* paths: where runtime data (assets/, shaders/) is found.
 *
 * The data root defaults to the source tree the binary was built from
 * (STRIDER_DATA_DIR, set by CMake), so a build runs in place. The
 * environment variable STRIDER_DATA or the --data option override it.
 * Call order: paths_init() once at start-up (before anything loads) ->
 * paths_join() wherever a data file is opened.
 * Does NOT: allocate (all strings live in fixed buffers), or truncate a
 * path: one that does not fit is an error.
 */
#ifndef STRIDER_CORE_PATHS_H
#define STRIDER_CORE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of a path buffer: the system's own limit (Linux PATH_MAX, with the
 * NUL), so no path the system can open is refused or truncated here. */
enum { PATHS_MAX = 4096 };
/* Bytes of a one-line message that names a path. */
enum { PATHS_LINE_MAX = PATHS_MAX + 256 };

/* override: a folder given on the command line, or NULL. */
void paths_init(const char *override_dir);
const char *paths_data_dir(void);
/* Writes "<data root>/<rel>" into out; false (and a logged line) if it does not fit. */
bool paths_join(const char *rel, char *out, size_t out_size);
/* The folder of PATH ("." for a bare name, "/" for a file in the root)
 * into OUT; false (nothing logged) if it does not fit. */
bool paths_dirname(const char *path, char *out, size_t out_size);
/* Copies PATH into OUT; false (and one logged line naming PATH's length)
 * if it does not fit: a path is never truncated into another one. */
bool paths_copy(const char *path, char *out, size_t out_size);

#endif
