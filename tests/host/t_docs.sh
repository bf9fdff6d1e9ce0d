# t_docs.sh - the man page and --help agree (sourced by tests/host/run): every verb's
# SYNOPSIS in mpolctl(8) names the options its --help names, and every "mpolctl(8),
# SECTION" a message or help text points to is a section of the page.

TD2_MAN=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/doc/mpolctl.8
TD2_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/src

# td2_man_synopsis VERB: the long options of the verb's SYNOPSIS (from .SS VERB to the
# first .PP), one a line, sorted.
td2_man_synopsis() {
	sed -n "/^\\.SS $1\$/,/^\\.PP/p" "$TD2_MAN" | sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z-]*' | sort -u
}

# td2_help_synopsis VERB: the long options of the usage lines of VERB --help (up to the
# first blank line), sorted; --help itself is left out as the man page leaves it out.
# A short option there (-j) counts as its long name (--job).
td2_help_synopsis() {
	"$MPOLCTL" "$1" --help | sed '/^$/q' | sed 's/ -j / --job /' | grep -o -- '--[a-z][a-z-]*' |
		grep -vx -- '--help' | sort -u
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "docs: mpolctl" "$MPOLCTL is missing (build first)"
else
	for td2_verb in show plan apply recover report rebalance watch check calibrate; do
		td2_diff=$(diff <(td2_man_synopsis $td2_verb) <(td2_help_synopsis $td2_verb))
		if [ -z "$td2_diff" ]; then
			t_pass "docs: $td2_verb: mpolctl(8)'s SYNOPSIS and --help name the same options"
		else
			t_fail "docs: $td2_verb: mpolctl(8)'s SYNOPSIS and --help name the same options" \
				"< man, > help: $(tr '\n' ' ' <<<"$td2_diff")"
		fi
	done
	td2_missing=
	while read -r td2_section; do
		grep -Eq "^\\.S[HS] \"?$td2_section\"?\$" "$TD2_MAN" || td2_missing="$td2_missing '$td2_section'"
	done < <(grep -rhoE 'mpolctl\(8\), [A-Z][A-Z ]*[A-Z]' "$TD2_SRC" | sed 's/^mpolctl(8), //' | sort -u)
	if [ -z "$td2_missing" ]; then
		t_pass "docs: every section of mpolctl(8) the sources point to exists"
	else
		t_fail "docs: every section of mpolctl(8) the sources point to exists" "missing:$td2_missing"
	fi
fi
