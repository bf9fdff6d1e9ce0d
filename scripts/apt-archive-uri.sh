#!/bin/bash
# apt-archive-uri.sh - the URI of the Debian archive this machine's apt sources use for
# SUITE (deb822 .sources or one-line .list format), so that scripts needing another
# suite reuse it instead of naming a host. Sources written by this project
# (slurm-mempolicy-*) are not consulted. Prints nothing and fails when none is found.
#   scripts/apt-archive-uri.sh [SUITE]   (default bookworm; e.g. bookworm-security)
set -euo pipefail
suite=${1:-bookworm}

find_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case ${f##*/} in slurm-mempolicy-*) continue ;; esac
		awk -v suite="$suite" 'BEGIN { RS = ""; FS = "\n" }
		     !/(^|\n)Enabled: *no/ {
			s = ""; u = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Suites:/) { s = " " substr($i, 8) " "; gsub(/[ \t]+/, " ", s) }
				if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); u = a[2] }
			}
			if (u != "" && index(s, " " suite " ")) { print u; exit }
		     }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
		     if ($(i + 1) == suite) { print $i; exit } }' "$f"
	done
}

# The first source that has it (all are read: head would cut find_uri off with
# SIGPIPE, which pipefail and -e turn into a silent exit).
uri=$(find_uri | sed -n 1p)
[ -n "$uri" ] || { echo "apt-archive-uri: no apt source for $suite found in /etc/apt" >&2; exit 1; }
echo "$uri"
