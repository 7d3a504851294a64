/* SPDX-License-Identifier: MIT */
/* A minimal test harness: CHECK macros count failures; check_done() prints the summary
 * line "N passed, N failed" and returns the exit status. */
#ifndef NPUKIT_TESTS_CHECK_H
#define NPUKIT_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (cond) {                                                                     \
            check_passed++;                                                             \
        } else {                                                                        \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_EQ(a, b)                                                                  \
    do {                                                                                \
        unsigned long long check_a_ = (unsigned long long)(a);                          \
        unsigned long long check_b_ = (unsigned long long)(b);                          \
        if (check_a_ == check_b_) {                                                     \
            check_passed++;                                                             \
        } else {                                                                        \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = 0x%llx, %s = 0x%llx\n",       \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_);                    \
        }                                                                               \
    } while (0)

#define CHECK_STR_HAS(hay, needle)                                                      \
    do {                                                                                \
        const char *check_h_ = (hay);                                                   \
        if (check_h_ && strstr(check_h_, (needle))) {                                   \
            check_passed++;                                                             \
        } else {                                                                        \
            check_failed++;                                                             \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__,  \
                    check_h_ ? check_h_ : "(null)", (needle));                          \
        }                                                                               \
    } while (0)

static inline int check_done(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
