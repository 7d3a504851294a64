/* Shared helpers for the npukit subcommands: argument parsing with clear errors. */
#ifndef NPUKIT_TOOLS_CLI_H
#define NPUKIT_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A subcommand: name, one-line help, entry point (argv[0] is the subcommand name). */
typedef struct cli_command {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} cli_command;

/* Dispatch argv[1] among cmds; prints usage for no/unknown name. `prefix` is e.g. "npukit rk". */
int cli_dispatch(const char *prefix, const cli_command *cmds, int argc, char **argv);

/* Parse an unsigned integer (decimal or 0x hex) for option `opt`; prints an error naming
 * the option and the bad text and returns false when it is not a number or exceeds max. */
bool cli_u64(const char *opt, const char *text, uint64_t max, uint64_t *out);
bool cli_u32(const char *opt, const char *text, uint32_t *out);
bool cli_int(const char *opt, const char *text, int min, int max, int *out);

/* Fetch the value of option argv[*i] (advancing *i); prints an error when it is missing. */
const char *cli_value(int argc, char **argv, int *i);

/* Print "npukit: <msg>" from the library's last error. Returns the exit status 1. */
int cli_lib_error(const char *what);

#endif
