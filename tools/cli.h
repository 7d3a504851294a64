/* SPDX-License-Identifier: MIT */
/* Shared helpers for the npukit subcommands: the command tables, and one option-row mechanism
 * with one parser for every subcommand, whose rows also generate its --help. */
#ifndef NPUKIT_TOOLS_CLI_H
#define NPUKIT_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A subcommand: name, one-line help, entry point (argv[0] is the subcommand name). */
typedef struct cli_command {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} cli_command;

/* Dispatch argv[1] among cmds: help (-h, --help, help) lists them on stdout (exit 0), no name
 * lists them on stderr (exit 2), an unknown name is one error line (exit 2). `prefix` is e.g.
 * "npukit rk". */
int cli_dispatch(const char *prefix, const cli_command *cmds, int argc, char **argv);
/* One line per command, each after `indent`. */
void cli_list(const cli_command *cmds, const char *indent, FILE *f);

/* What an option row holds. Numbers are decimal (no sign, no blanks, no leading zero); the
 * _HEX kinds, for addresses and register values, also take an explicit 0x. */
typedef enum cli_kind {
    CLI_FLAG, /* bool *: set to true, no value */
    CLI_INT,  /* int * */
    CLI_UINT, /* unsigned * */
    CLI_U32,  /* uint32_t * */
    CLI_U64,  /* uint64_t * */
    CLI_U32_HEX,
    CLI_U64_HEX,
    CLI_STR,    /* const char **: the value as given */
    CLI_CHOICE, /* int *: the index of the value in `choices` */
    CLI_CUSTOM, /* `parse` takes the value; it prints its own one-line error */
} cli_kind;

typedef struct cli_opt cli_opt;
struct cli_opt {
    const char *name; /* "--words", "-m"; NULL ends a table */
    cli_kind kind;
    void *dest;
    uint64_t min, max; /* numbers: the inclusive range, named in errors and --help */
    const char *help;
    const char *meta;           /* the value's placeholder in --help ("N", "FILE") */
    const char *const *choices; /* CLI_CHOICE: NULL-ended words */
    bool *given;                /* set when the option appears (may be NULL) */
    bool (*parse)(const cli_opt *row, const char *value, const char *cmd); /* CLI_CUSTOM */
};
#define CLI_END                                                                                    \
    {                                                                                              \
        NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL                                   \
    }

/* A command's interface: its name ("kt move"), the synopsis after it, one line on what it does,
 * option tables (NULL-ended list of CLI_END-ended rows), and up to max_pos positional
 * arguments (`pos_names` for --help, e.g. "FILE|-"); at least min_pos. */
typedef struct cli_spec {
    const char *cmd;
    const char *synopsis;
    const char *about;
    const cli_opt *const *tables;
    const char **pos;
    int min_pos, max_pos, *n_pos;
    const char *notes; /* more --help text, or NULL */
} cli_spec;

/* Parse argv[1..]: -h/--help prints the help on stdout and returns 0; a bad option or value
 * prints one line naming it (and where the option list is) and returns 2; otherwise returns -1:
 * run the command. "--" ends the options; "-" alone is a positional (stdin). */
int cli_parse(const cli_spec *spec, int argc, char **argv);
/* The generated help: usage line, about, every row with its range. */
void cli_help(const cli_spec *spec, FILE *f);

/* One number as the rows take it, from text[0..len): CLI_NUM_BIG when it does not fit 64 bits. */
typedef enum cli_num { CLI_NUM_OK, CLI_NUM_BAD, CLI_NUM_LEADING_ZERO, CLI_NUM_BIG } cli_num;
cli_num cli_number_scan(const char *text, size_t len, bool hex, uint64_t *out);
/* cli_number_scan of a whole string and the range check; on failure prints one line
 * "npukit CMD: OPT ..." naming the text and the range, and returns false. */
bool cli_number(const char *cmd, const char *opt, const char *text, bool hex, uint64_t min,
                uint64_t max, uint64_t *out);

/* Print "npukit: <what>: <msg>" from the library's last error. Returns the exit status 1. */
int cli_lib_error(const char *what);
/* CLI_CUSTOM parser of --trace FILE (rk and kt commands): sets NPUKIT_TRACE, which the library
 * reads when it opens the trace file at its first traced event (src/common/trace_json.c). */
bool cli_parse_trace(const cli_opt *row, const char *v, const char *cmd);
/* The bytes of an open file, read until its end or one byte past `max` (so *n > max tells the
 * caller the file is too large), in a buffer that grows with what was read and is NUL-terminated
 * (text can be used as a string). NULL only when out of memory; ferror(f) tells a read error. */
char *cli_read_capped(FILE *f, size_t max, size_t *n);

#endif
