/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_overflow on the virtual PMU (run under `hpm run --`): an interrupt
 * changes nothing the interrupted code can see.
 *
 * The virtual PMU enters the handler without a signal (an upcall: the tool
 * moves the thread to libhpm's entry, which saves and restores the state
 * itself), or with one (HPM_OVERFLOW_UPCALL=0). Either way, a loop written
 * in assembly, interrupted at every threshold T in {1, 7, 100}, must end
 * with exactly what it ends with uninterrupted:
 *   - all fifteen general registers (each iteration mixes each into the
 *     next, the carry flag chained through the loop's back edge, where the
 *     interrupts come);
 *   - the 128-byte red zone below the stack pointer (the loop keeps a value
 *     there across iterations);
 *   - xmm0-15, and the upper halves of ymm8-15 where the CPU has AVX (the
 *     handler calls glibc's memset and memcpy, whose AVX versions end in
 *     vzeroupper);
 *   - the direction flag, set for the whole loop (the handler's string
 *     functions need it clear: the entry clears it and restores it).
 * The handler also checks the context it is given: most PCs inside the
 * loop, and there the loop's stack pointer.
 *
 * Without the virtual PMU the test reports itself skipped (exit 77).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "papi.h"

#define N_OUT 48

/* regs_loop(n, out): out[0..14] the general registers, out[15..30] the low
 * quadwords of xmm0-15, out[31..38] the low quadwords of ymm8-15's upper
 * halves (0 without AVX), out[39] the red zone's word, out[40] the flags'
 * direction bit at the end. */
extern void regs_loop(uint64_t n, uint64_t *out, int avx);
extern const char regs_loop_top[], regs_loop_end[];
uint64_t regs_loop_sp;

