#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit.1 from the program itself: the command list of `npukit --help` and, for each command,
# the usage line, summary and option rows its parser prints for --help (the same rows it parses
# with), so the manual cannot drift from the options.
#   bash scripts/manpage.sh CLI > npukit.1
set -euo pipefail
cli=$1
version=$("$cli" --version | awk '{print $NF}')
cat <<HEAD
.TH NPUKIT 1 "" "npukit $version" "User Commands"
.SH NAME
npukit \\- drive and simulate the RK3588 NPU and the KohakuTPU mesh
.SH SYNOPSIS
.B npukit
.I COMMAND
.RI [ ARGS ]
.SH DESCRIPTION
npukit drives the Rockchip RK3588 NPU at the register level (through the rknpu or rocket
kernel driver, or the simulator behind the same interface) and the KohakuTPU mesh (over its
control window, or the simulator). Each command prints its options with
.BR \\-\\-help ;
they are listed below. The reference is in /usr/share/doc/npukit/docs (docs/ in the sources),
indexed by its README.md.
.SH COMMANDS
HEAD
# "  fam  help" and "    cmd  help" lines: a family with subcommands, or a command of its own.
"$cli" --help | awk '/^  [a-z]/ {fam=$1; n[fam]=0; order[++k]=fam; next}
                     /^    [a-z]/ {print fam, $1; n[fam]++; next}
                     END {for (i = 1; i <= k; i++) if (!n[order[i]]) print order[i]}' |
while read -r fam cmd; do
  # roff: backslashes escaped, hyphens as minus signs (option names), characters past ASCII
  # as \[uXXXX], a leading . or ' protected. One perl per command: the usage line, the summary up to "options:", then each option row
  # ("  OPTION ARG   text", two or more spaces between) as a tagged paragraph.
  "$cli" $fam $cmd --help 2>&1 | NAME="npukit $fam${cmd:+ $cmd}" perl -CS -ne '
    sub esc { my $t = shift; $t =~ s/\\/\\e/g; $t =~ s/-/\\-/g;
              $t =~ s/([^\x00-\x7f])/sprintf("\\[u%04X]", ord $1)/ge; $t =~ s/^([.\x27])/\\&$1/; $t }
    BEGIN { print ".SS ", esc($ENV{NAME}), "\n" }
    chomp;
    if ($. == 1) { s/^usage: //; print ".B ", esc($_), "\n.PP\n"; next }
    if (/^options:/) { $opts = 1; next }
    if (!$opts) { print esc($_), "\n"; next }
    next unless /^  (-.*?)(?: {2,}(.*))?$/;
    print ".TP\n.B ", esc($1), "\n", esc(defined $2 ? $2 : ""), "\n";'
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B NPUKIT_DATA_DIR
where the KohakuTPU presets are read from (default: share/npukit beside the program)
.SH SEE ALSO
The documents in /usr/share/doc/npukit/docs (README.md there lists them all):
rk\-runtime.md, rk\-device.md, rk\-simulator.md, kt\-driver.md, kt\-remote.md,
packaging.md and the others.
TAIL
