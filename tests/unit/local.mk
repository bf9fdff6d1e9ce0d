# Unit tests (cmocka, TAP output): `make check`. Each test_X.c is one program. glibc's
# tcache is off: test_plugin measures the heap a step holds, and a chunk the tcache keeps
# would count as held.
if HAVE_CMOCKA
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
AM_TESTS_ENVIRONMENT = CMOCKA_MESSAGE_OUTPUT=TAP; export CMOCKA_MESSAGE_OUTPUT; \
	MPOL_TEST_FIXTURES=$(abs_top_srcdir)/tests/fixtures; export MPOL_TEST_FIXTURES; \
	ASAN_OPTIONS=detect_leaks=1; export ASAN_OPTIONS; \
	GLIBC_TUNABLES=glibc.malloc.tcache_count=0; export GLIBC_TUNABLES;
UNIT_CFLAGS_COMMON = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)
UNIT_LIBS_COMMON = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(CMOCKA_LIBS) $(JSONC_LIBS)

# Add a test: one line in UNIT_TESTS, and its _SOURCES/_CFLAGS/_LDADD below.
UNIT_TESTS =
UNIT_TESTS += tests/unit/test_numa_maps
tests_unit_test_numa_maps_SOURCES = tests/unit/test_numa_maps.c
tests_unit_test_numa_maps_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_numa_maps_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_record
tests_unit_test_record_SOURCES = tests/unit/test_record.c
tests_unit_test_record_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_record_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_record_missing
tests_unit_test_record_missing_SOURCES = tests/unit/test_record_missing.c
tests_unit_test_record_missing_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_record_missing_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_step_ids
tests_unit_test_step_ids_SOURCES = tests/unit/test_step_ids.c
tests_unit_test_step_ids_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_step_ids_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_sampling
tests_unit_test_sampling_SOURCES = tests/unit/test_sampling.c
tests_unit_test_sampling_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_sampling_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_gather
tests_unit_test_gather_SOURCES = tests/unit/test_gather.c
tests_unit_test_gather_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_gather_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_wi
tests_unit_test_wi_SOURCES = tests/unit/test_wi.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_wi_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_wi_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_lease
tests_unit_test_lease_SOURCES = tests/unit/test_lease.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_lease_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_lease_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_lease_place
tests_unit_test_lease_place_SOURCES = tests/unit/test_lease_place.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_lease_place_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_lease_place_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_recheck
tests_unit_test_recheck_SOURCES = tests/unit/test_recheck.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_recheck_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_recheck_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_statedir
tests_unit_test_statedir_SOURCES = tests/unit/test_statedir.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_statedir_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_statedir_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_placement
tests_unit_test_placement_SOURCES = tests/unit/test_placement.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_placement_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_placement_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_step_state
tests_unit_test_step_state_SOURCES = tests/unit/test_step_state.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_step_state_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_step_state_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_check
tests_unit_test_check_SOURCES = tests/unit/test_check.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_check_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_check_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_region_env
tests_unit_test_region_env_SOURCES = tests/unit/test_region_env.c src/interpose/region_env.c
tests_unit_test_region_env_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_region_env_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_apply
tests_unit_test_apply_SOURCES = tests/unit/test_apply.c tests/unit/task_policy.h
tests_unit_test_apply_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_apply_LDADD = $(UNIT_LIBS_COMMON)
if WITH_SLURM
# The plugin's callbacks with fake spank_* / slurm_* and a fake accounting (test_plugin.c).
UNIT_TESTS += tests/unit/test_plugin
# The plugin's files are #included by test_plugin.c (it resets their per-process state).
tests_unit_test_plugin_SOURCES = tests/unit/test_plugin.c tests/unit/fake_tree.c tests/unit/fake_tree.h tests/unit/task_policy.h \
	src/interpose/region_env.c
tests_unit_test_plugin_CFLAGS = $(UNIT_CFLAGS_COMMON) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_plugin_LDADD = $(UNIT_LIBS_COMMON)
# Children follow their CPUs: the sampler's tree walk (sample_tree.c, #included) on real forked processes.
UNIT_TESTS += tests/unit/test_children
tests_unit_test_children_SOURCES = tests/unit/test_children.c tests/unit/task_policy.h
tests_unit_test_children_CFLAGS = $(UNIT_CFLAGS_COMMON) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_children_LDADD = $(UNIT_LIBS_COMMON)
# A finished job's record handed to mem_interleave_dbd, with stand-in clients.
UNIT_TESTS += tests/unit/test_record_ended
tests_unit_test_record_ended_SOURCES = tests/unit/test_record_ended.c src/plugins/mem_interleave/record_ended.c
tests_unit_test_record_ended_CFLAGS = $(UNIT_CFLAGS_COMMON) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_record_ended_LDADD = $(UNIT_LIBS_COMMON)
# Through slurmctld or slurmdbd: whether slurmctld's job is still the step's run, with a
# fake slurmctld (the test's slurm_* functions) and a stand-in mem_interleave_dbd.
UNIT_TESTS += tests/unit/test_record_slurm
tests_unit_test_record_slurm_SOURCES = tests/unit/test_record_slurm.c src/plugins/mem_interleave/record_slurm.c \
	src/plugins/mem_interleave/record_ended.c
