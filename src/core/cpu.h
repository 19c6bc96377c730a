/* cpu: which x86-64 instruction sets this process may run, asked once of
 * the processor (cpuid) and of the OS (the register state it saves on a
 * switch, XCR0), and kept. A feature whose registers the OS does not save
 * reads false even where the processor has it. The CPU kernels (anim/skin,
 * pfnn/kernels) pick their widest ISA by it, and the benchmarks' reports
 * name what it found.
 * Call order: cpu_has() from any thread, at any time (the first calls
 * probe; calls racing on the first probe find the same answer).
 * Does NOT: pick kernels, or know other architectures (there every feature
 * reads false).
 */
#ifndef STRIDER_CORE_CPU_H
#define STRIDER_CORE_CPU_H

#include <stdbool.h>

typedef enum cpu_feature_t {
    CPU_SSE2,
    CPU_SSE42,
    CPU_AVX, /* AVX, AVX2, FMA, F16C: with the OS saving the YMM state */
    CPU_AVX2,
    CPU_FMA,
    CPU_F16C,
    CPU_AVX512F, /* the AVX-512 subsets: with the OS saving opmask and ZMM state */
    CPU_AVX512VL,
    CPU_AVX512DQ,
    CPU_AVX512BW,
    CPU_FEATURE_COUNT
} cpu_feature_t;

bool cpu_has(cpu_feature_t f);
/* Lower-case name as /proc/cpuinfo spells it ("sse4_2" as "sse4.2"). */
const char *cpu_feature_name(cpu_feature_t f);

#endif
