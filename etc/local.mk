# etc: plugstack snippet, udev rule, systemd unit (installed by `make install`).
