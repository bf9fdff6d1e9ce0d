dist_man_MANS += doc/mpolctl.8 doc/mem_interleave.8
EXTRA_DIST += doc/admin-guide.md doc/design-notes.md
