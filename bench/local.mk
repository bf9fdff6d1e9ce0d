# bench: benchmarks print ratios measured in the same run
EXTRA_DIST += bench/launch bench/README.md
