/* bw_file.c - the bandwidth table file: parse, write, and whether it fits this node
 * (see bw_file.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw_file.h"
#include "error.h"
#include "sysfs.h"
#include "words.h"

#define FILE_MAX (1024 * 1024)
#define MAGIC "smpol-bandwidth"

static int line_fail(char *err, size_t errlen, int lineno, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int line_fail(char *err, size_t errlen, int lineno, const char *fmt, ...)
{
	char why[SMPOL_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return smpol_fail(err, errlen, EBADMSG, "line %d: %s", lineno, why);
}

/* A whole decimal number in [0, max]: digits only. */
static bool parse_u32(const char *text, uint32_t max, uint32_t *out)
{
	unsigned long long v = 0;

	if (!*text)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned)(*p - '0');
		if (v > max)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

static int parse_pair(char **w, int nw, enum smpol_bw_source source, struct smpol_bw_file *f, int lineno,
		      char *err, size_t errlen)
{
	struct smpol_bw_entry e = { .source = source }, *grown;
	uint32_t init, target;

	if (nw != 5)
		return line_fail(err, errlen, lineno, "'%s' takes INITIATOR TARGET READ WRITE", w[0]);
	if (!parse_u32(w[1], SMPOL_MAX_NODES - 1, &init) || !parse_u32(w[2], SMPOL_MAX_NODES - 1, &target))
		return line_fail(err, errlen, lineno, "'%s %s' are not node ids (0-%d)", w[1], w[2], SMPOL_MAX_NODES - 1);
	if (!parse_u32(w[3], UINT32_MAX, &e.read) || !parse_u32(w[4], UINT32_MAX, &e.write))
		return line_fail(err, errlen, lineno, "'%s %s' are not bandwidths in MB/s (whole numbers, 0 = unknown)",
				 w[3], w[4]);
	if (!e.read && !e.write)
		return line_fail(err, errlen, lineno, "node %u to node %u: read and write are both 0 (unknown); "
				 "leave the pair out instead", init, target);
	e.initiator = (int)init;
	e.target = (int)target;
	for (int i = 0; i < f->table.nentries; i++)
		if (f->table.entries[i].initiator == e.initiator && f->table.entries[i].target == e.target &&
		    f->table.entries[i].source == source)
			return line_fail(err, errlen, lineno, "%s node %u to node %u is given twice", w[0], init, target);
	/* smpol_bw_put keeps one source per pair: the file keeps both kinds side by side */
	grown = realloc(f->table.entries, (size_t)(f->table.nentries + 1) * sizeof(*grown));

	if (!grown)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	f->table.entries = grown;
	f->table.entries[f->table.nentries++] = e;
	return 0;
}

static int parse_node(char **w, int nw, struct smpol_bw_file *f, int lineno, char *err, size_t errlen)
{
	struct smpol_bw_file_node n = { 0 }, *grown;
	uint32_t id;
	char why[SMPOL_ERRLEN];

	if (nw != 4 || strncmp(w[2], "cpus=", 5) || strncmp(w[3], "memory=", 7))
		return line_fail(err, errlen, lineno, "'node' takes ID cpus=LIST memory=yes|no");
	if (!parse_u32(w[1], SMPOL_MAX_NODES - 1, &id))
		return line_fail(err, errlen, lineno, "'%s' is not a node id (0-%d)", w[1], SMPOL_MAX_NODES - 1);
	n.id = (int)id;
	if (strcmp(w[3] + 7, "yes") && strcmp(w[3] + 7, "no"))
		return line_fail(err, errlen, lineno, "memory= takes yes or no");
	n.memory = !strcmp(w[3] + 7, "yes");
	for (int i = 0; i < f->nnodes; i++)
		if (f->nodes[i].id == n.id)
			return line_fail(err, errlen, lineno, "node %d is described twice", n.id);
	grown = realloc(f->nodes, (size_t)(f->nnodes + 1) * sizeof(*grown));
	if (!grown)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	f->nodes = grown;
	if (strcmp(w[2] + 5, "-") &&
	    smpol_cpus_parse_list(w[2] + 5, SMPOL_MAX_CPUS, &n.cpus, why, sizeof(why)))
		return line_fail(err, errlen, lineno, "cpus: %s", why);
	f->nodes[f->nnodes++] = n;   /* its CPUs are f's now */
	return 0;
}

