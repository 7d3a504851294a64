/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the line-protocol client against a peer that answers anything (READY or
 * not, chatter, V/OK/E lines of any length, control bytes, lines cut short). Every call must
 * return a status with a message, never crash, hang or read out of bounds. */
#include "npukit/kt_remote.h"
#include "peer_fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char addr[32];
    peer p;
    peer_start(&p, data, size, addr, sizeof addr);
    kt_line *l;
    kt_transport t;
    kt_remote_opts o = {200};
    if (kt_line_connect(addr, &o, &l, &t) == NPK_OK) {
        uint64_t v;
        uint8_t block[4096], word[KT_BACKDOOR_WORD];
        char st[256];
        kt_read64(&t, 0x10000010, &v);
        kt_write64(&t, 0x10000018, 1);
        kt_read_block(&t, 1ull << 40, block, sizeof block);
        kt_line_status(l, st, sizeof st);
        kt_line_status_cycle(st, &v);
        kt_line_advance(l, 5);
        kt_line_backdoor_read(l, 0, 1, word);
        kt_transport_close(&t);
    }
    npk_clear_error();
    peer_end(&p);
    return 0;
}
