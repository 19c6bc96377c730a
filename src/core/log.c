#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

static log_level_t g_log_level = LOG_INFO;

void log_set_level(log_level_t level) { g_log_level = level; }
log_level_t log_get_level(void) { return g_log_level; }

static void log_write(log_level_t level, const char *prefix, const char *fmt, va_list ap)
{
    if (level < g_log_level)
        return;
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

#define LOG_FN(name, level, prefix)                                                                                    \
    void name(const char *fmt, ...)                                                                                    \
    {                                                                                                                  \
        va_list ap;                                                                                                    \
        va_start(ap, fmt);                                                                                             \
        log_write(level, prefix, fmt, ap);                                                                             \
        va_end(ap);                                                                                                    \
    }

LOG_FN(log_debug, LOG_DEBUG, "strider: debug: ")
LOG_FN(log_info, LOG_INFO, "strider: ")
LOG_FN(log_warn, LOG_WARN, "strider: warning: ")
LOG_FN(log_error, LOG_ERROR, "strider: error: ")
