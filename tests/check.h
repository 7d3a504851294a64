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

/* A floating operand (either side) is compared as a double: the integer form would truncate a
 * fraction to 0 and is undefined for a negative value. */
#define check_is_float_(x) _Generic((x), float: 1, double: 1, long double: 1, default: 0)

#define CHECK_EQ(a, b)                                                                  \
    do {                                                                                \
        if (check_is_float_(a) || check_is_float_(b)) {                                 \
            const double check_x_ = (double)(a), check_y_ = (double)(b);                \
            if (check_x_ == check_y_) {                                                 \
                check_passed++;                                                         \
            } else {                                                                    \
                check_failed++;                                                         \
                fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %a, %s = %a\n", __FILE__, \
                        __LINE__, #a, check_x_, #b, check_y_);                          \
            }                                                                           \
            break;                                                                      \
        }                                                                               \
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