__asm__(".text\n"
        ".globl regs_loop, regs_loop_top, regs_loop_end\n"
        ".type regs_loop, @function\n"
        "regs_loop:\n"
        "pushq %rbx\n pushq %rbp\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
        "pushq %rsi\n" /* out */
        "pushq %rdx\n" /* avx */
        "movq %rdi, %rcx\n"
        "movq $0x9e3779b97f4a7c15, %rax\n"
        "movq $2, %rbx\n movq $3, %rdx\n movq $5, %rsi\n movq $7, %rdi\n"
        "movq $11, %rbp\n movq $13, %r8\n movq $17, %r9\n movq $19, %r10\n"
        "movq $23, %r11\n movq $29, %r12\n movq $31, %r13\n movq $37, %r14\n"
        "movq $41, %r15\n"
        /* xmm0-15: distinct values */
        "movq %rax, %xmm0\n movq %rbx, %xmm1\n movq %rdx, %xmm2\n movq %rsi, %xmm3\n"
        "movq %rdi, %xmm4\n movq %rbp, %xmm5\n movq %r8, %xmm6\n movq %r9, %xmm7\n"
        "movq %r10, %xmm8\n movq %r11, %xmm9\n movq %r12, %xmm10\n movq %r13, %xmm11\n"
        "movq %r14, %xmm12\n movq %r15, %xmm13\n movq %rax, %xmm14\n movq %rbx, %xmm15\n"
        "cmpq $0, (%rsp)\n"
        "je 1f\n"
        /* ymm8-15's upper halves: xmm0-7 moved up */
        "vinsertf128 $1, %xmm0, %ymm8, %ymm8\n vinsertf128 $1, %xmm1, %ymm9, %ymm9\n"
        "vinsertf128 $1, %xmm2, %ymm10, %ymm10\n vinsertf128 $1, %xmm3, %ymm11, %ymm11\n"
        "vinsertf128 $1, %xmm4, %ymm12, %ymm12\n vinsertf128 $1, %xmm5, %ymm13, %ymm13\n"
        "vinsertf128 $1, %xmm6, %ymm14, %ymm14\n vinsertf128 $1, %xmm7, %ymm15, %ymm15\n"
        "1:\n"
        "movq %rsp, regs_loop_sp(%rip)\n"
        "movq $0x5555, -120(%rsp)\n" /* deep in the red zone */
        "std\n"
        "clc\n"
        "regs_loop_top:\n"
        "adcq %rbx, %rax\n adcq %rdx, %rbx\n adcq %rsi, %rdx\n adcq %rdi, %rsi\n"
        "adcq %rbp, %rdi\n adcq %r8, %rbp\n adcq %r9, %r8\n adcq %r10, %r9\n"
        "adcq %r11, %r10\n adcq %r12, %r11\n adcq %r13, %r12\n adcq %r14, %r13\n"
        "adcq %r15, %r14\n adcq %rax, %r15\n"
        "paddq %xmm1, %xmm0\n paddq %xmm2, %xmm1\n paddq %xmm3, %xmm2\n paddq %xmm4, %xmm3\n"
        "paddq %xmm5, %xmm4\n paddq %xmm6, %xmm5\n paddq %xmm7, %xmm6\n paddq %xmm0, %xmm7\n"
        "pxor %xmm8, %xmm9\n pxor %xmm9, %xmm10\n pxor %xmm10, %xmm11\n pxor %xmm11, %xmm12\n"
        "pxor %xmm12, %xmm13\n pxor %xmm13, %xmm14\n pxor %xmm14, %xmm15\n"
        "movq -120(%rsp), %r8\n" /* the red zone's word goes through r8 ... */
        "leaq 1(%r8), %r8\n"     /* (lea: the carry stays) */
        "movq %r8, -120(%rsp)\n"
        "adcq %r9, %r8\n"
        "decq %rcx\n" /* dec keeps the carry: it crosses the back edge */
        "jnz regs_loop_top\n"
        "regs_loop_end:\n"
        "pushfq\n"
        "popq %rcx\n"
        "cld\n"
        "andq $0x400, %rcx\n" /* DF */
        "pushq %rcx\n"
        "movq 16(%rsp), %rcx\n" /* out */
        "popq 320(%rcx)\n"
        "movq %rax, 0(%rcx)\n movq %rbx, 8(%rcx)\n movq %rdx, 16(%rcx)\n movq %rsi, 24(%rcx)\n"
        "movq %rdi, 32(%rcx)\n movq %rbp, 40(%rcx)\n movq %r8, 48(%rcx)\n movq %r9, 56(%rcx)\n"
        "movq %r10, 64(%rcx)\n movq %r11, 72(%rcx)\n movq %r12, 80(%rcx)\n movq %r13, 88(%rcx)\n"
        "movq %r14, 96(%rcx)\n movq %r15, 104(%rcx)\n movq $0, 112(%rcx)\n"
        "movq %xmm0, 120(%rcx)\n movq %xmm1, 128(%rcx)\n movq %xmm2, 136(%rcx)\n"
        "movq %xmm3, 144(%rcx)\n movq %xmm4, 152(%rcx)\n movq %xmm5, 160(%rcx)\n"
        "movq %xmm6, 168(%rcx)\n movq %xmm7, 176(%rcx)\n movq %xmm8, 184(%rcx)\n"
        "movq %xmm9, 192(%rcx)\n movq %xmm10, 200(%rcx)\n movq %xmm11, 208(%rcx)\n"
        "movq %xmm12, 216(%rcx)\n movq %xmm13, 224(%rcx)\n movq %xmm14, 232(%rcx)\n"
        "movq %xmm15, 240(%rcx)\n"
        "movq -120(%rsp), %rax\n movq %rax, 312(%rcx)\n"
        "cmpq $0, (%rsp)\n"
        "je 2f\n"
        "vextractf128 $1, %ymm8, %xmm0\n movq %xmm0, 248(%rcx)\n"
        "vextractf128 $1, %ymm9, %xmm0\n movq %xmm0, 256(%rcx)\n"
        "vextractf128 $1, %ymm10, %xmm0\n movq %xmm0, 264(%rcx)\n"
        "vextractf128 $1, %ymm11, %xmm0\n movq %xmm0, 272(%rcx)\n"
        "vextractf128 $1, %ymm12, %xmm0\n movq %xmm0, 280(%rcx)\n"
        "vextractf128 $1, %ymm13, %xmm0\n movq %xmm0, 288(%rcx)\n"
        "vextractf128 $1, %ymm14, %xmm0\n movq %xmm0, 296(%rcx)\n"
        "vextractf128 $1, %ymm15, %xmm0\n movq %xmm0, 304(%rcx)\n"
        "vzeroupper\n"
        "2:\n"
        "popq %rdx\n popq %rsi\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbp\n popq %rbx\n"
        "ret\n"
        ".size regs_loop, .-regs_loop\n");

