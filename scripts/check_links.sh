#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every relative link in the given Markdown files resolves: the file or directory exists beside
# the linking file and, for FILE.md#anchor (or #anchor alone), FILE.md has a heading with that
# anchor as GitHub makes it (lower case; letters, digits, '_', '-' and spaces kept, spaces to
# '-'; a repeated heading gets -1, -2, ...). Links with a scheme (https:, mailto:) and text in
# code spans or fenced blocks are not links. Prints each broken link as FILE:LINE and fails.
#   bash scripts/check_links.sh FILE.md...
set -euo pipefail
[ $# -gt 0 ] || { echo "check_links: no files given" >&2; exit 2; }
exec perl -CSD -Mutf8 -e '
use strict;
use warnings;
use File::Basename qw(dirname);
my (%anchors, $bad, $links);
# The anchors of a file, read once: headings outside fenced blocks.
sub anchors {
    my ($f) = @_;
    return $anchors{$f} if $anchors{$f};
    my (%a, %n, $fence);
    open(my $fh, "<:encoding(UTF-8)", $f) or return $anchors{$f} = {};
    while (my $l = <$fh>) {
        if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next }
        next if $fence || $l !~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
        my $t = $1;
        $t =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;    # a link counts by its text
        $t =~ s/<[^>]*>//g;                     # inline HTML does not count
        my $s = lc $t;
        $s =~ s/[^\p{L}\p{M}\p{N}_\- ]//g;
        $s =~ s/ /-/g;
        my $u = exists $n{$s} ? $s . "-" . ++$n{$s} : $s;
        $n{$s} //= 0;
        $a{$u} = 1;
    }
    return $anchors{$f} = \%a;
}
for my $f (@ARGV) {
    open(my $fh, "<:encoding(UTF-8)", $f) or die "check_links: cannot read $f\n";
    my $fence;
    while (my $l = <$fh>) {
        if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next }
        next if $fence;
        $l =~ s/(`+).*?\1//g;                   # code spans
        my @t = $l =~ /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
        push @t, $1 if $l =~ /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
        for my $t (@t) {
            next if $t =~ m{^[A-Za-z][A-Za-z0-9+.-]*:} || $t =~ m{^//};
            $links++;
            my ($path, $anchor) = $t =~ /^([^#]*)(?:#(.*))?$/;
            my $target = $path eq "" ? $f : dirname($f) . "/" . $path;
            my $why;
            if (!-e $target) {
                $why = "no such file";
            } elsif (defined $anchor && $target =~ /\.md$/i && !-d $target
                     && !anchors($target)->{$anchor}) {
                $why = "no heading with anchor #$anchor";
            }
            next unless $why;
            print STDERR "$f:$.: broken link ($t): $why\n";
            $bad++;
        }
    }
}
print "check_links: ", scalar(@ARGV), " files, ", ($links // 0), " relative links, ",
      ($bad // 0), " broken\n";
exit($bad ? 1 : 0);
' "$@"
