# libsmpol: what slurmstepd loads (topology, weights, plans, the weights table and its
# lease, spec, apply, record). Every decision that is not Slurm glue; no Slurm header.
noinst_LTLIBRARIES += src/libsmpol/libsmpol.la
src_libsmpol_libsmpol_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
src_libsmpol_libsmpol_la_LIBADD = $(JSONC_LIBS) -lm
src_libsmpol_libsmpol_la_SOURCES = \
	src/libsmpol/error.c src/libsmpol/error.h \
	src/libsmpol/host.c src/libsmpol/host.h \
	src/libsmpol/bitmap.c src/libsmpol/bitmap.h \
	src/libsmpol/sysfs.c src/libsmpol/sysfs.h \
	src/libsmpol/proc_stat.c src/libsmpol/proc_stat.h \
	src/libsmpol/topology.c src/libsmpol/topology.h \
	src/libsmpol/kernel.c src/libsmpol/kernel.h \
	src/libsmpol/units.c src/libsmpol/units.h \
	src/libsmpol/weights.c src/libsmpol/weights.h \
	src/libsmpol/plan.c src/libsmpol/plan.h \
	src/libsmpol/spec.c src/libsmpol/spec.h \
	src/libsmpol/site_config.c src/libsmpol/site_config.h \
	src/libsmpol/placement.c src/libsmpol/placement.h \
	src/libsmpol/apply.c src/libsmpol/apply.h \
	src/libsmpol/step_state.c src/libsmpol/step_state.h \
	src/libsmpol/wi.c src/libsmpol/wi.h \
	src/libsmpol/lease.c src/libsmpol/lease.h \
	src/libsmpol/statedir.c src/libsmpol/statedir.h \
	src/libsmpol/numa_maps.c src/libsmpol/numa_maps.h \
	src/libsmpol/record.c src/libsmpol/record.h \
	src/libsmpol/record_store.c src/libsmpol/record_store.h
