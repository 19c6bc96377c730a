/* core/cpu against libgcc's own probe (which also asks the OS which
 * register state it saves), for every feature both know; F16C, which gcc
 * 12's probe lacks, against its cpuid bit and the AVX state. Then the
 * features' implications, and every name. */
#include "core/cpu.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int main(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const struct {
        cpu_feature_t f;
        int gcc;
    } pairs[] = {{CPU_SSE2, __builtin_cpu_supports("sse2")},         {CPU_SSE42, __builtin_cpu_supports("sse4.2")},
                 {CPU_AVX, __builtin_cpu_supports("avx")},           {CPU_AVX2, __builtin_cpu_supports("avx2")},
                 {CPU_FMA, __builtin_cpu_supports("fma")},           {CPU_AVX512F, __builtin_cpu_supports("avx512f")},
                 {CPU_AVX512VL, __builtin_cpu_supports("avx512vl")}, {CPU_AVX512DQ, __builtin_cpu_supports("avx512dq")},
                 {CPU_AVX512BW, __builtin_cpu_supports("avx512bw")}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        CHECKF(cpu_has(pairs[i].f) == (pairs[i].gcc != 0), "%s: cpu_has %d, libgcc %d", cpu_feature_name(pairs[i].f),
               cpu_has(pairs[i].f), pairs[i].gcc != 0);
    unsigned a, b, c, d;
    bool f16c = __get_cpuid(1, &a, &b, &c, &d) && ((c >> 29) & 1u);
    CHECKF(cpu_has(CPU_F16C) == (f16c && cpu_has(CPU_AVX)), "f16c: cpu_has %d, cpuid %d, avx %d", cpu_has(CPU_F16C),
           f16c, cpu_has(CPU_AVX));
    CHECK(cpu_has(CPU_SSE2)); /* the x86-64 baseline */
#endif
    /* What needs the YMM state cannot be there without AVX, nor AVX-512 subsets without F. */
    CHECK(!cpu_has(CPU_AVX2) || cpu_has(CPU_AVX));
    CHECK(!cpu_has(CPU_F16C) || cpu_has(CPU_AVX));
    CHECK(!cpu_has(CPU_AVX512F) || cpu_has(CPU_AVX2));
    CHECK(!(cpu_has(CPU_AVX512VL) || cpu_has(CPU_AVX512DQ) || cpu_has(CPU_AVX512BW)) || cpu_has(CPU_AVX512F));
    CHECK(!cpu_has(CPU_FEATURE_COUNT) && !strcmp(cpu_feature_name(CPU_FEATURE_COUNT), "?"));
    for (int i = 0; i < CPU_FEATURE_COUNT; i++) {
        const char *n = cpu_feature_name((cpu_feature_t)i);
        CHECKF(n && *n && strcmp(n, "?"), "feature %d has a name", i);
        for (int j = 0; j < i; j++)
            CHECKF(strcmp(n, cpu_feature_name((cpu_feature_t)j)), "features %d and %d share the name %s", i, j, n);
        printf("cpu: %s %s\n", n, cpu_has((cpu_feature_t)i) ? "yes" : "no");
    }
    return check_summary();
}
