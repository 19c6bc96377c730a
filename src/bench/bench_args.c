#include "bench/bench_args.h"

#include "app/app.h"
#include "app/cli.h"
#include "world/level.h"

#include <string.h>

enum { MAX_SIDE = 4096 };
_Static_assert(CLI_MIN_SIZE == 64 && MAX_SIDE == 4096, "BENCH_SIZE_OPT's error line names the range");

int bench_level_names(const char **names, int max)
{
    int n = level_builtin_count() < max ? level_builtin_count() : max;
    for (int i = 0; i < n; i++)
        names[i] = level_builtin_name(i);
    return n;
}

int bench_level_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

bool bench_parse_size(const char *s, void *dest)
{
    app_options_t *o = dest;
    int w, h;
    if (!cli_parse_size(s, &w, &h) || w > MAX_SIDE || h > MAX_SIDE)
        return false;
    o->width = w;
    o->height = h;
    return true;
}

args_spec_t bench_args_spec(const char *command, const char *head, const args_opt_t *opts, int count)
{
    return (args_spec_t){.prog = "strider bench",
                         .command = command,
                         .usage_on_error = true,
                         .head = head,
                         .label_width = 19,
                         .opts = opts,
                         .count = count};
}

int bench_parse_args(const args_spec_t *spec, int argc, char **argv)
{
    switch (args_parse(spec, argc, argv, 2)) {
    case ARGS_HELP: return 0;
    case ARGS_ERROR: return 2;
    case ARGS_OK: break;
    }
    return -1;
}
