/* plugstack.c - find mem_interleave.so's plugstack.conf line (see plugstack.h). */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "error.h"
#include "plugstack.h"
#include "sysfs.h"
#include "words.h"

#define MAX_DEPTH 8
/* Larger than any plugstack.conf or slurm.conf; a link to /dev/zero is refused before. */
#define CONF_FILE_MAX (1024 * 1024)

/* The whole of a configuration file, read as the sysfs files are: never blocking on a
 * FIFO, refusing a device or directory, bounded. *text is malloc'ed (free it). 0 or
 * -errno with "cannot read PATH: why". */
static int read_conf(const char *path, char **text, char *err, size_t errlen)
{
	int rc;

	*text = malloc(CONF_FILE_MAX + 1);
	if (!*text)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	rc = smpol_read_text(path, *text, CONF_FILE_MAX + 1);
	if (rc < 0) {
		free(*text);
		*text = NULL;
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s", path, rc == -EFBIG ?
				  "it is larger than 1 MiB, more than any Slurm configuration file" : smpol_read_error(rc));
	}
	return 0;
}

/* The next line of text at *pos (its newline replaced by NUL), or NULL at the end. */
static char *next_line(char **pos)
{
	char *line = *pos, *nl;

	if (!line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	*pos = nl ? nl + 1 : NULL;
	return line;
}

int smpol_slurm_conf_value(const char *slurm_conf, const char *key, char *buf, size_t len)
{
	size_t keylen = strlen(key);
	char *text, *pos, *line;
	bool found = false;

	buf[0] = '\0';
	if (read_conf(slurm_conf, &text, NULL, 0) < 0)
		return -ENOENT;
	for (pos = text; (line = next_line(&pos));) {
		char *p = line + strspn(line, " \t"), *end;

		if (strncasecmp(p, key, keylen) || (p[keylen] != '=' && p[keylen] != ' ' && p[keylen] != '\t'))
			continue;
		p = strchr(p, '=');
		if (!p)
			continue;
		p += 1 + strspn(p + 1, " \t");
		end = p + strcspn(p, " \t\r#");
		snprintf(buf, len, "%.*s", (int)(end - p), p);
		found = true;
	}
	free(text);
	return found ? 0 : -ENOENT;
}

const char *smpol_slurm_conf_path(void)
{
	const char *conf = getenv("SLURM_CONF");

	return conf && *conf ? conf : "/etc/slurm/slurm.conf";
}

void smpol_plugstack_default(char *buf, size_t len)
{
	const char *conf = smpol_slurm_conf_path();
	char copy[PATH_MAX];

	if (smpol_slurm_conf_value(conf, "PlugStackConfig", buf, len) == 0 && buf[0])
		return;
	snprintf(copy, sizeof(copy), "%s", conf);
	snprintf(buf, len, "%s/plugstack.conf", dirname(copy));
}

static int scan(const char *path, int depth, struct smpol_plugstack_line *out, char *err, size_t errlen);

/* "include PATTERN": every match, in glob's (sorted) order. */
static int include(const char *from, int lineno, const char *pattern, int depth, struct smpol_plugstack_line *out,
		   char *err, size_t errlen)
{
	char full[PATH_MAX], dir[PATH_MAX];
	glob_t g;
	int rc = -ENOENT;

	if (depth >= MAX_DEPTH)
		return smpol_fail(err, errlen, E2BIG, "%s:%d: includes nested more than %d deep", from, lineno, MAX_DEPTH);
	snprintf(dir, sizeof(dir), "%s", from);
	if (pattern[0] == '/')
		snprintf(full, sizeof(full), "%s", pattern);
	else if (snprintf(full, sizeof(full), "%s/%s", dirname(dir), pattern) >= (int)sizeof(full))
		return smpol_fail(err, errlen, ENAMETOOLONG, "%s:%d: the include path is too long", from, lineno);
	if (glob(full, 0, NULL, &g))
		return -ENOENT;   /* Slurm ignores a pattern that matches nothing */
	for (size_t i = 0; rc == -ENOENT && i < g.gl_pathc; i++)
		rc = scan(g.gl_pathv[i], depth + 1, out, err, errlen);
	globfree(&g);
	return rc;
}

static bool is_ours(const char *plugin)
{
	const char *base = strrchr(plugin, '/');

	return !strcmp(base ? base + 1 : plugin, SMPOL_PLUGIN_FILE);
}

/* -ENOENT (quietly) when the file does not name the plugin. */
static int scan(const char *path, int depth, struct smpol_plugstack_line *out, char *err, size_t errlen)
{
	char *w[SMPOL_PLUGSTACK_MAX_ARGS + 2], *text, *pos, *line;
	int lineno = 0, rc;

	rc = read_conf(path, &text, err, errlen);
	if (rc < 0)
		return rc;   /* -ENOENT: an include that vanished; the top file is checked before */
	rc = -ENOENT;
	for (pos = text; rc == -ENOENT && (line = next_line(&pos));) {
		char *hash = strchr(line, '#');
		int n;

		lineno++;
		if (hash)
			*hash = '\0';
		if (strlen(line) >= sizeof(out->text)) {
			if (strstr(line, SMPOL_PLUGIN_FILE))
				rc = smpol_fail(err, errlen, E2BIG, "%s:%d: the line is longer than %zu characters", path,
						lineno, sizeof(out->text) - 1);
			continue;
		}
		memcpy(out->text, line, strlen(line) + 1);
		n = smpol_words(out->text, w, SMPOL_PLUGSTACK_MAX_ARGS + 2);
		if (n >= 2 && !strcmp(w[0], "include")) {
			rc = include(path, lineno, w[1], depth, out, err, errlen);
			continue;
		}
		if (n == -E2BIG && strstr(line, SMPOL_PLUGIN_FILE))
			rc = smpol_fail(err, errlen, E2BIG, "%s:%d: more than %d arguments", path, lineno,
					SMPOL_PLUGSTACK_MAX_ARGS);
		if (n < 2 || (strcmp(w[0], "required") && strcmp(w[0], "optional")) || !is_ours(w[1]))
			continue;
		snprintf(out->file, sizeof(out->file), "%s", path);
		out->lineno = lineno;
		out->optional = !strcmp(w[0], "optional");
		out->argc = n - 2;
		for (int i = 0; i < out->argc; i++)
			out->argv[i] = w[i + 2];
		rc = 0;
	}
	free(text);
	return rc;
}

int smpol_plugstack_find(const char *conf, struct smpol_plugstack_line *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (conf)
		snprintf(out->conf, sizeof(out->conf), "%s", conf);
	else
		smpol_plugstack_default(out->conf, sizeof(out->conf));
	if (access(out->conf, F_OK) < 0)
		return smpol_fail(err, errlen, errno, "cannot read %s: %s", out->conf, strerror(errno));
	rc = scan(out->conf, 0, out, err, errlen);
	if (rc == -ENOENT)
		return smpol_fail(err, errlen, ENOMSG, "no line of %s or its includes names %s", out->conf,
				  SMPOL_PLUGIN_FILE);
	return rc;
}
