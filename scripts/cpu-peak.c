// The peaks that docs/results.md sets the int8 and FP32 kernels against, measured on the
// machine at hand (one core): the clock (a chain of dependent adds, one a cycle), then the
// throughput of 512-bit FP32 FMAs, `vpdpwssd` and `vpdpbusd` (12 independent accumulators each,
// so latency is hidden), of the 256-bit FMA and `vpmaddwd` of the AVX2 kernels, and, where
// Linux grants the tile state, AMX `tdpbusd` (4 independent accumulator tiles). Build and run on an otherwise idle core:
//
//     gcc -O1 -mavx512f -o /tmp/cpu-peak scripts/cpu-peak.c && taskset -c 1 /tmp/cpu-peak
//
// On an x86-64 CPU with AVX2 and FMA; the 512-bit lines are skipped where the CPU lacks AVX-512
// VNNI (an AVX2-only core such as AMD Zen 3), the tile line where it lacks AMX-INT8.
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define REP12(I) I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7) I(8) I(9) I(10) I(11)
#define FMA(k) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #k "\n"
#define DPW(k) "vpdpwssd %%zmm30, %%zmm31, %%zmm" #k "\n"
#define DPB(k) "vpdpbusd %%zmm30, %%zmm31, %%zmm" #k "\n"
// The AVX2 kernels' instructions, on 256-bit registers (an AVX2-only CPU's widest).
#define FMA_Y(k) "vfmadd231ps %%ymm14, %%ymm15, %%ymm" #k "\n"
#define MADDWD_Y(k) "vpmaddwd %%ymm14, %%ymm15, %%ymm" #k "\n"
#define CLOBBERS "xmm14", "xmm15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
                 "xmm10", "xmm11", "xmm30", "xmm31"
#define VECTOR(INS, NAME, MACS)                                                                 \
    {                                                                                           \
        double t = now();                                                                       \
        for (long i = 0; i < n; i++) __asm__ volatile(REP12(INS)::: CLOBBERS);                  \
        double per = 12.0 * n / (now() - t) / 1e9 / ghz;                                        \
        printf("%-12s %.2f a cycle: %4.0f multiply-adds a cycle, %6.1f G/s\n", NAME, per,         \
               per * MACS, per * MACS * ghz);                                                   \
    }

struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t bytes_a_row[16];
    uint8_t rows[16];
} __attribute__((aligned(64)));

int main(void) {
    long n = 400000000;
    unsigned long x = 0;
    double t = now();
    for (long i = 0; i < n; i++) __asm__ volatile("add $1, %0" : "+r"(x));
    double ghz = n / (now() - t) / 1e9;
    printf("clock        %.2f GHz\n", ghz);
    n = 40000000;
    if (__builtin_cpu_supports("avx512vnni")) {
        VECTOR(FMA, "fp32 fma", 16)
        VECTOR(DPW, "vpdpwssd", 32)
        VECTOR(DPB, "vpdpbusd", 64)
    } else {
        printf("fp32 fma, vpdpwssd, vpdpbusd: no AVX-512 VNNI on this CPU\n");
    }
    VECTOR(FMA_Y, "fp32 fma ymm", 8)
    VECTOR(MADDWD_Y, "vpmaddwd ymm", 16)
    // ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18): Linux's grant of the tiles.
    if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
        printf("tdpbusd      not granted by the kernel (no AMX)\n");
        return 0;
    }
    struct tile_config c = {.palette = 1};
    for (int i = 0; i < 8; i++) c.bytes_a_row[i] = 64, c.rows[i] = 16;
    long tiles = 10000000;
    t = now();
    __asm__ volatile("ldtilecfg %1\n tilezero %%tmm4\n tilezero %%tmm5\n"
                     "1: tdpbusd %%tmm5, %%tmm4, %%tmm0\n tdpbusd %%tmm5, %%tmm4, %%tmm1\n"
                     "tdpbusd %%tmm5, %%tmm4, %%tmm2\n tdpbusd %%tmm5, %%tmm4, %%tmm3\n"
                     "dec %0\n jnz 1b\n tilerelease\n"
                     : "+r"(tiles) : "m"(c));
    double per = 4.0 * 10000000 / (now() - t) / 1e9 / ghz;
    printf("tdpbusd      %.3f a cycle: %4.0f multiply-adds a cycle, %6.1f G/s\n", per, per * 16384,
           per * 16384 * ghz);
    return 0;
}
