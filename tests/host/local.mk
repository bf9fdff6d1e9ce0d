# Host tier helpers: the VM tier's launcher (the plugin's libsmpol calls without Slurm)
# also serves tests/host/t_apply.sh and t_lease.sh on this machine's kernel.
noinst_PROGRAMS += tests/host/mpol-launch
tests_host_mpol_launch_SOURCES = tests/vm/src/mpol-launch.c
tests_host_mpol_launch_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_host_mpol_launch_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
# rebalance tests: a process holding touched (and untouched) memory
noinst_PROGRAMS += tests/host/page-hold
tests_host_page_hold_SOURCES = tests/host/page-hold.c
