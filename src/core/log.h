/* log: one-line diagnostics to stderr, with a severity prefix.
 *
 * Call order: none needed; log_set_level() is optional.
 * Convention: I/O and data errors are reported as ONE line that names the
 * file and what is wrong, e.g. "assets/levels/x.lvl:12: unknown keyword 'foo'".
 * Does NOT: allocate, buffer, or exit the process.
 */
#ifndef STRIDER_CORE_LOG_H
#define STRIDER_CORE_LOG_H

typedef enum log_level_t { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3, LOG_QUIET = 4 } log_level_t;

void log_set_level(log_level_t level);
log_level_t log_get_level(void);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
