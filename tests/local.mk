# Shell test tiers and fixtures travel in the tarball.
EXTRA_DIST += tests/lib.sh tests/host tests/slurm tests/vm tests/fixtures
