# libsmpol: what slurmstepd loads (topology, bandwidth sources, weights, plans, the weights table and its
# lease, spec, apply, record). Every decision that is not Slurm glue; no Slurm header.
noinst_LTLIBRARIES += src/libsmpol/libsmpol.la
src_libsmpol_libsmpol_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
src_libsmpol_libsmpol_la_LIBADD = $(JSONC_LIBS) -lm
src_libsmpol_libsmpol_la_SOURCES = \
	src/libsmpol/error.c src/libsmpol/error.h \
	src/libsmpol/number.c src/libsmpol/number.h \
	src/libsmpol/host.c src/libsmpol/host.h \
	src/libsmpol/bitmap.c src/libsmpol/bitmap.h \
	src/libsmpol/sysfs.c src/libsmpol/sysfs.h \
	src/libsmpol/proc_stat.c src/libsmpol/proc_stat.h \
	src/libsmpol/topology.c src/libsmpol/topology.h \
	src/libsmpol/acpi_table.c src/libsmpol/acpi_table.h \
	src/libsmpol/acpi_hmat.c src/libsmpol/acpi_hmat.h \
	src/libsmpol/acpi_srat.c src/libsmpol/acpi_srat.h \
	src/libsmpol/bandwidth.c src/libsmpol/bandwidth.h \
	src/libsmpol/bw_acpi.c src/libsmpol/bw_acpi.h \
	src/libsmpol/bw_file.c src/libsmpol/bw_file.h \
	src/libsmpol/words.c src/libsmpol/words.h \
	src/libsmpol/bw_sources.c src/libsmpol/bw_sources.h \
	src/libsmpol/kernel.c src/libsmpol/kernel.h \
	src/libsmpol/units.c src/libsmpol/units.h \
	src/libsmpol/text.c src/libsmpol/text.h \
	src/libsmpol/weights.c src/libsmpol/weights.h \
	src/libsmpol/plan.c src/libsmpol/plan.h \
	src/libsmpol/plan_span.c src/libsmpol/plan_span.h \
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
	src/libsmpol/record_store.c src/libsmpol/record_store.h \
	src/libsmpol/record_gather.c src/libsmpol/record_gather.h \
	src/libsmpol/record_spool.c src/libsmpol/record_spool.h \
	src/libsmpol/sampling.c src/libsmpol/sampling.h \
	src/libsmpol/task_ref.c src/libsmpol/task_ref.h \
	src/libsmpol/pages.c src/libsmpol/pages.h \
	src/libsmpol/pmbind.c src/libsmpol/pmbind.h \
	src/libsmpol/movement.c src/libsmpol/movement.h \
	src/libsmpol/rebalance.c src/libsmpol/rebalance.h \
	src/libsmpol/region_place.c src/libsmpol/region_place.h \
	src/libsmpol/child_place.c src/libsmpol/child_place.h \
	src/libsmpol/prom_textfile.c src/libsmpol/prom_textfile.h
