/* bench_internal: what the benchmark commands share inside src/bench. */
#ifndef STRIDER_BENCH_BENCH_INTERNAL_H
#define STRIDER_BENCH_BENCH_INTERNAL_H

#include "bench/bench_args.h"
#include "core/report.h"
#include "bench/bench_time.h"

enum { BENCH_EXIT_OK = 0, BENCH_EXIT_RUNTIME = 1, BENCH_EXIT_USAGE = 2 };

/* Each command: argv[0] = "bench", argv[1] = its name. */
int bench_skinning(int argc, char **argv, const report_env_t *env);
int bench_pfnn(int argc, char **argv, const report_env_t *env);
int bench_blendshapes(int argc, char **argv, const report_env_t *env);
int bench_render(int argc, char **argv, const report_env_t *env);
int bench_crowd(int argc, char **argv, const report_env_t *env);

/* Prints the table, writes --csv / --json, frees the table, and turns the
 * failure count into the exit code (failures are reported loudly). */
int bench_finish(report_table_t *t, const report_env_t *env, const bench_common_t *c, int failures);

#endif