/* The text after the first word, trimmed. */
static const char *rest_of(const char *line, size_t word_len)
{
	line += word_len;
	return line + strspn(line, " \t");
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static void append_info(struct smpol_bw_file *f, const char *text)
{
	size_t used = strlen(f->info);

	snprintf(f->info + used, sizeof(f->info) - used, "%s%s", used ? "; " : "", text);
}

/* Is the line's first word this one? */
static bool starts_with_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	line += strspn(line, " \t");
	return !strncmp(line, word, n) && (!line[n] || line[n] == ' ' || line[n] == '\t');
}

static int parse_line(char *line, int lineno, bool *seen_magic, struct smpol_bw_file *f, char *err, size_t errlen)
{
	const char *rest = line + strspn(line, " \t");
	char copy[1024], *w[6];
	int nw;

	if (strlen(line) >= sizeof(copy))
		return line_fail(err, errlen, lineno, "longer than %zu characters", sizeof(copy) - 1);
	if (*seen_magic && starts_with_word(line, "machine")) {
		if (f->machine[0])
			return line_fail(err, errlen, lineno, "a second machine line");
		snprintf(f->machine, sizeof(f->machine), "%s", rest_of(rest, 7));
		trim_end(f->machine);
		return 0;
	}
	if (*seen_magic && starts_with_word(line, "info")) {
		append_info(f, rest_of(rest, 4));
		return 0;
	}
	strcpy(copy, line);
	nw = smpol_words(copy, w, 5);
	if (nw < 0)
		return line_fail(err, errlen, lineno, "more words than any item takes");
	if (nw == 0)
		return 0;
	if (!*seen_magic) {
		if (strcmp(w[0], MAGIC))
			return line_fail(err, errlen, lineno, "a bandwidth table starts with '" MAGIC " %d', not '%s'",
					 SMPOL_BW_FILE_VERSION, w[0]);
		if (nw != 2 || strcmp(w[1], "1"))
			return line_fail(err, errlen, lineno, "format version '%s' is not one this mpolctl reads (%d)",
					 nw > 1 ? w[1] : "", SMPOL_BW_FILE_VERSION);
		*seen_magic = true;
		return 0;
	}
	if (!strcmp(w[0], "node"))
		return parse_node(w, nw, f, lineno, err, errlen);
	if (!strcmp(w[0], "measured"))
		return parse_pair(w, nw, SMPOL_BW_MEASURED, f, lineno, err, errlen);
	if (!strcmp(w[0], "override"))
		return parse_pair(w, nw, SMPOL_BW_OVERRIDE, f, lineno, err, errlen);
	return line_fail(err, errlen, lineno, "unknown item '%s' (known: machine, node, info, measured, override)", w[0]);
}

int smpol_bw_file_parse(const char *text, struct smpol_bw_file *f, char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *next;
	bool seen_magic = false;
	int lineno = 0, rc = 0;

	memset(f, 0, sizeof(*f));
	if (!copy)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	for (line = copy; !rc && line; line = next) {
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		line[strcspn(line, "\r")] = '\0';
		rc = parse_line(line, lineno, &seen_magic, f, err, errlen);
	}
	free(copy);
	if (!rc && !seen_magic)
		rc = smpol_fail(err, errlen, EBADMSG, "it is empty: a bandwidth table starts with '" MAGIC " %d'",
				SMPOL_BW_FILE_VERSION);
	if (rc)
		smpol_bw_file_free(f);
	return rc;
}

