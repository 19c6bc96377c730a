#include "bench/bench_args.h"

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
