# tests/pkg/lib.sh - sourced by tests/pkg/run and installed-job.sh.

# payload PLUGINDIR: the paths on stdin that a package installs for the site (not
# documentation, not RPM's build-id links), with Slurm's plugin directory written
# PLUGINDIR, the package's library directory (LIBDIR/slurm-mempolicy: /usr/lib64 or
# Debian's multiarch /usr/lib/TRIPLET) PKGLIBDIR and man pages without their
# compression suffix, sorted: what tests/pkg/files.txt lists, the same for the deb and
# the rpm.
payload() {
	sed -e "s|^$1/|PLUGINDIR/|" -e 's#^/usr/lib\(64\|/[a-z0-9_]*-linux-gnu[a-z0-9_]*\)\{0,1\}/slurm-mempolicy/#PKGLIBDIR/#' \
		-e 's|^\(/usr/share/man/.*\)\.gz$|\1|' |
		grep -v -e '^/usr/share/doc/' -e '^/usr/share/lintian/' -e '^/usr/lib/\.build-id/' | sort
}

# payload_diff WANT GOT: the lines that differ, for a failure message.
payload_diff() {
	diff <(echo "$1") <(echo "$2") | grep '^[<>]' | sed 's/^</missing:/; s/^>/extra:/' | head -n 8 | paste -sd ' '
}