int smpol_bw_file_read(const char *path, struct smpol_bw_file *f, char *err, size_t errlen)
{
	char *text = malloc(FILE_MAX), why[SMPOL_ERRLEN];
	int rc;

	memset(f, 0, sizeof(*f));
	if (!text)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	rc = smpol_read_text(path, text, FILE_MAX);
	if (rc == -ENOENT) {
		free(text);
		return rc;
	}
	if (rc)
		rc = smpol_fail(err, errlen, -rc, "cannot read the bandwidth table %s: %s", path,
				rc == -EFBIG ? "larger than 1 MiB" : smpol_read_error(rc));
	else if (memchr(text, '\0', strlen(text)) != NULL || (rc = smpol_bw_file_parse(text, f, why, sizeof(why))))
		rc = smpol_fail(err, errlen, EBADMSG, "the bandwidth table %s is malformed: %s", path, why);
	free(text);
	return rc;
}

/* Grows a malloc'ed string. */
struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->buf && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		char *grown = realloc(t->buf, t->cap + (size_t)n + 4096);

		if (!grown) {
			t->failed = true;
			return;
		}
		t->buf = grown;
		t->cap += (size_t)n + 4096;
	}
}

/* In the table's order, so an admin's lines stay where they were. */
static void put_pairs(struct text *t, const struct smpol_bw_table *tb)
{
	for (int i = 0; i < tb->nentries; i++)
		put(t, "%s %d %d %u %u\n", tb->entries[i].source == SMPOL_BW_OVERRIDE ? "override" : "measured",
		    tb->entries[i].initiator, tb->entries[i].target, tb->entries[i].read, tb->entries[i].write);
}

int smpol_bw_file_format(const struct smpol_bw_file *f, char **text)
{
	struct text t = { 0 };

	put(&t, "# slurm-mempolicy bandwidth table: mpolctl(8), BANDWIDTH SOURCES\n" MAGIC " %d\n",
	    SMPOL_BW_FILE_VERSION);
	if (f->machine[0])
		put(&t, "machine %s\n", f->machine);
	for (int i = 0; i < f->nnodes; i++) {
		char cpus[1024] = "";

		if (smpol_cpus_format_list(&f->nodes[i].cpus, cpus, sizeof(cpus)) || !cpus[0])
			snprintf(cpus, sizeof(cpus), "-");
		put(&t, "node %d cpus=%s memory=%s\n", f->nodes[i].id, cpus, f->nodes[i].memory ? "yes" : "no");
	}
	if (f->info[0])
		put(&t, "info %s\n", f->info);
	put(&t, "# measured|override INITIATOR TARGET READ_MB/s WRITE_MB/s\n");
	put_pairs(&t, &f->table);
	if (t.failed) {
		free(t.buf);
		return -ENOMEM;
	}
	*text = t.buf;
	return 0;
}

static void free_nodes(struct smpol_bw_file_node *nodes, int n)
{
	for (int i = 0; i < n; i++)
		smpol_cpus_free(&nodes[i].cpus);
	free(nodes);
}

int smpol_bw_file_set_nodes(struct smpol_bw_file *f, const struct smpol_topology *topo)
{
	struct smpol_bw_file_node *nodes = calloc((size_t)topo->nnodes + 1, sizeof(*nodes));

	if (!nodes)
		return -ENOMEM;
	for (int i = 0; i < topo->nnodes; i++) {
		nodes[i] = (struct smpol_bw_file_node){ .id = topo->nodes[i].id, .memory = topo->nodes[i].has_memory };
		if (smpol_cpus_copy(&nodes[i].cpus, &topo->nodes[i].cpus) < 0) {
			free_nodes(nodes, i);
			return -ENOMEM;
		}
	}
	free_nodes(f->nodes, f->nnodes);
	f->nodes = nodes;
	f->nnodes = topo->nnodes;
	return 0;
}

static bool machine_known(const char *m)
{
	return m[0] && strcmp(m, "- / - / -");
}

