# etc: plugstack snippet, udev rule, systemd unit (installed by `make install`).
plugstackdir = $(sysconfdir)/slurm/plugstack.conf.d
dist_plugstack_DATA = etc/plugstack.conf.d/mem_interleave.conf
