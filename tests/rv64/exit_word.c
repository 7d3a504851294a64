/* SPDX-License-Identifier: MIT */
/* Exits with the 64-bit word its stdin spells in hex (empty stdin: 0), so a test can choose the
 * exit word `npukit kt rv64 run` turns into its exit status. */
#include "rt.h"

int main(void)
{
    uint64_t word = 0;
    int c;
    while ((c = rt_getc()) >= 0) {
        unsigned digit = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                         : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                : 16;
        if (digit == 16) {
            rt_puts("exit_word: stdin is not hex\n");
            rt_exit(0xbad);
        }
        word = word << 4 | digit;
    }
    rt_exit(word);
}