tests_unit_test_record_slurm_CFLAGS = $(UNIT_CFLAGS_COMMON) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_record_slurm_LDADD = $(UNIT_LIBS_COMMON)
# slurmd's courier (record_courier.c, #included), its rounds counted: woken by a record
# put into the spool, listening only with its own settings.
UNIT_TESTS += tests/unit/test_record_courier
tests_unit_test_record_courier_SOURCES = tests/unit/test_record_courier.c
tests_unit_test_record_courier_CFLAGS = $(UNIT_CFLAGS_COMMON) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_record_courier_LDADD = $(UNIT_LIBS_COMMON) -lpthread
# A step's record handed to the courier or written by the step (record_write.c,
# #included), with a fake store in place of Slurm.
UNIT_TESTS += tests/unit/test_record_write
tests_unit_test_record_write_SOURCES = tests/unit/test_record_write.c
tests_unit_test_record_write_CFLAGS = $(UNIT_CFLAGS_COMMON) $(SLURM_CPPFLAGS) -I$(top_srcdir)/src/plugins/mem_interleave
tests_unit_test_record_write_LDADD = $(UNIT_LIBS_COMMON)
endif
UNIT_TESTS += tests/unit/test_movement
tests_unit_test_movement_SOURCES = tests/unit/test_movement.c
tests_unit_test_movement_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_movement_LDADD = $(UNIT_LIBS_COMMON) -lm
UNIT_TESTS += tests/unit/test_region_place
tests_unit_test_region_place_SOURCES = tests/unit/test_region_place.c
tests_unit_test_region_place_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_region_place_LDADD = $(UNIT_LIBS_COMMON)

UNIT_TESTS += tests/unit/test_pmbind_probe
tests_unit_test_pmbind_probe_SOURCES = tests/unit/test_pmbind_probe.c
tests_unit_test_pmbind_probe_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_pmbind_probe_LDADD = $(UNIT_LIBS_COMMON) $(DL_LIBS)
UNIT_TESTS += tests/unit/test_rebalance
tests_unit_test_rebalance_SOURCES = tests/unit/test_rebalance.c src/mpolctl/job_pids.c src/mpolctl/job_id.c
tests_unit_test_rebalance_CFLAGS = $(UNIT_CFLAGS_COMMON) -I$(top_srcdir)/src/mpolctl
tests_unit_test_rebalance_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_run_cmd
tests_unit_test_run_cmd_SOURCES = tests/unit/test_run_cmd.c
tests_unit_test_run_cmd_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_run_cmd_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_sysfs
tests_unit_test_sysfs_SOURCES = tests/unit/test_sysfs.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_sysfs_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_sysfs_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_topology
tests_unit_test_topology_SOURCES = tests/unit/test_topology.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_topology_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_topology_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_acpi
tests_unit_test_acpi_SOURCES = tests/unit/test_acpi.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_acpi_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_acpi_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_bandwidth
tests_unit_test_bandwidth_SOURCES = tests/unit/test_bandwidth.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_bandwidth_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_bandwidth_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_kernel
tests_unit_test_kernel_SOURCES = tests/unit/test_kernel.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_kernel_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_kernel_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_units
tests_unit_test_units_SOURCES = tests/unit/test_units.c
tests_unit_test_units_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_units_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_weights
tests_unit_test_weights_SOURCES = tests/unit/test_weights.c
tests_unit_test_weights_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_weights_LDADD = $(UNIT_LIBS_COMMON) -lm
UNIT_TESTS += tests/unit/test_bitmap
tests_unit_test_bitmap_SOURCES = tests/unit/test_bitmap.c
tests_unit_test_bitmap_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_bitmap_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_spec
tests_unit_test_spec_SOURCES = tests/unit/test_spec.c
tests_unit_test_spec_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_spec_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_site_config
tests_unit_test_site_config_SOURCES = tests/unit/test_site_config.c
tests_unit_test_site_config_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_site_config_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c
tests_unit_test_plan_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_plan_LDADD = $(UNIT_LIBS_COMMON)
UNIT_TESTS += tests/unit/test_plan_span
tests_unit_test_plan_span_SOURCES = tests/unit/test_plan_span.c tests/unit/fake_tree.c tests/unit/fake_tree.h
tests_unit_test_plan_span_CFLAGS = $(UNIT_CFLAGS_COMMON)
tests_unit_test_plan_span_LDADD = $(UNIT_LIBS_COMMON)
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
endif
EXTRA_DIST += tests/unit/README.md