/* The node lines against this topology. */
static int match_nodes(const struct smpol_bw_file *f, const struct smpol_topology *topo, char *err, size_t errlen)
{
	for (int i = 0; i < f->nnodes; i++) {
		const struct smpol_bw_file_node *fn = &f->nodes[i];
		const struct smpol_node *n = smpol_topology_node(topo, fn->id);

		if (!n)
			return smpol_fail(err, errlen, ESTALE, "the table was measured with node %d, which is not online "
					  "here", fn->id);
		if (!smpol_cpus_equal(&n->cpus, &fn->cpus))
			return smpol_fail(err, errlen, ESTALE, "node %d has other CPUs here than where the table was "
					  "measured", fn->id);
		if (n->has_memory != fn->memory)
			return smpol_fail(err, errlen, ESTALE, "node %d %s memory here but %s where the table was measured",
					  fn->id, n->has_memory ? "has" : "has no", fn->memory ? "had" : "had none");
	}
	for (int i = 0; f->nnodes && i < topo->nnodes; i++) {
		bool listed = false;

		for (int j = 0; j < f->nnodes; j++)
			listed |= f->nodes[j].id == topo->nodes[i].id;
		if (!listed && topo->nodes[i].has_memory)
			return smpol_fail(err, errlen, ESTALE, "node %d has memory here but is not in the table: hot-added "
					  "since it was measured? run mpolctl calibrate again", topo->nodes[i].id);
	}
	return 0;
}

/* Every pair names an online CPU node and memory node; measured ones cover them all. */
static int match_pairs(const struct smpol_bw_file *f, const struct smpol_topology *topo, char *err, size_t errlen)
{
	bool measured = false;

	for (int i = 0; i < f->table.nentries; i++) {
		const struct smpol_bw_entry *e = &f->table.entries[i];
		const struct smpol_node *in = smpol_topology_node(topo, e->initiator);
		const struct smpol_node *tn = smpol_topology_node(topo, e->target);

		if (!in || !in->has_cpu)
			return smpol_fail(err, errlen, ESTALE, "the table names initiator node %d, which is no online node "
					  "with CPUs here", e->initiator);
		if (!tn || !tn->has_memory)
			return smpol_fail(err, errlen, ESTALE, "the table names memory node %d, which is no online node "
					  "with memory here", e->target);
		measured |= e->source == SMPOL_BW_MEASURED;
	}
	for (int i = 0; measured && i < topo->nnodes; i++) {
		for (int j = 0; topo->nodes[i].has_cpu && j < topo->nnodes; j++) {
			const struct smpol_bw_entry *e;
			bool found = false;

			if (!topo->nodes[j].has_memory)
				continue;
			for (int k = 0; k < f->table.nentries && !found; k++) {
				e = &f->table.entries[k];
				found = e->source == SMPOL_BW_MEASURED && e->initiator == topo->nodes[i].id &&
					e->target == topo->nodes[j].id;
			}
			if (!found)
				return smpol_fail(err, errlen, ESTALE, "the table has no measured bandwidth from node %d to "
						  "node %d: run mpolctl calibrate again", topo->nodes[i].id, topo->nodes[j].id);
		}
	}
	return 0;
}

int smpol_bw_file_match(const struct smpol_bw_file *f, const struct smpol_topology *topo, const char *machine,
			char *err, size_t errlen)
{
	int rc;

	if (machine_known(f->machine) && machine_known(machine) && strcmp(f->machine, machine))
		return smpol_fail(err, errlen, ESTALE, "the table was measured on a '%s', this machine is a '%s'",
				  f->machine, machine);
	rc = match_nodes(f, topo, err, errlen);
	return rc ? rc : match_pairs(f, topo, err, errlen);
}

void smpol_bw_file_free(struct smpol_bw_file *f)
{
	free_nodes(f->nodes, f->nnodes);
	smpol_bw_free(&f->table);
	memset(f, 0, sizeof(*f));
}

void smpol_machine_identity(const struct smpol_host *h, char *buf, size_t len)
{
	static const char *const files[] = { "sys_vendor", "product_name", "board_name" };
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[PATH_MAX], value[80];

		if (smpol_fs_path(h->fsroot, path, sizeof(path), "/sys/class/dmi/id/%s", files[i]) ||
		    smpol_read_text(path, value, sizeof(value)))
			value[0] = '\0';
		/* one line in the table file, whatever the firmware wrote */
		for (char *p = value; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '#')
				*p = ' ';
		trim_end(value);
		if (!value[0])
			snprintf(value, sizeof(value), "-");
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " / " : "", value);
	}
}
