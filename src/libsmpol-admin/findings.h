/* findings.h - what `mpolctl check` reports: a list of findings, each with a stable
 * code, a severity, the node it is about, what was found and one sentence on what to
 * do. The checks that produce them are in check_*.h; mpolctl(8) lists every code.
 */
#ifndef SMPOL_FINDINGS_H
#define SMPOL_FINDINGS_H

#include <stddef.h>

enum smpol_severity {
	SMPOL_SEV_OK,                  /* looked at, nothing wrong (reported for completeness) */
	SMPOL_SEV_INFO,                /* worth knowing, nothing to fix */
	SMPOL_SEV_SKIPPED,             /* not checked: this user may not read it (root's) */
	SMPOL_SEV_WARNING,             /* placements are worse than they could be */
	SMPOL_SEV_ERROR,               /* the plugin cannot do what it is configured to */
};

struct smpol_finding {
	enum smpol_severity severity;
	char code[32];                 /* "hmat-missing" */
	int node;                      /* -1 = not about one node */
	char what[512];                /* the finding, one sentence */
	char todo[256];                /* what to do, one sentence ("" for ok) */
};

struct smpol_findings {
	struct smpol_finding *v;
	int n;
	int oom;                       /* an add failed: the list is incomplete */
};

/* Add one: `todo` as given, `what` formatted. A failed allocation sets f->oom. */
void smpol_findings_add(struct smpol_findings *f, enum smpol_severity sev, const char *code, int node,
			const char *todo, const char *what_fmt, ...) __attribute__((format(printf, 6, 7)));

/* The worst severity (OK for an empty list). */
enum smpol_severity smpol_findings_worst(const struct smpol_findings *f);

/* How many have this severity. */
int smpol_findings_count(const struct smpol_findings *f, enum smpol_severity sev);

/* "ok", "info", "skipped", "warning", "error". */
const char *smpol_severity_name(enum smpol_severity s);

void smpol_findings_free(struct smpol_findings *f);

#endif
