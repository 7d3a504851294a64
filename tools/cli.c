/* SPDX-License-Identifier: MIT */
/* Argument-parsing helpers shared by every subcommand. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npukit/status.h"

void cli_list(const cli_command *cmds, const char *indent, FILE *f)
{
    for (const cli_command *c = cmds; c->name; c++)
        fprintf(f, "%s%-10s %s\n", indent, c->name, c->help);
}

int cli_dispatch(const char *prefix, const cli_command *cmds, int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : NULL;
    if (name && (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help"))) {
        printf("usage: %s COMMAND [ARGS]   (%s COMMAND --help: its options)\n\ncommands:\n", prefix,
               prefix);
        cli_list(cmds, "  ", stdout);
        return 0;
    }
    if (name) {
        for (const cli_command *c = cmds; c->name; c++)
            if (!strcmp(c->name, name))
                return c->run(argc - 1, argv + 1);
        fprintf(stderr, "%s: unknown command '%s' (%s --help lists them)\n", prefix, name, prefix);
        return 2;
    }
    fprintf(stderr, "usage: %s COMMAND [ARGS]   (%s COMMAND --help: its options)\n\ncommands:\n",
            prefix, prefix);
    cli_list(cmds, "  ", stderr);
    return 2;
}

cli_num cli_number_scan(const char *text, size_t len, bool hex, uint64_t *out)
{
    uint64_t v = 0;
    if (!text || !len)
        return CLI_NUM_BAD;
    if (hex && len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        for (size_t i = 2; i < len; i++) {
            char c = text[i];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0)
                return CLI_NUM_BAD;
            if (v >> 60)
                return CLI_NUM_BIG;
            v = v << 4 | (uint64_t)d;
        }
        *out = v;
        return CLI_NUM_OK;
    }
    for (size_t i = 0; i < len; i++)
        if (text[i] < '0' || text[i] > '9')
            return CLI_NUM_BAD;
    if (len > 1 && text[0] == '0') /* C would read it as octal; refuse rather than guess */
        return CLI_NUM_LEADING_ZERO;
    for (size_t i = 0; i < len; i++) {
        uint64_t d = (uint64_t)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return CLI_NUM_BIG;
        v = v * 10 + d;
    }
    *out = v;
    return CLI_NUM_OK;
}

/* A limit as the user would write it: hex for the address-like options with big ranges. */
static void limit_text(uint64_t v, bool hex, char *buf, size_t len)
{
    snprintf(buf, len, hex && v > 0xffff ? "0x%" PRIx64 : "%" PRIu64, v);
}

static void range_text(uint64_t min, uint64_t max, bool hex, char *buf, size_t len)
{
    char lo[24], hi[24];
    limit_text(min, hex, lo, sizeof lo);
    limit_text(max, hex, hi, sizeof hi);
    snprintf(buf, len, "%s..%s", lo, hi);
}

bool cli_number(const char *cmd, const char *opt, const char *text, bool hex, uint64_t min,
                uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    cli_num r = cli_number_scan(text, text ? strlen(text) : 0, hex, &v);
    char range[64];
    range_text(min, max, hex, range, sizeof range);
    if (r == CLI_NUM_BAD)
        fprintf(stderr, "npukit %s: %s '%s' is not a %s\n", cmd, opt, text ? text : "",
                hex ? "number (decimal, or hex with 0x)" : "decimal number");
    else if (r == CLI_NUM_LEADING_ZERO)
        fprintf(stderr, "npukit %s: %s '%s': a decimal number has no leading zero%s\n", cmd, opt,
                text, hex ? " (hex takes 0x)" : "");
    else if (r == CLI_NUM_BIG || v < min || v > max)
        fprintf(stderr, "npukit %s: %s=%s is outside %s\n", cmd, opt, text, range);
    else {
        *out = v;
        return true;
    }
    return false;
}

static const cli_opt *find_row(const cli_spec *spec, const char *name)
{
    for (const cli_opt *const *t = spec->tables; t && *t; t++)
        for (const cli_opt *r = *t; r->name; r++)
            if (!strcmp(r->name, name))
                return r;
    return NULL;
}

static bool is_hex(cli_kind k) { return k == CLI_U32_HEX || k == CLI_U64_HEX; }

static bool apply(const cli_spec *spec, const cli_opt *r, const char *v)
{
    uint64_t x;
    switch (r->kind) {
    case CLI_STR: *(const char **)r->dest = v; return true;
    case CLI_CHOICE:
        for (int i = 0; r->choices[i]; i++)
            if (!strcmp(r->choices[i], v)) {
                *(int *)r->dest = i;
                return true;
            }
        fprintf(stderr, "npukit %s: %s '%s' is not one of", spec->cmd, r->name, v);
        for (int i = 0; r->choices[i]; i++)
            fprintf(stderr, "%s %s", i ? "," : "", r->choices[i]);
        fprintf(stderr, "\n");
        return false;
    case CLI_CUSTOM: return r->parse(r, v, spec->cmd);
    case CLI_FLAG:
    case CLI_INT:
    case CLI_UINT:
    case CLI_U32:
    case CLI_U64:
    case CLI_U32_HEX:
    case CLI_U64_HEX:
    default: break;
    }
    if (!cli_number(spec->cmd, r->name, v, is_hex(r->kind), r->min, r->max, &x))
        return false;
    switch (r->kind) {
    case CLI_INT: *(int *)r->dest = (int)x; break;
    case CLI_UINT: *(unsigned *)r->dest = (unsigned)x; break;
    case CLI_U32:
    case CLI_U32_HEX: *(uint32_t *)r->dest = (uint32_t)x; break;
    case CLI_FLAG:
    case CLI_U64:
    case CLI_U64_HEX:
    case CLI_STR:
    case CLI_CHOICE:
    case CLI_CUSTOM:
    default: *(uint64_t *)r->dest = x; break;
    }
    return true;
}

