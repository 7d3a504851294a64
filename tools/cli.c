/* Argument-parsing helpers shared by every subcommand. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/status.h"

int cli_dispatch(const char *prefix, const cli_command *cmds, int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : NULL;
    if (name && (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")))
        name = NULL;
    if (name) {
        for (const cli_command *c = cmds; c->name; c++)
            if (!strcmp(c->name, name))
                return c->run(argc - 1, argv + 1);
        fprintf(stderr, "%s: unknown command '%s'\n", prefix, name);
    }
    FILE *out = name ? stderr : stdout;
    fprintf(out, "usage: %s COMMAND [ARGS]\n\ncommands:\n", prefix);
    for (const cli_command *c = cmds; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->help);
    return (argc > 1 && name) || argc <= 1 ? 2 : 0;
}

bool cli_u64(const char *opt, const char *text, uint64_t max, uint64_t *out)
{
    if (!text || !*text || *text == '-') {
        fprintf(stderr, "npukit: %s needs a non-negative number, got '%s'\n", opt,
                text ? text : "");
        return false;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno == ERANGE && end && !*end) { /* a number, only too large for 64 bits */
        fprintf(stderr, "npukit: %s=%s exceeds the limit %" PRIu64 "\n", opt, text, max);
        return false;
    }
    if (errno || !end || *end) {
        fprintf(stderr, "npukit: %s: '%s' is not a number\n", opt, text);
        return false;
    }
    if (v > max) {
        fprintf(stderr, "npukit: %s=%s exceeds the limit %" PRIu64 "\n", opt, text, max);
        return false;
    }
    *out = v;
    return true;
}

bool cli_u32(const char *opt, const char *text, uint32_t *out)
{
    uint64_t v;
    if (!cli_u64(opt, text, UINT32_MAX, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

bool cli_int(const char *opt, const char *text, int min, int max, int *out)
{
    errno = 0;
    char *end = NULL;
    long v = text ? strtol(text, &end, 0) : 0;
    if (text && *text && errno == ERANGE && end && !*end) { /* a number, only too large for long */
        fprintf(stderr, "npukit: %s=%s is outside %d..%d\n", opt, text, min, max);
        return false;
    }
    if (!text || !*text || errno || !end || *end) {
        fprintf(stderr, "npukit: %s: '%s' is not a number\n", opt, text ? text : "");
        return false;
    }
    if (v < min || v > max) {
        fprintf(stderr, "npukit: %s=%ld is outside %d..%d\n", opt, v, min, max);
        return false;
    }
    *out = (int)v;
    return true;
}

const char *cli_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "npukit: option %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int cli_lib_error(const char *what)
{
    fprintf(stderr, "npukit: %s: %s\n", what, npk_last_error());
    return 1;
}
