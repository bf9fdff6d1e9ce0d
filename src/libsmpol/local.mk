# libsmpol: what slurmstepd loads, one folder per subsystem (each folder's README says what it
# owns and what it may include; tests/host/t_folders.sh holds the arrows one way). Every
# decision that is not Slurm glue; no Slurm header.
noinst_LTLIBRARIES += src/libsmpol/libsmpol.la
src_libsmpol_libsmpol_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
# json-c is each program's and the plugin's to link (configure.ac: the plugin may
# carry it inside)
src_libsmpol_libsmpol_la_LIBADD = -lm
src_libsmpol_libsmpol_la_SOURCES = $(smpol_base) $(smpol_machine) $(smpol_decide) $(smpol_kernel) \
	$(smpol_pages) $(smpol_record)
EXTRA_DIST += src/libsmpol/README.md src/libsmpol/base/README.md src/libsmpol/machine/README.md \
	src/libsmpol/decide/README.md src/libsmpol/kernel/README.md src/libsmpol/pages/README.md \
	src/libsmpol/record/README.md

# base/: what every folder shares: errors, numbers, node and CPU sets, sizes, words, the host handle, small-file I/O, running a program
smpol_base = \
	src/libsmpol/base/error.c src/libsmpol/base/error.h \
	src/libsmpol/base/number.c src/libsmpol/base/number.h \
	src/libsmpol/base/host.c src/libsmpol/base/host.h \
	src/libsmpol/base/array.c src/libsmpol/base/array.h \
	src/libsmpol/base/bitmap.c src/libsmpol/base/bitmap.h \
	src/libsmpol/base/sysfs.c src/libsmpol/base/sysfs.h \
	src/libsmpol/base/words.c src/libsmpol/base/words.h \
	src/libsmpol/base/units.c src/libsmpol/base/units.h \
	src/libsmpol/base/text.c src/libsmpol/base/text.h \
	src/libsmpol/base/run_cmd.c src/libsmpol/base/run_cmd.h

# machine/: reading the machine: topology, ACPI tables, bandwidth sources, what the kernel offers, who a process is
smpol_machine = \
	src/libsmpol/machine/proc_stat.c src/libsmpol/machine/proc_stat.h \
	src/libsmpol/machine/topology.c src/libsmpol/machine/topology.h \
	src/libsmpol/machine/acpi_table.c src/libsmpol/machine/acpi_table.h \
	src/libsmpol/machine/acpi_hmat.c src/libsmpol/machine/acpi_hmat.h \
	src/libsmpol/machine/acpi_srat.c src/libsmpol/machine/acpi_srat.h \
	src/libsmpol/machine/bandwidth.c src/libsmpol/machine/bandwidth.h \
	src/libsmpol/machine/bw_acpi.c src/libsmpol/machine/bw_acpi.h \
	src/libsmpol/machine/bw_file.c src/libsmpol/machine/bw_file.h \
	src/libsmpol/machine/bw_sources.c src/libsmpol/machine/bw_sources.h \
	src/libsmpol/machine/kernel.c src/libsmpol/machine/kernel.h

# decide/: deciding: weights, plans, the request, the site configuration, the one decision
smpol_decide = \
	src/libsmpol/decide/weights.c src/libsmpol/decide/weights.h \
	src/libsmpol/decide/plan.c src/libsmpol/decide/plan.h \
	src/libsmpol/decide/plan_span.c src/libsmpol/decide/plan_span.h \
	src/libsmpol/decide/spec.c src/libsmpol/decide/spec.h \
	src/libsmpol/decide/site_config.c src/libsmpol/decide/site_config.h \
	src/libsmpol/decide/wi_table.c src/libsmpol/decide/wi_table.h \
	src/libsmpol/decide/placement.c src/libsmpol/decide/placement.h

# kernel/: the kernel's weights table and its lease, applying a policy, the state kept on the node
smpol_kernel = \
	src/libsmpol/kernel/apply.c src/libsmpol/kernel/apply.h \
	src/libsmpol/kernel/step_state.c src/libsmpol/kernel/step_state.h \
	src/libsmpol/kernel/wi.c src/libsmpol/kernel/wi.h \
	src/libsmpol/kernel/lease.c src/libsmpol/kernel/lease.h \
	src/libsmpol/kernel/lease_place.c src/libsmpol/kernel/lease_place.h \
	src/libsmpol/kernel/statedir.c src/libsmpol/kernel/statedir.h

# pages/: moving pages: where a task's pages are, page moves, process_mbind, rebalance, region placement
smpol_pages = \
	src/libsmpol/pages/numa_maps.c src/libsmpol/pages/numa_maps.h \
	src/libsmpol/pages/task_ref.c src/libsmpol/pages/task_ref.h \
	src/libsmpol/pages/pages.c src/libsmpol/pages/pages.h \
	src/libsmpol/pages/pmbind.c src/libsmpol/pages/pmbind.h \
	src/libsmpol/pages/movement.c src/libsmpol/pages/movement.h \
	src/libsmpol/pages/rebalance.c src/libsmpol/pages/rebalance.h \
	src/libsmpol/pages/region_place.c src/libsmpol/pages/region_place.h \
	src/libsmpol/pages/child_place.c src/libsmpol/pages/child_place.h

# record/: the record: the AdminComment entry, its store, gather and spool, sampling, the Prometheus file
smpol_record = \
	src/libsmpol/record/step_ids.c src/libsmpol/record/step_ids.h \
	src/libsmpol/record/record_json.c src/libsmpol/record/record_json.h \
	src/libsmpol/record/record.c src/libsmpol/record/record.h \
	src/libsmpol/record/record_fold.c src/libsmpol/record/record_fold.h \
	src/libsmpol/record/record_merge_back.c src/libsmpol/record/record_merge_back.h \
	src/libsmpol/record/record_missing.c src/libsmpol/record/record_missing.h \
	src/libsmpol/record/record_store.c src/libsmpol/record/record_store.h \
	src/libsmpol/record/record_gather.c src/libsmpol/record/record_gather.h \
	src/libsmpol/record/record_spool.c src/libsmpol/record/record_spool.h \
	src/libsmpol/record/courier_lock.c src/libsmpol/record/courier_lock.h \
	src/libsmpol/record/record_recheck.c src/libsmpol/record/record_recheck.h \
	src/libsmpol/record/step_name.c src/libsmpol/record/step_name.h \
	src/libsmpol/record/sampling.c src/libsmpol/record/sampling.h \
	src/libsmpol/record/prom_textfile.c src/libsmpol/record/prom_textfile.h
