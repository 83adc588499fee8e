// The portable loops compiled once per instruction set, with the one pg_isa() names called: the compiler
// vectorises each copy for its set, and PLANTGUIDE_INFERENCE_ISA can force a lower one (which ifunc-resolved
// target_clones could not). Private to CInferenceKernels.
#ifndef PLANTGUIDE_ISA_VARIANTS_H
#define PLANTGUIDE_ISA_VARIANTS_H

#include "inference_kernels.h"

/// Marks the body a PG_ISA_VARIANTS expands: inlined into each variant, so that it is compiled for each set.
#define PG_BODY static inline __attribute__((always_inline))

#if defined(__x86_64__) && defined(__clang__)
/// Defines `type name params` calling `name##_body args` compiled for x86-64-v4, x86-64-v3 or the baseline.
#define PG_ISA_VARIANTS(type, name, params, args)                                                      \
    __attribute__((target("arch=x86-64-v4"))) static type name##_avx512 params { return name##_body args; } \
    __attribute__((target("arch=x86-64-v3"))) static type name##_avx2 params { return name##_body args; }   \
    type name params {                                                                                 \
        switch (pg_isa()) {                                                                            \
        case PG_ISA_AVX512: return name##_avx512 args;                                                 \
        case PG_ISA_AVX2: return name##_avx2 args;                                                     \
        default: return name##_body args;                                                              \
        }                                                                                              \
    }
/// PG_ISA_VARIANTS for a function returning nothing.
#define PG_ISA_VARIANTS_VOID(name, params, args)                                                       \
    __attribute__((target("arch=x86-64-v4"))) static void name##_avx512 params { name##_body args; }  \
    __attribute__((target("arch=x86-64-v3"))) static void name##_avx2 params { name##_body args; }    \
    void name params {                                                                                 \
        switch (pg_isa()) {                                                                            \
        case PG_ISA_AVX512: name##_avx512 args; return;                                                \
        case PG_ISA_AVX2: name##_avx2 args; return;                                                    \
        default: name##_body args; return;                                                             \
        }                                                                                              \
    }
#else
#define PG_ISA_VARIANTS(type, name, params, args) type name params { return name##_body args; }
#define PG_ISA_VARIANTS_VOID(name, params, args) void name params { name##_body args; }
#endif

#endif
