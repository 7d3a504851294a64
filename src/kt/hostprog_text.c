/* SPDX-License-Identifier: MIT */
/* The text form of a host control program, so a program can live in a file, be read back, and be
 * run on the host or in the engine by `npukit kt prog`. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostprog_out.h"
#include "npukit/kt_hostprog.h"

enum { MAX_TOKENS = 6, MAX_LINE = 1 << 16 };

/* The CLI's number rule: decimal, or hex with 0x; a leading zero is refused rather than read as
 * octal ("010" is neither 8 nor 10 by accident). */
#define NUMBER_RULE "numbers are decimal, or hex with 0x, without a leading zero"
static bool number(const char *tok, uint64_t *v)
{
    if (!tok || !isdigit((unsigned char)tok[0]))
        return false;
    bool hex = tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
    if (!hex && tok[0] == '0' && tok[1])
        return false;
    if (hex && !isxdigit((unsigned char)tok[2]))
        return false;
    char *end;
    errno = 0;
    *v = strtoull(hex ? tok + 2 : tok, &end, hex ? 16 : 10);
    return !*end && errno == 0;
}

static int hexval(int c)
{
    return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

static npk_status parse_setup(kt_hostprog *p, const char *origin, unsigned line,
                              const char *addr_tok, const char *hex)
{
    uint64_t addr;
    if (!number(addr_tok, &addr))
        return npk_fail(NPK_EPARSE, "%s:%u: SETUP address '%s' is not a number (" NUMBER_RULE ")",
                        origin, line, addr_tok ? addr_tok : "");
    size_t digits = hex ? strlen(hex) : 0;
    if (!digits || digits % 2)
        return npk_fail(NPK_EPARSE, "%s:%u: SETUP needs an even number of hex digits, got %zu",
                        origin, line, digits);
    uint8_t *bytes = malloc(digits / 2);
    if (!bytes)
        return npk_fail(NPK_ENOMEM, "%s:%u: out of memory", origin, line);
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = hexval((unsigned char)hex[2 * i]), lo = hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(bytes);
            return npk_fail(NPK_EPARSE, "%s:%u: SETUP byte %zu '%.2s' is not hex", origin, line, i,
                            hex + 2 * i);
        }
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    npk_status s = kt_hp_setup(p, addr, bytes, digits / 2);
    free(bytes);
    return s;
}

/* A refusal from the program builder (kt_hp_wr, _poll, _setup), placed at its line; this file's
 * own parse errors (NPK_EPARSE) carry the line already. */
static npk_status at_line(const char *origin, unsigned line, npk_status s)
{
    if (!s || s == NPK_EPARSE)
        return s;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", npk_last_error());
    return npk_fail(s, "%s:%u: %s", origin, line, msg);
}

static npk_status parse_line(kt_hostprog *p, const char *origin, unsigned line, char *text)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = 0;
    char *tok[MAX_TOKENS] = {0};
    unsigned n = 0;
    for (char *t = text; *t && n < MAX_TOKENS;) { /* split on blanks, in place */
        while (*t && isspace((unsigned char)*t))
            *t++ = 0;
        if (!*t)
            break;
        tok[n++] = t;
        while (*t && !isspace((unsigned char)*t))
            t++;
    }
    if (!n)
        return NPK_OK;
    /* Tokens each command takes at most (with its label); more is a typo, not a longer label. */
    static const struct {
        const char *name;
        unsigned max;
    } arity[] = {{"SETUP", 3}, {"WR", 4}, {"POLL", 5}, {"DONE", 2}};
    for (size_t i = 0; i < sizeof arity / sizeof arity[0]; i++)
        if (!strcmp(tok[0], arity[i].name) && n > arity[i].max)
            return npk_fail(NPK_EPARSE, "%s:%u: unexpected '%s' after %s (a label is one word)",
                            origin, line, tok[arity[i].max], tok[0]);
    uint64_t a, b, c;
    if (!strcmp(tok[0], "SETUP"))
        return at_line(origin, line, parse_setup(p, origin, line, tok[1], tok[2]));
    if (!strcmp(tok[0], "WR")) {
        if (n < 3 || !number(tok[1], &a) || !number(tok[2], &b))
            return npk_fail(NPK_EPARSE,
                            "%s:%u: expected 'WR <addr> <data> [label]' (" NUMBER_RULE ")", origin,
                            line);
        return at_line(origin, line, kt_hp_wr(p, a, b, n > 3 ? tok[3] : NULL));
    }
    if (!strcmp(tok[0], "POLL")) {
        if (n < 4 || !number(tok[1], &a) || !number(tok[2], &b) || !number(tok[3], &c))
            return npk_fail(NPK_EPARSE,
                            "%s:%u: expected 'POLL <addr> <want> <mask> [label]' (" NUMBER_RULE ")",
                            origin, line);
        return at_line(origin, line, kt_hp_poll(p, a, b, c, n > 4 ? tok[4] : NULL));
    }
    if (!strcmp(tok[0], "DONE")) {
        if (n < 2 || !number(tok[1], &a))
            return npk_fail(NPK_EPARSE, "%s:%u: expected 'DONE <code>' (" NUMBER_RULE ")", origin,
                            line);
        return at_line(origin, line, kt_hp_done(p, a));
    }
    return npk_fail(NPK_EPARSE, "%s:%u: unknown command '%s' (SETUP, WR, POLL, DONE)", origin, line,
                    tok[0]);
}

npk_status kt_hp_parse(const char *text, const char *origin, kt_hostprog *p)
{
    unsigned line = 0;
    const char *at = text;
    while (*at) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        line++;
        if (len >= MAX_LINE)
            return npk_fail(NPK_ELIMIT, "%s:%u: line of %zu characters (limit %u)", origin, line,
                            len, MAX_LINE - 1);
        char *copy = malloc(len + 1);
        if (!copy)
            return npk_fail(NPK_ENOMEM, "%s:%u: out of memory", origin, line);
        memcpy(copy, at, len);
        copy[len] = 0;
        npk_status s = parse_line(p, origin, line, copy);
        free(copy);
        if (s)
            return s;
        at += len + (nl ? 1 : 0);
    }
    return NPK_OK;
}

size_t kt_hp_to_text(const kt_hostprog *p, char *buf, size_t len)
{
    kt_hp_out o = kt_hp_out_start(buf, len);
    for (size_t i = 0; i < p->n_setup; i++) {
        kt_hp_outf(&o, "SETUP 0x%" PRIx64 " ", p->setup[i].addr);
        for (size_t b = 0; b < p->setup[i].len; b++)
            kt_hp_outf(&o, "%02x", p->setup[i].bytes[b]);
        kt_hp_outf(&o, "\n");
    }
    for (size_t i = 0; i < p->n_cmds; i++) {
        const kt_hp_cmd *c = &p->cmds[i];
        /* A label is one token in the text form. */
        char label[KT_HP_LABEL];
        snprintf(label, sizeof label, "%s", c->what);
        for (char *q = label; *q; q++)
            if (isspace((unsigned char)*q) || *q == '#')
                *q = '_';
        switch (c->op) {
        case KT_HP_WR:
            kt_hp_outf(&o, "WR 0x%" PRIx64 " 0x%" PRIx64 " %s\n", c->addr, c->data, label);
            break;
        case KT_HP_POLL:
            kt_hp_outf(&o, "POLL 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", c->addr, c->data,
                       c->mask, label);
            break;
        default: kt_hp_outf(&o, "DONE 0x%" PRIx64 "\n", c->data); break;
        }
    }
    return o.used;
}
