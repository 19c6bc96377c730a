/* bench: `strider bench <blendshapes|skinning|pfnn> [options]`, the
 * benchmarks behind every performance claim in docs/PERFORMANCE.md.
 *
 * Each benchmark warms up, repeats, reports the median with min and max,
 * checks that the work really happened (checksums of the outputs) and that
 * every method agrees with the reference within a stated tolerance; a
 * disagreement fails the run with exit code 1. Output: an environment header
 * and an aligned table on stdout, plus --csv / --json files.
 * Exit codes: 0 success, 1 runtime failure or methods disagree, 2 usage error.
 * Call order: bench_main(argc, argv) with argv[0] = "bench".
 * Does NOT: assert speed goals; it measures, docs/PERFORMANCE.md quotes.
 */
#ifndef STRIDER_BENCH_BENCH_H
#define STRIDER_BENCH_BENCH_H

int bench_main(int argc, char **argv);

#endif
