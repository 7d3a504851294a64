/* SPDX-License-Identifier: MIT */
/* Running a program on the RV64 complex through the load window: stop, stream, preload
 * stdin, boot, drain the console while polling HR_STATUS, collect the result.
 *
 * The scratchpad shares one write port with the core and the host wins silently, so nothing
 * here writes it unless the core is stopped: the first write of a run is HR_BOOT = 0. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/kt_rv64.h"
#include "npukit/kt_rv64_load.h"
#include "kt_rv64_request.h"
#include "common/measure.h"

static const char *const cause_names[4] = {"ecall", "ebreak", "illegal instruction",
                                           "access fault"};
const char *kt_rv64_cause_name(unsigned cause) { return cause_names[cause & 3]; }

void kt_rv64_result_free(kt_rv64_result *r)
{
    free(r->console);
    memset(r, 0, sizeof *r);
}

typedef struct lw {
    kt_transport *t;
    uint64_t base; /* the load window */
    bool request;  /* the last console byte was KT_RV64_REQ: the next one names a request */
    bool discard;  /* emptying what an earlier program left: no byte is acted on */
} lw;

static npk_status lw_write(const lw *w, uint32_t off, uint64_t v)
{
    return kt_write64(w->t, w->base + off, v);
}
static npk_status lw_read(const lw *w, uint32_t off, uint64_t *v)
{
    return kt_read64(w->t, w->base + off, v);
}

/* One memory's image: the bytes every segment in it puts there, and the covered word range. */
typedef struct region_image {
    uint8_t *bytes;
    uint32_t lo, hi; /* byte range touched, [lo, hi) */
} region_image;

static npk_status build(const kt_rv64_image *img, kt_rv64_region which, uint32_t size,
                        region_image *out)
{
    out->bytes = calloc(size, 1);
    out->lo = size;
    out->hi = 0;
    if (!out->bytes)
        return npk_fail(NPK_ENOMEM, "rv64 loader: no memory for a %" PRIu32 "-byte image", size);
    for (unsigned i = 0; i < img->n_seg; i++) {
        const kt_rv64_segment *s = &img->seg[i];
        if (s->region != which)
            continue;
        memcpy(out->bytes + s->offset, s->data, s->filesz); /* the rest up to memsz stays zero */
        if (s->offset < out->lo)
            out->lo = s->offset;
        if (s->offset + s->memsz > out->hi)
            out->hi = (uint32_t)(s->offset + s->memsz);
    }
    return NPK_OK;
}

/* LOAD_CTL, then one LOAD_DATA per word: 4 bytes into the instruction memory (low half), 8
 * into the scratchpad. */
static npk_status stream(const lw *w, const region_image *ri, unsigned region, unsigned word)
{
    if (ri->hi <= ri->lo)
        return NPK_OK;
    uint32_t lo = ri->lo & ~(word - 1), hi = (ri->hi + word - 1) & ~(word - 1);
    npk_status s = lw_write(w, KT_RV64_LW_LOAD_CTL, region | ((uint64_t)lo << 8));
    for (uint32_t a = lo; !s && a < hi; a += word) {
        uint64_t v = 0;
        memcpy(&v, ri->bytes + a, word); /* little-endian, as the core */
        s = lw_write(w, KT_RV64_LW_LOAD_DATA, v);
    }
    return s;
}

static npk_status load(const lw *w, const kt_rv64_image *img)
{
    kt_rv64_limits lim;
    kt_rv64_limits_default(&lim);
    region_image im = {0}, sp = {0};
    npk_status s = build(img, KT_RV64_IMEM, lim.imem_bytes, &im);
    if (!s)
        s = build(img, KT_RV64_SPAD, lim.spad_bytes, &sp);
    if (!s)
        s = stream(w, &im, 0, 4);
    if (!s)
        s = stream(w, &sp, 1, 8);
    free(im.bytes);
    free(sp.bytes);
    return s;
}

/* A request the program made on the console: the HR_DBELL write it names. */
static npk_status request(const lw *w, uint8_t code, kt_rv64_result *r)
{
    switch (code) {
    case KT_RV64_REQ_RING: r->rings++; return lw_write(w, KT_RV64_HR_DBELL, 1);
    case KT_RV64_REQ_CLEAR: r->clears++; return lw_write(w, KT_RV64_HR_DBELL, 0);
    default:
        return npk_fail(NPK_EPROTO,
                        "the program made console request 0x%02x; known: 'R' (0x%02x, ring the "
                        "doorbell) and 'C' (0x%02x, clear it)",
                        code, KT_RV64_REQ_RING, KT_RV64_REQ_CLEAR);
    }
}

