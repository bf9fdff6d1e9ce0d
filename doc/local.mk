dist_man_MANS += doc/mpolctl.8 doc/mem_interleave.8