static const char *const out_name[N_OUT] = {
    "rax",   "rbx",   "rdx",   "rsi",   "rdi",   "rbp",   "r8",    "r9",    "r10",   "r11",
    "r12",   "r13",   "r14",   "r15",   "-",     "xmm0",  "xmm1",  "xmm2",  "xmm3",  "xmm4",
    "xmm5",  "xmm6",  "xmm7",  "xmm8",  "xmm9",  "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
    "xmm15", "ymm8h", "ymm9h", "ymm10h", "ymm11h", "ymm12h", "ymm13h", "ymm14h", "ymm15h",
    "redzone", "DF"};

static long calls, in_loop, bad_sp;
static int have_avx;
static char scratch_a[4096], scratch_b[4096];
static volatile double fp_sink;

static void handler(int set, void *address, long long vector, void *context)
{
    ucontext_t *uc = context;
    (void)set;
    (void)address;
    (void)vector;
    calls++;
    if (uc) {
        /* (interrupts also come in PAPI_start's return and PAPI_stop) */
        uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        if (pc >= (uintptr_t)regs_loop_top && pc <= (uintptr_t)regs_loop_end) {
            in_loop++;
            if ((uint64_t)uc->uc_mcontext.gregs[REG_RSP] != regs_loop_sp)
                bad_sp++;
        }
    }
    /* what a handler may do: clobber every register the ABI lets a
     * function clobber (AVX code ends in vzeroupper), call string functions
     * (they need the direction flag clear), compute in floating point */
    __asm__ volatile("xorl %%eax, %%eax\n xorl %%ecx, %%ecx\n xorl %%edx, %%edx\n"
                     "xorl %%esi, %%esi\n xorl %%edi, %%edi\n xorl %%r8d, %%r8d\n"
                     "xorl %%r9d, %%r9d\n xorl %%r10d, %%r10d\n xorl %%r11d, %%r11d\n"
                     "pxor %%xmm0, %%xmm0\n pxor %%xmm1, %%xmm1\n pxor %%xmm2, %%xmm2\n"
                     "pxor %%xmm3, %%xmm3\n pxor %%xmm4, %%xmm4\n pxor %%xmm5, %%xmm5\n"
                     "pxor %%xmm6, %%xmm6\n pxor %%xmm7, %%xmm7\n pxor %%xmm8, %%xmm8\n"
                     "pxor %%xmm9, %%xmm9\n pxor %%xmm10, %%xmm10\n pxor %%xmm11, %%xmm11\n"
                     "pxor %%xmm12, %%xmm12\n pxor %%xmm13, %%xmm13\n pxor %%xmm14, %%xmm14\n"
                     "pxor %%xmm15, %%xmm15\n"
                     "cmpl $0, %0\n je 1f\n vzeroupper\n 1:\n"
                     :
                     : "m"(have_avx)
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0",
                       "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc", "memory");
    memset(scratch_a, (int)(calls & 0xff), sizeof scratch_a);
    memcpy(scratch_b, scratch_a, sizeof scratch_b);
    fp_sink = fp_sink * 0.5 + (double)scratch_b[17];
}

