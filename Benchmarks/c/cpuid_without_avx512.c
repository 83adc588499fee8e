// An LD_PRELOAD library that hides AVX-512 from the process it is loaded into, so that onnxruntime (whose MLAS picks
// its kernels by CPUID, with no setting to lower them) runs its AVX2/FMA kernels on an AVX-512 CPU: the fair
// baseline for PlantGuide's AVX2 path in `Scripts/bench inference`.
//
// Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, on CPUs whose /proc/cpuinfo flags list cpuid_fault) makes every
// CPUID instruction raise SIGSEGV. The handler runs the real CPUID with faulting briefly off, clears the AVX-512
// feature bits (and the AVX-512 register state among the XSAVE components), and steps over the instruction.
// Threads started later inherit the setting. Build: cc -O2 -shared -fPIC cpuid_without_avx512.c -o libcpuid_without_avx512.so
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static long arch_prctl(int code, unsigned long argument) { return syscall(SYS_arch_prctl, code, argument); }

// CPUID leaf 7, subleaf 0: EBX AVX512F, DQ, IFMA, PF, ER, CD, BW, VL; ECX VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ;
// EDX 4VNNIW, 4FMAPS, VP2INTERSECT, FP16. Subleaf 1: EAX AVX512_BF16.
static const unsigned leaf7_ebx = 1u << 16 | 1u << 17 | 1u << 21 | 1u << 26 | 1u << 27 | 1u << 28 | 1u << 30 | 1u << 31;
static const unsigned leaf7_ecx = 1u << 1 | 1u << 6 | 1u << 11 | 1u << 12 | 1u << 14;
static const unsigned leaf7_edx = 1u << 2 | 1u << 3 | 1u << 8 | 1u << 23;

static void emulate_cpuid(int signal_number, siginfo_t *info, void *context) {
    (void)info;
    greg_t *registers = ((ucontext_t *)context)->uc_mcontext.gregs;
    const unsigned char *instruction = (const unsigned char *)registers[REG_RIP];
    if (instruction[0] != 0x0F || instruction[1] != 0xA2) {
        // A real fault: let it take the process down as it would have.
        signal(signal_number, SIG_DFL);
        return;
    }
    unsigned leaf = (unsigned)registers[REG_RAX], subleaf = (unsigned)registers[REG_RCX], a, b, c, d;
    arch_prctl(ARCH_SET_CPUID, 1);
    __cpuid_count(leaf, subleaf, a, b, c, d);
    arch_prctl(ARCH_SET_CPUID, 0);
    if (leaf == 7 && subleaf == 0) {
        b &= ~leaf7_ebx;
        c &= ~leaf7_ecx;
        d &= ~leaf7_edx;
    } else if (leaf == 7 && subleaf == 1) {
        a &= ~(1u << 5);
    } else if (leaf == 0xD && subleaf == 0) {
        a &= ~0xE0u; // opmask, ZMM_Hi256, Hi16_ZMM state
    }
    registers[REG_RAX] = a;
    registers[REG_RBX] = b;
    registers[REG_RCX] = c;
    registers[REG_RDX] = d;
    registers[REG_RIP] += 2;
}

__attribute__((constructor)) static void hide_avx512(void) {
    struct sigaction action = {0};
    action.sa_sigaction = emulate_cpuid;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, NULL) != 0 || arch_prctl(ARCH_SET_CPUID, 0) != 0) {
        fprintf(stderr, "cpuid_without_avx512: this CPU or kernel has no CPUID faulting; AVX-512 stays visible\n");
        exit(3);
    }
}
