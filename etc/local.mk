# etc: plugstack snippet, udev rule, systemd unit, tmpfiles.d entry (installed by `make install`).
plugstackdir = $(sysconfdir)/slurm/plugstack.conf.d
dist_plugstack_DATA = etc/plugstack.conf.d/mem_interleave.conf
# mpolctl watch: the udev rule that onlines hot-added memory, and the service
udevrulesdir = $(prefix)/lib/udev/rules.d
dist_udevrules_DATA = etc/udev/rules.d/60-mpolctl-hotplug.rules
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = etc/systemd/mpolctl-watch.service
EXTRA_DIST += etc/systemd/mpolctl-watch.service.in
CLEANFILES += etc/systemd/mpolctl-watch.service
etc/systemd/mpolctl-watch.service: $(top_srcdir)/etc/systemd/mpolctl-watch.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && sed -e 's|@bindir[@]|$(bindir)|g' $(top_srcdir)/etc/systemd/mpolctl-watch.service.in >$@
# The root-only state directory (/run/slurm-mempolicy) from boot on
tmpfilesdir = $(prefix)/lib/tmpfiles.d
dist_tmpfiles_DATA = etc/tmpfiles.d/slurm-mempolicy.conf