static int run(int threshold, uint64_t n, uint64_t *out, int avx, long long *count)
{
    int set = PAPI_NULL, rc;
    memset(out, 0, N_OUT * sizeof *out);
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK ||
        (rc = PAPI_add_event(set, PAPI_TOT_INS)) != PAPI_OK)
        return rc;
    if (threshold > 0 && (rc = PAPI_overflow(set, PAPI_TOT_INS, threshold, 0, handler)) != PAPI_OK)
        return rc;
    if ((rc = PAPI_start(set)) != PAPI_OK)
        return rc;
    regs_loop(n, out, avx);
    if ((rc = PAPI_stop(set, count)) != PAPI_OK)
        return rc;
    if (threshold > 0)
        (void)PAPI_overflow(set, PAPI_TOT_INS, 0, 0, handler);
    (void)PAPI_cleanup_eventset(set);
    (void)PAPI_destroy_eventset(&set);
    return PAPI_OK;
}

int main(void)
{
    static const int thresholds[] = {1, 2, 3, 7, 100};
    const uint64_t n = 20000;
    uint64_t want[N_OUT], got[N_OUT];
    long long count0, count;
    int avx = have_avx = __builtin_cpu_supports("avx"), failures = 0, rc;
    size_t i, k;
    const char *upcall = getenv("HPM_OVERFLOW_UPCALL");

    if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init: %s\n", PAPI_strerror(rc));
        return 1;
    }
    /* armed, never reached: the library takes the same path (twice: the
     * first run binds the library's functions lazily) */
    if ((rc = run(1 << 30, n, want, avx, &count0)) != PAPI_OK ||
        (rc = run(1 << 30, n, want, avx, &count0)) != PAPI_OK) {
        fprintf(stderr, "uninterrupted run: %s\n", PAPI_strerror(rc));
        return 1;
    }
    if (count0 == 0) {
        printf("SKIP: not running under the virtual PMU (hpm run)\n");
        return 77;
    }
    if (want[40] == 0) {
        fprintf(stderr, "the loop lost its direction flag uninterrupted\n");
        return 1;
    }
    printf("delivery: %s; AVX: %s\n", upcall && strcmp(upcall, "0") == 0 ? "signal" : "upcall",
           avx ? "yes" : "no");
    for (k = 0; k < sizeof thresholds / sizeof thresholds[0]; k++) {
        long expect;
        calls = in_loop = bad_sp = 0;
        if ((rc = run(thresholds[k], n, got, avx, &count)) != PAPI_OK) {
            fprintf(stderr, "threshold %d: %s\n", thresholds[k], PAPI_strerror(rc));
            return 1;
        }
        expect = (long)(count / thresholds[k]);
        printf("threshold %d: %ld handler calls, count %lld\n", thresholds[k], calls, count);
        if (count != count0 || calls != expect) {
            fprintf(stderr, "threshold %d: count %lld (uninterrupted %lld), %ld calls (want %ld)\n",
                    thresholds[k], count, count0, calls, expect);
            failures++;
        }
        for (i = 0; i <= 40; i++)
            if (got[i] != want[i]) {
                fprintf(stderr, "threshold %d: %s is %#llx, uninterrupted %#llx\n", thresholds[k],
                        out_name[i], (unsigned long long)got[i], (unsigned long long)want[i]);
                failures++;
            }
        if (in_loop < calls / 2 || bad_sp) {
            fprintf(stderr, "threshold %d: %ld of %ld contexts in the loop, %ld with another SP\n",
                    thresholds[k], in_loop, calls, bad_sp);
            failures++;
        }
    }
    if (failures) {
        fprintf(stderr, "papi_overflow_regs: %d failures\n", failures);
        return 1;
    }
    printf("papi_overflow_regs: ok\n");
    return 0;
}
