/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the card-daemon client against a peer that answers anything (frames of any
 * length, JSON of any shape, wrong ids, huge values, invalid UTF-8, a stream cut short). Every
 * call must return a status with a message, never crash, hang or read out of bounds. */
#include "npukit/kt_remote.h"
#include "peer_fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char addr[32];
    peer p;
    peer_start(&p, data, size, addr, sizeof addr);
    kt_daemon *d;
    kt_transport t;
    kt_remote_opts o = {200};
    if (kt_daemon_connect(addr, &o, &d, &t) == NPK_OK) {
        uint64_t v, lease, token;
        uint8_t block[256];
        char st[256];
        kt_read64(&t, 0x10000010, &v);
        kt_write64(&t, 0x10000018, 1);
        kt_read_block(&t, 1ull << 40, block, sizeof block);
        kt_daemon_claim(d, 0, 0, 4096, &lease);
        kt_daemon_run_begin(d, 1, "ship", &token);
        kt_daemon_status(d, st, sizeof st);
        kt_transport_close(&t);
    }
    npk_clear_error();
    peer_end(&p);
    return 0;
}
