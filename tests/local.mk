# Shell test tiers and fixtures travel in the tarball.
EXTRA_DIST += tests/lib.sh
# tests/vm/fetch-kernels.sh finds the machine's Debian archive with it.
EXTRA_DIST += scripts/apt-archive-uri.sh
# tests/host/t_demo.sh runs the demo's part without a cluster.
EXTRA_DIST += scripts/demo-node.sh

# The tiers travel as whole directories, copied from the source tree with tar: the
# build tree's directories of the same names hold objects and test programs, and
# the fixtures hold sysfs's symlink cycles, which must stay links.
dist-hook:
	for d in tests/host tests/slurm tests/vm tests/fuzz tests/pkg tests/fixtures; do \
		rm -rf "$(distdir)/$$d" && \
		(cd "$(srcdir)" && tar cf - "$$d") | (cd "$(distdir)" && tar xf -) || exit 1; \
	done
