/* strider: command-line entry point. It only dispatches:
 *   strider [options]            the demo (or a viewer with --view)
 *   strider bench <what> ...     the benchmarks
 *   strider eval motion ...      the motion evaluation suite
 * Everything else lives in the modules under src/. */
#include "app/app.h"
#include "app/cli.h"
#include "bench/bench.h"
#include "core/log.h"
#include "eval/motion_eval.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "eval") == 0)
        return eval_main(argc - 1, argv + 1);
    app_options_t opt;
    switch (cli_parse(argc, argv, &opt)) {
    case CLI_EXIT_OK: return 0;
    case CLI_USAGE_ERROR: return EXIT_USAGE;
    case CLI_RUN: break;
    }
    if (opt.verbose)
        log_set_level(LOG_DEBUG);
    else if (opt.quiet)
        log_set_level(LOG_WARN);
    return app_run(&opt);
}
