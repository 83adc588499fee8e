// Which instruction set the kernels use: the best the CPU has (probed once), or a lower one forced by
// PLANTGUIDE_INFERENCE_ISA, so that every path can be tested and measured on one machine.
#include "inference_kernels.h"

#include <stdlib.h>
#include <string.h>

int pg_cpu_isa(void) {
#if defined(__x86_64__)
    static int known = -1;
    int isa = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (isa < 0) {
        __builtin_cpu_init();
        // The levels the compiler's x86-64-v3 and -v4 targets assume: AVX2 and FMA (and BMI, F16C, MOVBE), and
        // AVX-512 F, BW, CD, DQ and VL.
        isa = __builtin_cpu_supports("x86-64-v4") ? PG_ISA_AVX512 : __builtin_cpu_supports("x86-64-v3") ? PG_ISA_AVX2 : PG_ISA_PORTABLE;
        __atomic_store_n(&known, isa, __ATOMIC_RELAXED);
    }
    return isa;
#else
    return PG_ISA_PORTABLE;
#endif
}

int pg_requested_isa(void) {
    const char *value = getenv("PLANTGUIDE_INFERENCE_ISA");
    if (!value || !*value) return PG_ISA_UNSET;
    for (int isa = PG_ISA_PORTABLE; isa <= PG_ISA_AVX512; isa++) {
        if (strcmp(value, pg_isa_name(isa)) == 0) return isa;
    }
    return PG_ISA_INVALID;
}

int pg_isa(void) {
    // Asked by every kernel call: decided once (-1 until then; every thread decides the same).
    static int chosen = -1;
    int isa = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (isa < 0) {
        const int cpu = pg_cpu_isa(), requested = pg_requested_isa();
        isa = requested >= PG_ISA_PORTABLE && requested < cpu ? requested : cpu;
        __atomic_store_n(&chosen, isa, __ATOMIC_RELAXED);
    }
    return isa;
}

const char *pg_isa_name(int isa) {
    switch (isa) {
    case PG_ISA_AVX512: return "avx512";
    case PG_ISA_AVX2: return "avx2";
    default: return "portable";
    }
}
