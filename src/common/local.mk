# libmpol: every decision that is not Slurm glue. No Slurm header here.
noinst_LTLIBRARIES += src/common/libmpol.la
src_common_libmpol_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
src_common_libmpol_la_LIBADD = $(JSONC_LIBS) -lm
src_common_libmpol_la_SOURCES = \
	src/common/error.c src/common/error.h \
	src/common/bitmap.c src/common/bitmap.h \
	src/common/sysfs.c src/common/sysfs.h \
	src/common/topology.c src/common/topology.h \
	src/common/kernel.c src/common/kernel.h \
	src/common/units.c src/common/units.h \
	src/common/weights.c src/common/weights.h \
	src/common/plan.c src/common/plan.h \
	src/common/spec.c src/common/spec.h \
	src/common/site_config.c src/common/site_config.h \
	src/common/apply.c src/common/apply.h \
	src/common/wi.c src/common/wi.h \
	src/common/lease.c src/common/lease.h \
	src/common/run_cmd.c src/common/run_cmd.h \
	src/common/statedir.c src/common/statedir.h \
	src/common/numa_maps.c src/common/numa_maps.h \
	src/common/record.c src/common/record.h \
	src/common/record_store.c src/common/record_store.h
# rebalance: the minimal-move planner, page queries and moves, pinned tasks, hotplug events
src_common_libmpol_la_SOURCES += \
	src/common/movement.c src/common/movement.h \
	src/common/task_ref.c src/common/task_ref.h \
	src/common/pages.c src/common/pages.h \
	src/common/rebalance.c src/common/rebalance.h \
	src/common/hotplug.c src/common/hotplug.h \
	src/common/cpuset.c src/common/cpuset.h
