#include "bench/bench.h"

#include "bench/bench_internal.h"
#include "core/paths.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: strider bench <what> [options]   (strider bench <what> --help for its options)\n"
          "  blendshapes   blend-shape methods over active-shape counts: CPU dense/sparse, GPU SSBO\n"
          "                dense/sparse and the GPU stream-out multipass (GPU: hidden GL 4.3+ context)\n"
          "  skinning      skinning paths over vertex, bone and influence counts\n"
          "  pfnn          network inference per phase mode and weight type, with the memory roofline\n"
          "  render        the game's frames with each of the renderer's pixel-keeping savings switched\n"
          "                off in turn, and the pictures compared (a window: xvfb-run -a when headless)\n"
          "  crowd         N PFNN characters in the game's steps and frames: simulation (batched network\n"
          "                against one inference each), deformation, render, memory (a window)\n"
          "common options: --repeats N --warmup N --csv PATH --json PATH --smoke\n"
          "every output starts with a header naming the command, date, CPU, GL renderer/version (GPU\n"
          "methods only; 'none' otherwise) and build\n"
          "exit codes: 0 success, 1 runtime failure or methods disagree, 2 usage error\n",
          out);
}

int bench_finish(report_table_t *t, const report_env_t *env, const bench_common_t *c, int failures)
{
    report_table_print(t, stdout);
    bool io_ok = true;
    if (c->csv)
        io_ok = report_table_write_csv(t, env, c->csv) && io_ok;
    if (c->json)
        io_ok = report_table_write_json(t, env, c->json) && io_ok;
    report_table_free(t);
    if (failures) {
        fprintf(stderr, "strider bench: FAILED: %d disagreement%s between methods (see above)\n", failures,
                failures > 1 ? "s" : "");
        return BENCH_EXIT_RUNTIME;
    }
    return io_ok ? BENCH_EXIT_OK : BENCH_EXIT_RUNTIME;
}

int bench_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? BENCH_EXIT_USAGE : BENCH_EXIT_OK;
    }
    paths_init(NULL);
    report_env_t env;
    report_env_collect(&env, argc, argv);
    if (!strcmp(argv[1], "skinning"))
        return bench_skinning(argc, argv, &env);
    if (!strcmp(argv[1], "pfnn"))
        return bench_pfnn(argc, argv, &env);
    if (!strcmp(argv[1], "blendshapes"))
        return bench_blendshapes(argc, argv, &env);
    if (!strcmp(argv[1], "render"))
        return bench_render(argc, argv, &env);
    if (!strcmp(argv[1], "crowd"))
        return bench_crowd(argc, argv, &env);
    fprintf(stderr, "strider bench: unknown benchmark '%s'; valid: blendshapes, skinning, pfnn, render, crowd\n",
            argv[1]);
    return BENCH_EXIT_USAGE;
}
