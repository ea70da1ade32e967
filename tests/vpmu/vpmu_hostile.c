/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_hostile - client requests whose pointers look valid to the address
 * space manager but fault when touched: the pages of a MAP_SHARED mapping
 * that lie past the end of its file raise SIGBUS. Every request must return
 * HPM_VPMU_EFAULT and the tool must go on counting (before the fix the tool
 * died with "Valgrind received a signal 7 (SIGBUS)" and every count was
 * lost). Also the unit-number range of UPC_READ, which must match
 * UPC_WRITE's, and the `upc_writes` record an accepted write leaves.
 */
#define _GNU_SOURCE /* mkstemp, ftruncate */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vpmu_test.h"

#define REG_START_STOP 0x900

int main(void)
{
    char path[] = "/tmp/hpm-vpmu-hostile.XXXXXX";
    long page = sysconf(_SC_PAGESIZE);
    uint64_t v = 0;
    char *m, *beyond;
    int fd;

    vpmu_test_require_tool();
    fd = mkstemp(path);
    VPMU_EXPECT(fd >= 0, "mkstemp");
    unlink(path);
    /* one page of file, two pages of mapping: the second page is "valid"
     * memory to Valgrind and SIGBUS to anyone who touches it */
    VPMU_EXPECT(ftruncate(fd, page) == 0, "ftruncate");
    m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    VPMU_EXPECT(m != MAP_FAILED, "mmap");
    beyond = m + page;

    VPMU_EXPECT(HPM_VPMU_READ(beyond, 10) == HPM_VPMU_EFAULT, "READ past EOF");
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN(beyond) == HPM_VPMU_EFAULT, "REGION_BEGIN past EOF");
    VPMU_EXPECT(HPM_VPMU_REGION_END(beyond) == HPM_VPMU_EFAULT, "REGION_END past EOF");
    VPMU_EXPECT(HPM_VPMU_READ_EVENTS(beyond, 4, HPM_VPMU_SCOPE_NODE) == HPM_VPMU_EFAULT,
                "READ_EVENTS past EOF");
    VPMU_EXPECT(HPM_VPMU_READ_KINDS(beyond, 4) == HPM_VPMU_EFAULT, "READ_KINDS past EOF");
    VPMU_EXPECT(HPM_VPMU_EVENTS(beyond, 4) == HPM_VPMU_EFAULT, "EVENTS past EOF");
    VPMU_EXPECT(HPM_VPMU_SELECT(beyond, 4) == HPM_VPMU_EFAULT, "SELECT past EOF");
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0, REG_START_STOP, beyond) == HPM_VPMU_EFAULT,
                "UPC_READ into past EOF");
    VPMU_EXPECT(HPM_VPMU_MACHINE(beyond, HPM_VPMU_MACHINE(NULL, 0)) == HPM_VPMU_EFAULT,
                "MACHINE past EOF");
    VPMU_EXPECT(HPM_VPMU_CLOCK_SYNC(beyond) == HPM_VPMU_EFAULT, "CLOCK_SYNC past EOF");
    VPMU_EXPECT(HPM_VPMU_CLOCK_SYNC(beyond - 16) == HPM_VPMU_EFAULT, "CLOCK_SYNC into past EOF");
    VPMU_EXPECT(HPM_VPMU_CLOCK_SYNC(NULL) == HPM_VPMU_EFAULT, "CLOCK_SYNC NULL");
    /* a name that starts in the good page and runs into the bad one */
    for (long i = 0; i < page; i++)
        m[i] = 'x';
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN(beyond - 8) == HPM_VPMU_EFAULT, "name into past EOF");

    /* still counting, and the good page still works */
    VPMU_EXPECT(HPM_VPMU_READ(m, 10) == 10, "READ in the file's page");
    vpmu_test_scalar_adds(1000);

    /* Reads are answered inside the translated code when their buffer is
     * anonymous memory (vpmu_fast_request): one that is read-only, one
     * that ends in an unmapped page, a stack buffer, all as the
     * scheduler's path answers them. */
    {
        char *ro = mmap(NULL, 2 * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        uint64_t kinds[4];
        VPMU_EXPECT(ro != MAP_FAILED, "mmap anonymous");
        VPMU_EXPECT(HPM_VPMU_READ(ro, 10) == HPM_VPMU_EFAULT, "READ into a read-only page");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(ro, 4) == HPM_VPMU_EFAULT, "READ_KINDS read-only");
        VPMU_EXPECT(HPM_VPMU_CLOCK_SYNC(ro) == HPM_VPMU_EFAULT, "CLOCK_SYNC read-only");
        VPMU_EXPECT(mprotect(ro, (size_t)page, PROT_READ | PROT_WRITE) == 0, "mprotect");
        VPMU_EXPECT(munmap(ro + page, (size_t)page) == 0, "munmap the second page");
        VPMU_EXPECT(HPM_VPMU_READ(ro + page - 16, 10) == HPM_VPMU_EFAULT,
                    "READ running into an unmapped page");
        VPMU_EXPECT(HPM_VPMU_READ(ro + page - 16, 2) == 2, "READ at a page's end");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(kinds, 4) == 4 && kinds[0] > 0, "READ_KINDS on the stack");
        munmap(ro, (size_t)page);
    }

    /* a mapping read into, then protected or unmapped: the next read into
     * it is refused (the tool's fast path keeps the mappings it checked
     * only until the next system call) */
    {
        char *rw = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
        VPMU_EXPECT(rw != MAP_FAILED, "mmap anonymous");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(rw, 4) == 4, "READ_KINDS into a fresh mapping");
        VPMU_EXPECT(mprotect(rw, (size_t)page, PROT_READ) == 0, "mprotect read-only");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(rw, 4) == HPM_VPMU_EFAULT, "READ_KINDS after mprotect");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(rw + page, 4) == 4, "READ_KINDS into its other page");
        VPMU_EXPECT(munmap(rw + page, (size_t)page) == 0, "munmap");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(rw + page, 4) == HPM_VPMU_EFAULT,
                    "READ_KINDS after munmap");
        munmap(rw, (size_t)page);
    }

    /* READ_SEL: every buffer checked, every kind checked, before anything
     * is written; a good one reads what READ_KINDS reads */
    {
        uint32_t sel[2] = {0, 1}, bad_kind[2] = {0, 1u << 20};
        uint64_t base[2] = {5, 7}, out[2] = {11, 13}, kinds[2];
        char *ro = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        VPMU_EXPECT(ro != MAP_FAILED, "mmap anonymous");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(beyond, sel, base, 2, HPM_VPMU_SEL_DIFF) == HPM_VPMU_EFAULT,
                    "READ_SEL values past EOF");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, beyond, base, 2, HPM_VPMU_SEL_DIFF) == HPM_VPMU_EFAULT,
                    "READ_SEL kinds past EOF");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, sel, beyond, 2, HPM_VPMU_SEL_BASE) == HPM_VPMU_EFAULT,
                    "READ_SEL bases past EOF");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, sel, ro, 2, HPM_VPMU_SEL_BASE) == HPM_VPMU_EFAULT,
                    "READ_SEL bases read-only");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(ro, sel, base, 2, HPM_VPMU_SEL_DIFF) == HPM_VPMU_EFAULT,
                    "READ_SEL values read-only");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(NULL, sel, base, 2, HPM_VPMU_SEL_DIFF_BASE) ==
                        HPM_VPMU_EFAULT,
                    "READ_SEL values NULL");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, bad_kind, base, 2, HPM_VPMU_SEL_DIFF_BASE) ==
                        HPM_VPMU_EINVAL,
                    "READ_SEL a kind out of range");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, sel, base, HPM_VPMU_SEL_MAX + 1, HPM_VPMU_SEL_DIFF) ==
                        HPM_VPMU_EINVAL,
                    "READ_SEL too many kinds");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, sel, base, 2, HPM_VPMU_SEL_SUM + 1) == HPM_VPMU_EINVAL,
                    "READ_SEL bad op");
        VPMU_EXPECT(out[0] == 11 && out[1] == 13 && base[0] == 5 && base[1] == 7,
                    "READ_SEL refused: nothing written");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(NULL, sel, base, 2, HPM_VPMU_SEL_BASE) == 2,
                    "READ_SEL bases");
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(kinds, 2) == 2, "READ_KINDS beside READ_SEL");
        /* the bases are the counts at the first request, before READ_KINDS's
         * instructions: no more than READ_KINDS read, and close to it */
        VPMU_EXPECT(base[0] <= kinds[0] && kinds[0] - base[0] < 1000 && base[0] > 0,
                    "READ_SEL bases %llu against READ_KINDS %llu", (unsigned long long)base[0],
                    (unsigned long long)kinds[0]);
        VPMU_EXPECT(HPM_VPMU_READ_SEL(out, sel, base, 2, HPM_VPMU_SEL_DIFF) == 2 && out[0] > 0 &&
                        out[0] < 1000,
                    "READ_SEL differences %llu", (unsigned long long)out[0]);

        /* HPM_VPMU_SEL_SUM: every term, and both buffers as far as the
         * terms reach, checked before anything is written; a good one
         * sums with its signs, and a sum without a term is 0 */
        uint32_t sum[4] = {HPM_VPMU_SUM_TERM(0, 0, 0, 1), HPM_VPMU_SUM_TERM(0, 0, 0, -1),
                           HPM_VPMU_SUM_TERM(0, 1, 2, 3), HPM_VPMU_SUM_TERM(1, 1, 2, 0)};
        uint32_t far_base[2] = {HPM_VPMU_SUM_TERM(0, 0, 0, 1), HPM_VPMU_SUM_TERM(0, 2, 0, 1)};
        uint32_t far_out[2] = {HPM_VPMU_SUM_TERM(0, 0, 0, 1), HPM_VPMU_SUM_TERM(0, 0, 2, 1)};
        uint32_t bad_sum_kind[2] = {HPM_VPMU_SUM_TERM(0, 0, 0, 1),
                                    HPM_VPMU_SUM_TERM(255, 0, 0, 1)};
        uint64_t sums[4] = {11, 13, 17, 19}, b3[2];
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, bad_sum_kind, b3, 2, HPM_VPMU_SEL_SUM) ==
                        HPM_VPMU_EINVAL,
                    "READ_SEL a sum's kind out of range");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, far_base, b3, 2, HPM_VPMU_SEL_SUM) == HPM_VPMU_EINVAL,
                    "READ_SEL a sum's base past n");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, far_out, b3, 2, HPM_VPMU_SEL_SUM) == HPM_VPMU_EINVAL,
                    "READ_SEL a sum past n");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(beyond, sum, base, 4, HPM_VPMU_SEL_SUM) == HPM_VPMU_EFAULT,
                    "READ_SEL sums past EOF");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(ro, sum, base, 4, HPM_VPMU_SEL_SUM) == HPM_VPMU_EFAULT,
                    "READ_SEL sums read-only");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, sum, beyond, 4, HPM_VPMU_SEL_SUM) == HPM_VPMU_EFAULT,
                    "READ_SEL sums' bases past EOF");
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, beyond, base, 4, HPM_VPMU_SEL_SUM) == HPM_VPMU_EFAULT,
                    "READ_SEL sums' terms past EOF");
        VPMU_EXPECT(sums[0] == 11 && sums[1] == 13 && sums[2] == 17 && sums[3] == 19,
                    "READ_SEL sums refused: nothing written");
        /* bases read-only are enough for a sum (the library's are its own) */
        b3[0] = b3[1] = base[0];
        VPMU_EXPECT(HPM_VPMU_READ_SEL(sums, sum, b3, 4, HPM_VPMU_SEL_SUM) == 4,
                    "READ_SEL sums");
        VPMU_EXPECT(sums[0] == 0 && sums[1] == 0 && sums[2] % 3 == 0 && sums[2] / 3 > out[0] &&
                        sums[2] / 3 < out[0] + 1000 && sums[3] == 19,
                    "READ_SEL sums %llu %llu %llu %llu (the difference read before %llu)",
                    (unsigned long long)sums[0], (unsigned long long)sums[1],
                    (unsigned long long)sums[2], (unsigned long long)sums[3],
                    (unsigned long long)out[0]);
        munmap(ro, (size_t)page);
    }

    /* an overflow upcall entry that is not code, a mask word that is not
     * readable: refused, and nothing armed; entry 0 goes back to signals */
    {
        static int mask_word;
        VPMU_EXPECT(HPM_VPMU_OVERFLOW_UPCALL((uintptr_t)beyond, &mask_word) == HPM_VPMU_EFAULT,
                    "OVERFLOW_UPCALL into a file's missing page");
        VPMU_EXPECT(HPM_VPMU_OVERFLOW_UPCALL((uintptr_t)&mask_word, &mask_word) ==
                        HPM_VPMU_EFAULT,
                    "OVERFLOW_UPCALL to data");
        VPMU_EXPECT(HPM_VPMU_OVERFLOW_UPCALL((uintptr_t)&main, (int *)beyond) ==
                        HPM_VPMU_EFAULT,
                    "OVERFLOW_UPCALL with a mask past EOF");
        VPMU_EXPECT(HPM_VPMU_OVERFLOW_UPCALL(0, NULL) == HPM_VPMU_OK, "OVERFLOW_UPCALL off");
    }

    /* unit numbers are 32 bits wide for reads as for writes */
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0x100000000ull, REG_START_STOP, &v) == HPM_VPMU_EINVAL,
                "UPC_READ unit 2^32");
    VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0x100000000ull, REG_START_STOP, 1) == HPM_VPMU_EINVAL,
                "UPC_WRITE unit 2^32");
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0, REG_START_STOP, &v) == 0 && v == 1, "UPC_READ unit 0");
    /* an accepted write: the output says the program reprogrammed the unit */
    VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0, REG_START_STOP, 1) == 0, "UPC_WRITE start");
    munmap(m, 2 * (size_t)page);
    close(fd);
    return vpmu_test_done("vpmu_hostile");
}
