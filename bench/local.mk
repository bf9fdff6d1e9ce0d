# bench: benchmarks print ratios measured in the same run