static bool is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }

int cli_parse(const cli_spec *spec, int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (is_help(argv[i])) {
            cli_help(spec, stdout);
            return 0;
        }
    int npos = 0;
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options && !strcmp(a, "--")) {
            options = false;
            continue;
        }
        if (!options || a[0] != '-' || !a[1]) {
            if (npos == spec->max_pos) {
                fprintf(stderr, "npukit %s: unexpected argument '%s' (usage: npukit %s %s)\n",
                        spec->cmd, a, spec->cmd, spec->synopsis);
                return 2;
            }
            spec->pos[npos++] = a;
            continue;
        }
        const cli_opt *r = find_row(spec, a);
        if (!r) {
            fprintf(stderr, "npukit %s: unknown option '%s' (npukit %s --help lists them)\n",
                    spec->cmd, a, spec->cmd);
            return 2;
        }
        if (r->given)
            *r->given = true;
        if (r->kind == CLI_FLAG) {
            *(bool *)r->dest = true;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "npukit %s: option %s needs a value (%s)\n", spec->cmd, a,
                    r->meta ? r->meta : "see --help");
            return 2;
        }
        if (!apply(spec, r, argv[++i]))
            return 2;
    }
    if (npos < spec->min_pos) {
        fprintf(stderr, "npukit %s: missing argument (usage: npukit %s %s)\n", spec->cmd, spec->cmd,
                spec->synopsis);
        return 2;
    }
    if (spec->n_pos)
        *spec->n_pos = npos;
    return -1;
}

void cli_help(const cli_spec *spec, FILE *f)
{
    fprintf(f, "usage: npukit %s %s\n", spec->cmd, spec->synopsis);
    if (spec->about)
        fprintf(f, "%s\n", spec->about);
    fprintf(f, "options:\n");
    for (const cli_opt *const *t = spec->tables; t && *t; t++)
        for (const cli_opt *r = *t; r->name; r++) {
            char left[96];
            int n = snprintf(left, sizeof left, "%s", r->name);
            if (r->kind == CLI_CHOICE && !r->meta)
                for (int i = 0; r->choices[i] && n > 0 && (size_t)n < sizeof left; i++)
                    n += snprintf(left + n, sizeof left - (size_t)n, "%c%s", i ? '|' : ' ',
                                  r->choices[i]);
            else if (r->kind != CLI_FLAG)
                snprintf(left + n, sizeof left - (size_t)n, " %s", r->meta ? r->meta : "V");
            fprintf(f, "  %-26s %s", left, r->help ? r->help : "");
            if (r->kind >= CLI_INT && r->kind <= CLI_U64_HEX) {
                char range[64];
                range_text(r->min, r->max, is_hex(r->kind), range, sizeof range);
                fprintf(f, " (%s)", range);
            }
            fprintf(f, "\n");
        }
    fprintf(f, "  %-26s %s\n", "-h, --help", "this text");
    if (spec->notes)
        fprintf(f, "%s", spec->notes);
}

int cli_lib_error(const char *what)
{
    fprintf(stderr, "npukit: %s: %s\n", what, npk_last_error());
    return 1;
}

char *cli_read_capped(FILE *f, size_t max, size_t *n)
{
    size_t cap = 0;
    char *buf = NULL;
    *n = 0;
    for (;;) {
        if (*n + 1 >= cap) { /* room for one more byte and the NUL */
            size_t ncap = cap ? 2 * cap : 64 * 1024;
            if (ncap > max + 2)
                ncap = max + 2;
            if (ncap <= cap) { /* one past the cap read: too large */
                buf[*n] = '\0';
                return buf;
            }
            char *g = realloc(buf, ncap);
            if (!g) {
                free(buf);
                return NULL;
            }
            buf = g;
            cap = ncap;
        }
        size_t got = fread(buf + *n, 1, cap - 1 - *n, f);
        *n += got;
        if (!got) {
            buf[*n] = '\0';
            return buf;
        }
    }
}

bool cli_parse_trace(const cli_opt *row, const char *v, const char *cmd)
{
    (void)row;
    if (!*v) {
        fprintf(stderr, "npukit %s: --trace needs a file name\n", cmd);
        return false;
    }
    /* Opened now, before any work: a file that cannot be written is a bad option, told in
     * the option's words at once, not found when the trace first opens (after the work). */
    int fd = open(v, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "npukit %s: --trace %s: %s\n", cmd, v, strerror(errno));
        return false;
    }
    close(fd);
    return setenv("NPUKIT_TRACE", v, 1) == 0;
}