/* Move every console byte waiting in the FIFO into the result, acting on requests. */
static npk_status drain(lw *w, kt_rv64_result *r, size_t *cap)
{
    for (;;) {
        uint64_t v;
        npk_status s = lw_read(w, KT_RV64_LW_CONS, &v);
        if (s || !(v & KT_RV64_CONS_VALID))
            return s;
        if ((s = lw_write(w, KT_RV64_LW_CONS, 0))) /* a write pops */
            return s;
        uint8_t byte = (uint8_t)v;
        if (w->discard) /* an earlier program's bytes, requests included, are not this run's */
            continue;
        if (w->request || byte == KT_RV64_REQ) {
            w->request = !w->request;
            if (!w->request && (s = request(w, byte, r)))
                return s;
            continue;
        }
        if (r->console_len + 2 > *cap) {
            size_t ncap = *cap ? 2 * *cap : 1024;
            char *n = realloc(r->console, ncap);
            if (!n)
                return npk_fail(NPK_ENOMEM, "rv64 loader: console of %zu bytes", r->console_len);
            r->console = n;
            *cap = ncap;
        }
        r->console[r->console_len++] = (char)byte;
        r->console[r->console_len] = '\0';
    }
}

static npk_status collect(const lw *w, kt_rv64_result *r)
{
    uint64_t st;
    npk_status s = lw_read(w, KT_RV64_HR_STATUS, &st);
    if (!s)
        s = lw_read(w, KT_RV64_HR_EXIT, &r->exit_word);
    if (!s)
        s = lw_read(w, KT_RV64_HR_HALTPC, &r->halt_pc);
    if (!s)
        s = lw_read(w, KT_RV64_HR_CYCLES, &r->cycles);
    if (!s)
        s = lw_read(w, KT_RV64_HR_RETIRED, &r->retired);
    r->exited = st & KT_RV64_STATUS_EXITED;
    r->halted = st & KT_RV64_STATUS_HALTED;
    r->cause = (unsigned)(st & KT_RV64_STATUS_CAUSE);
    return s;
}

npk_status kt_rv64_run(kt_transport *t, uint64_t node_base, const kt_rv64_image *img,
                       const kt_rv64_run_opts *opt, kt_rv64_result *r)
{
    memset(r, 0, sizeof *r);
    kt_rv64_run_opts def = {0};
    if (!opt)
        opt = &def;
    if (opt->stdin_len > KT_RV64_STDIN_DEPTH)
        return npk_fail(NPK_ELIMIT, "stdin: %zu bytes, the complex's queue holds %u",
                        opt->stdin_len, KT_RV64_STDIN_DEPTH);
    lw w = {t, node_base + KT_RV64_LOAD_WINDOW, false, true};
    size_t cap = 0;
    /* Stop the core first: only then may the scratchpad be written. The stop also leaves an
     * earlier runaway program behind. Then empty the console of whatever it left. */
    npk_status s = lw_write(&w, KT_RV64_HR_BOOT, 0);
    if (!s)
        s = drain(&w, r, &cap);
    r->console_len = 0;
    r->rings = r->clears = 0;
    w.request = w.discard = false;
    if (r->console)
        r->console[0] = '\0';
    /* A doorbell an earlier program left raised is not this program's. */
    if (!s)
        s = lw_write(&w, KT_RV64_HR_DBELL, 0);
    if (!s)
        s = load(&w, img);
    for (size_t i = 0; !s && i < opt->stdin_len; i++)
        s = lw_write(&w, KT_RV64_LW_STDIN, (uint8_t)opt->stdin_text[i]);
    if (!s)
        s = lw_write(&w, KT_RV64_HR_PC, 0); /* stored, unused: the core starts at 0 */
    if (!s)
        s = lw_write(&w, KT_RV64_HR_BOOT, 1);
    double deadline = npk_now_ms() + (opt->timeout_ms ? opt->timeout_ms : 10000);
    uint64_t st = 0;
    while (!s) {
        if ((s = drain(&w, r, &cap)) || (s = lw_read(&w, KT_RV64_HR_STATUS, &st)))
            break;
        if (st & (KT_RV64_STATUS_EXITED | KT_RV64_STATUS_HALTED))
            break;
        if (npk_now_ms() > deadline) {
            r->timed_out = true;
            break;
        }
    }
    if (!s)
        s = drain(&w, r, &cap);
    if (s)
        return s;
    if (r->timed_out) {
        s = lw_write(&w, KT_RV64_HR_BOOT, 0);
        if (!s)
            s = collect(&w, r);
        if (s)
            return s;
        return npk_fail(NPK_ETIMEDOUT,
                        "the program neither exited nor halted within %" PRIu32 " ms (%" PRIu64
                        " instructions retired in %" PRIu64 " cycles); the core was stopped",
                        opt->timeout_ms ? opt->timeout_ms : 10000, r->retired, r->cycles);
    }
    return collect(&w, r);
}
