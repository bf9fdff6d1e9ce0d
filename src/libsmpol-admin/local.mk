# libsmpol-admin: what only mpolctl needs (a running task's target, migration and
# hotplug events, cpusets, the plugstack line, bandwidth
# measurement, the checks of mpolctl check).
# slurmstepd never loads it.
noinst_LTLIBRARIES += src/libsmpol-admin/libsmpol-admin.la
src_libsmpol_admin_libsmpol_admin_la_CFLAGS = $(AM_CFLAGS) -pthread
src_libsmpol_admin_libsmpol_admin_la_LIBADD = -lpthread -lm
src_libsmpol_admin_libsmpol_admin_la_SOURCES = \
	src/libsmpol-admin/task_target.c src/libsmpol-admin/task_target.h \
	src/libsmpol-admin/migration.c src/libsmpol-admin/migration.h \
	src/libsmpol-admin/hotplug.c src/libsmpol-admin/hotplug.h \
	src/libsmpol-admin/cpuset.c src/libsmpol-admin/cpuset.h \
	src/libsmpol-admin/fs_tree.c src/libsmpol-admin/fs_tree.h \
	src/libsmpol-admin/plugstack.c src/libsmpol-admin/plugstack.h \
	src/libsmpol-admin/stream.c src/libsmpol-admin/stream.h \
	src/libsmpol-admin/findings.c src/libsmpol-admin/findings.h \
	src/libsmpol-admin/checks.h \
	src/libsmpol-admin/check_hmat.c \
	src/libsmpol-admin/check_weights.c \
	src/libsmpol-admin/check_state.c \
	src/libsmpol-admin/check_table.c \
	src/libsmpol-admin/check_hwloc.c \
	src/libsmpol-admin/check_helpers.c \
	src/libsmpol-admin/check_record.c
