/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dl_prog.c - dl_prog LIB1 FN1 LIB2 FN2: dlopens LIB1, calls FN1, dlcloses
 * it, then the same with LIB2 and FN2, both calls from one call site. The
 * loader maps LIB2 where LIB1 was: a profile must still credit each call
 * to its own library. Prints each function's address ("FN at ADDR").
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int i;
    if (argc != 5) {
        fprintf(stderr, "usage: dl_prog LIB1 FN1 LIB2 FN2\n");
        return 2;
    }
    for (i = 0; i < 2; i++) {
        void *h = dlopen(argv[1 + 2 * i], RTLD_NOW);
        int (*f)(void);
        if (!h) {
            fprintf(stderr, "dl_prog: %s\n", dlerror());
            return 1;
        }
        f = (int (*)(void))dlsym(h, argv[2 + 2 * i]);
        if (!f) {
            fprintf(stderr, "dl_prog: %s\n", dlerror());
            return 1;
        }
        printf("%s at %p\n", argv[2 + 2 * i], (void *)f);
        fflush(stdout);
        if (f() != 0) /* the one call site of both */
            return 1;
        dlclose(h);
    }
    return 0;
}
