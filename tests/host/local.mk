# Host tier helpers: the VM tier's launcher (the plugin's libsmpol calls without Slurm)
# also serves tests/host/t_apply.sh and t_lease.sh on this machine's kernel.
noinst_PROGRAMS += tests/host/mpol-launch
tests_host_mpol_launch_SOURCES = tests/vm/src/mpol-launch.c
tests_host_mpol_launch_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_host_mpol_launch_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
# rebalance tests: a process holding touched (and untouched) memory
noinst_PROGRAMS += tests/host/page-hold
tests_host_page_hold_SOURCES = tests/host/page-hold.c
# the interposer's tests (t_interpose.sh): a program that allocates every way, a
# library it dlopens, a static program LD_PRELOAD cannot reach. Never built with the
# sanitizers: a preloaded library must come after their runtime, which these lack.
noinst_PROGRAMS += tests/host/interpose-check
tests_host_interpose_check_SOURCES = tests/host/interpose-check.c tests/vm/src/pages-where.h
tests_host_interpose_check_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -pthread
tests_host_interpose_check_LDFLAGS = -pthread
tests_host_interpose_check_LDADD = $(DL_LIBS)
if HAVE_STATIC_LIBC
noinst_PROGRAMS += tests/host/interpose-static
tests_host_interpose_static_SOURCES = tests/host/interpose-static.c
tests_host_interpose_static_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
tests_host_interpose_static_LDFLAGS = -all-static
endif
EXTRA_DIST += tests/host/interpose-static.c
noinst_LTLIBRARIES += tests/host/interpose-dl.la
tests_host_interpose_dl_la_SOURCES = tests/host/interpose-dl.c
tests_host_interpose_dl_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
# -rpath: a shared library to dlopen, not a convenience archive
tests_host_interpose_dl_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
