# bench: benchmarks print ratios measured in the same run
EXTRA_DIST += bench/launch bench/acct-scale bench/steps bench/README.md
# step-state: the bytes the plugin keeps for one step (bench/step-state)
if WITH_SLURM
noinst_PROGRAMS += bench/step-state-bench
bench_step_state_bench_SOURCES = bench/step-state-bench.c
bench_step_state_bench_CFLAGS = $(AM_CFLAGS) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
bench_step_state_bench_LDADD = src/libsmpol/libsmpol.la $(JSONC_LIBS)
endif
EXTRA_DIST += bench/step-state
# rebalance: the planner on model layouts, then the real kernel (bench/rebalance)
noinst_PROGRAMS += bench/rebalance-model
bench_rebalance_model_SOURCES = bench/rebalance-model.c
bench_rebalance_model_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
EXTRA_DIST += bench/rebalance
# weights: optimal vs kernel weights over a corpus of bandwidth vectors (bench/weights)
noinst_PROGRAMS += bench/weights-bench
bench_weights_bench_SOURCES = bench/weights-bench.c
bench_weights_bench_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS) -lm
EXTRA_DIST += bench/weights bench/corpus.txt
# sampling: cost of one placement sample vs the task's run time (bench/sampling)
noinst_PROGRAMS += bench/sampling-bench
bench_sampling_bench_SOURCES = bench/sampling-bench.c bench/bench_util.h
bench_sampling_bench_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
EXTRA_DIST += bench/sampling
# stream: STREAM copy and triad under local, interleave, the kernel's and our weights (bench/stream)
noinst_PROGRAMS += bench/stream-bench
bench_stream_bench_SOURCES = bench/stream-bench.c
bench_stream_bench_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
EXTRA_DIST += bench/stream
# regions: what region-aware placement (min_region=) adds to a sample (bench/regions)
noinst_PROGRAMS += bench/regions-bench
bench_regions_bench_SOURCES = bench/regions-bench.c bench/bench_util.h
bench_regions_bench_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
EXTRA_DIST += bench/regions
# regions -S: the task each compared placement runs under Slurm (and its static build,
# which LD_PRELOAD cannot reach: the sampler alone places its arrays)
noinst_PROGRAMS += bench/regions-task
bench_regions_task_SOURCES = bench/regions-task.c bench/bench_util.h
bench_regions_task_LDADD = src/libsmpol/libsmpol.la $(JSONC_LIBS)
# (not in a sanitizer build: ASan and UBSan cannot link a static program)
if HAVE_STATIC_LIBC
if !SANITIZERS
noinst_PROGRAMS += bench/regions-task-static
bench_regions_task_static_SOURCES = bench/regions-task.c bench/bench_util.h
bench_regions_task_static_LDADD = src/libsmpol/libsmpol.la $(JSONC_LIBS)
bench_regions_task_static_LDFLAGS = -all-static
endif
endif
