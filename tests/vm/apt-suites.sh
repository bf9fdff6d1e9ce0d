# apt-suites.sh - sourced by the VM tier's scripts that download Debian packages
# (fetch-kernels.sh, kernel/build-pmbind.sh): configure_apt adds the apt sources for
# bookworm-backports, trixie and trixie-backports by reusing the archive URI this
# machine already uses for bookworm, pins trixie and trixie-backports at priority 50
# so that nothing installed is ever upgraded from them, and runs apt-get update at
# most once a day. Needs root and $cache (the VM cache directory).
sources=/etc/apt/sources.list.d/slurm-mempolicy-vm.sources
pin=/etc/apt/preferences.d/slurm-mempolicy-vm

configure_apt() {
	local uri
	# The archive that serves bookworm here (its sources are not this script's own).
	uri=$("$(dirname "${BASH_SOURCE[0]}")/../../scripts/apt-archive-uri.sh" bookworm) ||
		{ echo "${0##*/}: add an apt source for bookworm, then retry" >&2; return 1; }
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
