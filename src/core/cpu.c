/* cpu.c: one cpuid/xgetbv probe into a bit mask, kept in an atomic. */
#include "core/cpu.h"

#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CPU_X86 1
#else
#define CPU_X86 0
#endif

/* The mask with this bit set is a finished probe. */
#define CPU_PROBED (1u << 31)
_Static_assert(CPU_FEATURE_COUNT < 31, "every feature has a bit below CPU_PROBED");

static const char *const k_names[CPU_FEATURE_COUNT] = {"sse2", "sse4.2",  "avx",      "avx2",     "fma",
                                                       "f16c", "avx512f", "avx512vl", "avx512dq", "avx512bw"};

#if CPU_X86
static unsigned probe(void)
{
    unsigned m = 0, a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return m;
    if (d & (1u << 26))
        m |= 1u << CPU_SSE2;
    if (c & (1u << 20))
        m |= 1u << CPU_SSE42;
    /* XCR0 is readable only where the OS enabled XSAVE (OSXSAVE). Bits 1
     * and 2: SSE and the YMM upper halves; 5, 6, 7: opmask and the ZMM
     * state. */
    unsigned xcr0 = 0;
    if (c & (1u << 27)) {
        unsigned hi;
        __asm__("xgetbv" : "=a"(xcr0), "=d"(hi) : "c"(0));
    }
    const unsigned ymm = (1u << 1) | (1u << 2), zmm = ymm | (1u << 5) | (1u << 6) | (1u << 7);
    if ((xcr0 & ymm) != ymm)
        return m;
    if (c & (1u << 28))
        m |= 1u << CPU_AVX;
    if (c & (1u << 12))
        m |= 1u << CPU_FMA;
    if (c & (1u << 29))
        m |= 1u << CPU_F16C;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return m;
    if (b & (1u << 5))
        m |= 1u << CPU_AVX2;
    if ((xcr0 & zmm) != zmm)
        return m;
    if (b & (1u << 16))
        m |= 1u << CPU_AVX512F;
    if (b & (1u << 31))
        m |= 1u << CPU_AVX512VL;
    if (b & (1u << 17))
        m |= 1u << CPU_AVX512DQ;
    if (b & (1u << 30))
        m |= 1u << CPU_AVX512BW;
    return m;
}
#else
static unsigned probe(void) { return 0; }
#endif

bool cpu_has(cpu_feature_t f)
{
    static _Atomic unsigned mask;
    unsigned m = atomic_load_explicit(&mask, memory_order_relaxed);
    if (!(m & CPU_PROBED)) {
        m = probe() | CPU_PROBED;
        atomic_store_explicit(&mask, m, memory_order_relaxed);
    }
    return (unsigned)f < CPU_FEATURE_COUNT && (m >> f) & 1u;
}

const char *cpu_feature_name(cpu_feature_t f) { return (unsigned)f < CPU_FEATURE_COUNT ? k_names[f] : "?"; }
