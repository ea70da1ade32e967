/* SPDX-License-Identifier: BSD-3-Clause */
/* The assertion macros the unit tests share: count failures, report file:line. */
#ifndef HPM_CHECK_H
#define HPM_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)
/* CHECK with a message (printf format and arguments) saying what was seen */
#define CHECKF(cond, ...)                                                            \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            failures++;                                                              \
        }                                                                            \
    } while (0)
#define CHECK_EQ(a, b)                                                                 \
    do {                                                                               \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_) {                                                                \
            fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__,      \
                    __LINE__, #a, a_, #b, b_);                                         \
            failures++;                                                                \
        }                                                                              \
    } while (0)
#define CHECK_STR(a, b)                                                                  \
    do {                                                                                 \
        const char *a_ = (a), *b_ = (b);                                                 \
        if (!a_ || strcmp(a_, b_) != 0) {                                                \
            fprintf(stderr, "%s:%d: got \"%s\"\n   expected \"%s\"\n", __FILE__, __LINE__, \
                    a_ ? a_ : "(null)", b_);                                             \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

#endif
