/* findings.c - the list `mpolctl check` reports (see findings.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"

void smpol_findings_add(struct smpol_findings *f, enum smpol_severity sev, const char *code, int node,
			const char *todo, const char *what_fmt, ...)
{
	struct smpol_finding *grown = realloc(f->v, (size_t)(f->n + 1) * sizeof(*grown)), *x;
	va_list ap;

	if (!grown) {
		f->oom = 1;
		return;
	}
	f->v = grown;
	x = &f->v[f->n++];
	x->severity = sev;
	x->node = node;
	snprintf(x->code, sizeof(x->code), "%s", code);
	snprintf(x->todo, sizeof(x->todo), "%s", todo ? todo : "");
	va_start(ap, what_fmt);
	vsnprintf(x->what, sizeof(x->what), what_fmt, ap);
	va_end(ap);
}

enum smpol_severity smpol_findings_worst(const struct smpol_findings *f)
{
	enum smpol_severity worst = SMPOL_SEV_OK;

	for (int i = 0; i < f->n; i++)
		if (f->v[i].severity > worst)
			worst = f->v[i].severity;
	return worst;
}

int smpol_findings_count(const struct smpol_findings *f, enum smpol_severity sev)
{
	int n = 0;

	for (int i = 0; i < f->n; i++)
		n += f->v[i].severity == sev;
	return n;
}

const char *smpol_severity_name(enum smpol_severity s)
{
	static const char *const names[] = { "ok", "info", "skipped", "warning", "error" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

void smpol_findings_free(struct smpol_findings *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
	f->oom = 0;
}
