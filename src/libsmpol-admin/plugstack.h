/* plugstack.h - mem_interleave.so's line in Slurm's plugstack.conf, found the way
 * Slurm reads it, so `mpolctl` verbs use the site's arguments as the plugin does.
 *
 * Which file: the one given, else slurm.conf's PlugStackConfig= (slurm.conf is
 * $SLURM_CONF, else /etc/slurm/slurm.conf), else plugstack.conf beside slurm.conf.
 * Its syntax (Slurm's spank.c): '#' starts a comment; "include PATTERN" reads every
 * file the glob matches (a relative pattern is relative to the including file's
 * directory), nested up to 8 deep; "required|optional PLUGIN ARGS..." names a plugin,
 * whose file name is compared here, arguments split on blanks.
 */
#ifndef SMPOL_PLUGSTACK_H
#define SMPOL_PLUGSTACK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define SMPOL_PLUGIN_FILE "mem_interleave.so"
#define SMPOL_PLUGSTACK_MAX_ARGS 32

struct smpol_plugstack_line {
	char conf[PATH_MAX];           /* the top file read */
	char file[PATH_MAX];           /* the file holding the line */
	int lineno;
	bool optional;                 /* "optional" rather than "required" */
	int argc;
	char *argv[SMPOL_PLUGSTACK_MAX_ARGS];  /* point into text */
	char text[4096];
};

/* The slurm.conf Slurm's commands read: $SLURM_CONF, else /etc/slurm/slurm.conf. */
const char *smpol_slurm_conf_path(void);

/*
 * smpol_slurm_conf_value - the value of key (case-insensitive, as Slurm reads its
 * keys; the last line naming it) in slurm_conf into buf ("" when empty). -ENOENT when
 * the file cannot be read or does not name key. Included files are not read.
 */
int smpol_slurm_conf_value(const char *slurm_conf, const char *key, char *buf, size_t len);

/*
 * smpol_plugstack_default - the plugstack.conf Slurm reads (see above) into buf.
 */
void smpol_plugstack_default(char *buf, size_t len);

/*
 * smpol_plugstack_find - the first line naming mem_interleave.so in conf (NULL = the
 * default) and its includes. 0; -ENOMSG with a sentence when no line names the plugin;
 * the error of reading conf or an include ("cannot read ...": -ENOENT when conf is
 * missing, -SMPOL_ENOTREG for a FIFO or device); -E2BIG (too many arguments, includes
 * too deep) with a sentence naming the file and line.
 */
int smpol_plugstack_find(const char *conf, struct smpol_plugstack_line *out, char *err, size_t errlen);

#endif
