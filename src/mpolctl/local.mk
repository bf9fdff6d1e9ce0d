# mpolctl: the admin command. One file per verb; main.c dispatches.
bin_PROGRAMS += src/mpolctl/mpolctl
src_mpolctl_mpolctl_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
src_mpolctl_mpolctl_LDADD = src/libsmpol-admin/libsmpol-admin.la src/libsmpol/libsmpol.la $(JSONC_LIBS)
src_mpolctl_mpolctl_SOURCES = \
	src/mpolctl/main.c src/mpolctl/commands.h \
	src/mpolctl/cli.c src/mpolctl/cli.h \
	src/mpolctl/terminal.c src/mpolctl/terminal.h \
	src/mpolctl/site.c src/mpolctl/site.h \
	src/mpolctl/cmd_show.c \
	src/mpolctl/cmd_plan.c \
	src/mpolctl/cmd_apply.c \
	src/mpolctl/cmd_recover.c \
	src/mpolctl/job_id.c src/mpolctl/job_id.h \
	src/mpolctl/cmd_report.c src/mpolctl/job_record.c src/mpolctl/job_record.h \
	src/mpolctl/record_print.c src/mpolctl/record_print.h \
	src/mpolctl/cmd_rebalance.c src/mpolctl/job_pids.c src/mpolctl/job_pids.h \
	src/mpolctl/rebalance_report.c src/mpolctl/rebalance_report.h \
	src/mpolctl/cmd_watch.c src/mpolctl/watch.h src/mpolctl/watch_migration.c \
	src/mpolctl/cmd_calibrate.c \
	src/mpolctl/cmd_check.c
