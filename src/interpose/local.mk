# mem_interleave_regions.so: the interposer a region-aware step's tasks run with
# (LD_PRELOAD, put there by the plugin): large allocations placed as they are made.
# libc only; base/'s parsers are compiled in, nothing is exported but the interposed
# functions (exports.map). Never built with the sanitizers: a preloaded library would
# need their runtime loaded before it.
smpol_interposedir = $(pkglibdir)
smpol_interpose_LTLIBRARIES = src/interpose/mem_interleave_regions.la
src_interpose_mem_interleave_regions_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) $(HARDEN_CFLAGS)
src_interpose_mem_interleave_regions_la_LDFLAGS = $(HARDEN_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/interpose/exports.map
src_interpose_mem_interleave_regions_la_LIBADD = $(DL_LIBS)
EXTRA_src_interpose_mem_interleave_regions_la_DEPENDENCIES = src/interpose/exports.map
src_interpose_mem_interleave_regions_la_SOURCES = \
	src/interpose/real.c src/interpose/real.h \
	src/interpose/place.c src/interpose/place.h \
	src/interpose/blocks.c src/interpose/blocks.h \
	src/interpose/heap.c \
	src/interpose/maps.c \
	src/interpose/region_env.c src/interpose/region_env.h \
	src/libsmpol/base/bitmap.c src/libsmpol/base/number.c src/libsmpol/base/error.c
EXTRA_DIST += src/interpose/exports.map src/interpose/README.md
