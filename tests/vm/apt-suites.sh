# apt-suites.sh - sourced by the VM tier's scripts that download Debian packages
# (fetch-kernels.sh, kernel/build-pmbind.sh): configure_apt adds the apt sources for
# bookworm-backports, trixie and trixie-backports by reusing the archive URI this
# machine already uses for bookworm, pins trixie and trixie-backports at priority 50
# so that nothing installed is ever upgraded from them, and runs apt-get update at
# most once a day. Needs root and $cache (the VM cache directory).
sources=/etc/apt/sources.list.d/slurm-mempolicy-vm.sources
pin=/etc/apt/preferences.d/slurm-mempolicy-vm

# The URI of the Debian archive that serves bookworm here (deb822 or one-line format).
archive_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$sources" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     /(^|\n)Suites:[^\n]*[ \t]bookworm([ \t]|\n|$)/ && !/(^|\n)Enabled: *no/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, u, /[ \t]+/); print u[2]; exit }
		     }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++
		     if ($(i + 1) == "bookworm") { print $i; exit } }' "$f"
	done
}

configure_apt() {
	local uri
	uri=$(archive_uri | head -n 1)
	if [ -z "$uri" ]; then
		echo "${0##*/}: no apt source for bookworm found in /etc/apt; add one, then retry" >&2
		return 1
	fi
	local want
	want=$(printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports trixie trixie-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri")
	if [ ! -f "$sources" ] || [ "$(cat "$sources")" != "$want" ]; then
		printf '%s\n' "$want" >"$sources"
		rm -f "$cache/apt-updated"
	fi
	printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n\nPackage: *\nPin: release n=trixie-backports\nPin-Priority: 50\n' >"$pin"
	# One update a day is enough to resolve the newest kernel.
	if [ ! -f "$cache/apt-updated" ] || [ -n "$(find "$cache/apt-updated" -mmin +1440)" ]; then
		apt-get update -q >"$cache/apt-update.log" 2>&1 ||
			{ tail -n 5 "$cache/apt-update.log" >&2; echo "${0##*/}: apt-get update failed (log: $cache/apt-update.log)" >&2; return 1; }
		touch "$cache/apt-updated"
	fi
}
