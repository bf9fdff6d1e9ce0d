# mem_interleave.so: the SPANK plugin. Thin Slurm glue over libsmpol.
if WITH_SLURM
slurm_plugin_LTLIBRARIES = src/plugins/mem_interleave/mem_interleave.la
src_plugins_mem_interleave_mem_interleave_la_CFLAGS = $(AM_CFLAGS) $(SLURM_CPPFLAGS) $(JSONC_CFLAGS)
src_plugins_mem_interleave_mem_interleave_la_LIBADD = src/libsmpol/libsmpol.la $(JSONC_PLUGIN_LIBS)
src_plugins_mem_interleave_mem_interleave_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/plugins/mem_interleave/exports.map
EXTRA_src_plugins_mem_interleave_mem_interleave_la_DEPENDENCIES = src/plugins/mem_interleave/exports.map
src_plugins_mem_interleave_mem_interleave_la_SOURCES = \
	src/plugins/mem_interleave/plugin.c src/plugins/mem_interleave/plugin.h src/plugins/mem_interleave/mi_log.h \
	src/plugins/mem_interleave/release.c src/plugins/mem_interleave/release.h \
	src/plugins/mem_interleave/options.c \
	src/plugins/mem_interleave/local.c \
	src/plugins/mem_interleave/step.c \
	src/plugins/mem_interleave/task.c \
	src/plugins/mem_interleave/preload.c src/interpose/region_env.c src/interpose/region_env.h \
	src/plugins/mem_interleave/record_step.c src/plugins/mem_interleave/record_step.h \
	src/plugins/mem_interleave/record_collector.c src/plugins/mem_interleave/record_collector.h \
	src/plugins/mem_interleave/sample_regions.c src/plugins/mem_interleave/sample_regions.h \
	src/plugins/mem_interleave/record_slurm.c src/plugins/mem_interleave/record_slurm.h \
	src/plugins/mem_interleave/record_dbd.h \
	src/plugins/mem_interleave/record_ended.c src/plugins/mem_interleave/record_ended.h \
	src/plugins/mem_interleave/record_write.c src/plugins/mem_interleave/record_write.h \
	src/plugins/mem_interleave/record_courier.c src/plugins/mem_interleave/record_courier.h \
	src/plugins/mem_interleave/sample_tree.c src/plugins/mem_interleave/sample_tree.h
endif

# mem_interleave_dbd: writes a finished job's record into slurmdbd for the plugin (a
# Slurm daemon cannot be a client of slurmdbd: record_dbd.h). It links libslurm.
if WITH_DBD_CLIENT
pkglibexec_PROGRAMS = src/plugins/mem_interleave/mem_interleave_dbd
src_plugins_mem_interleave_mem_interleave_dbd_CFLAGS = $(AM_CFLAGS) $(SLURM_CPPFLAGS) $(JSONC_CFLAGS)
src_plugins_mem_interleave_mem_interleave_dbd_LDADD = src/libsmpol/libsmpol.la $(SLURM_LIBS) $(JSONC_LIBS)
src_plugins_mem_interleave_mem_interleave_dbd_SOURCES = \
	src/plugins/mem_interleave/dbd_main.c \
	src/plugins/mem_interleave/dbd_recheck.c src/plugins/mem_interleave/dbd_recheck.h \
	src/plugins/mem_interleave/record_dbd.c src/plugins/mem_interleave/record_dbd.h
endif
EXTRA_DIST += src/plugins/mem_interleave/exports.map
