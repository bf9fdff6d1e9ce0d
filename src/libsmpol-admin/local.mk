# libsmpol-admin: what only mpolctl needs (page queries and moves, the minimal-move
# planner, rebalance, pinned tasks, cpusets, hotplug events, running commands).
# slurmstepd never loads it.
noinst_LTLIBRARIES += src/libsmpol-admin/libsmpol-admin.la
src_libsmpol_admin_libsmpol_admin_la_CFLAGS = $(AM_CFLAGS)
src_libsmpol_admin_libsmpol_admin_la_SOURCES = \
	src/libsmpol-admin/movement.c src/libsmpol-admin/movement.h \
	src/libsmpol-admin/task_ref.c src/libsmpol-admin/task_ref.h \
	src/libsmpol-admin/pages.c src/libsmpol-admin/pages.h \
	src/libsmpol-admin/rebalance.c src/libsmpol-admin/rebalance.h \
	src/libsmpol-admin/task_target.c src/libsmpol-admin/task_target.h \
	src/libsmpol-admin/migration.c src/libsmpol-admin/migration.h \
	src/libsmpol-admin/hotplug.c src/libsmpol-admin/hotplug.h \
	src/libsmpol-admin/cpuset.c src/libsmpol-admin/cpuset.h \
	src/libsmpol-admin/run_cmd.c src/libsmpol-admin/run_cmd.h
