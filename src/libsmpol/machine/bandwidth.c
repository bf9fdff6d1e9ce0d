/* bandwidth.c - per-pair bandwidth with its source (see bandwidth.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"

static const char *const names[SMPOL_BW_NSOURCES] = {
	[SMPOL_BW_NONE] = "none",
	[SMPOL_BW_SYSFS] = "sysfs-hmat",
	[SMPOL_BW_ACPI] = "acpi-hmat",
	[SMPOL_BW_MEASURED] = "measured",
	[SMPOL_BW_OVERRIDE] = "override",
};

const char *smpol_bw_source_name(enum smpol_bw_source s)
{
	return (unsigned)s < SMPOL_BW_NSOURCES ? names[s] : "unknown";
}

int smpol_bw_source_parse(const char *name, enum smpol_bw_source *out)
{
	for (int i = 0; i < SMPOL_BW_NSOURCES; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum smpol_bw_source)i;
			return 0;
		}
	return -EINVAL;
}

uint32_t smpol_bw_min(uint32_t read, uint32_t write)
{
	if (read && write)
		return read < write ? read : write;
	return read ? read : write;
}

static struct smpol_bw_entry *find(const struct smpol_bw_table *t, int initiator, int target)
{
	for (int i = 0; i < t->nentries; i++)
		if (t->entries[i].initiator == initiator && t->entries[i].target == target)
			return &t->entries[i];
	return NULL;
}

const struct smpol_bw_entry *smpol_bw_lookup(const struct smpol_bw_table *t, int initiator, int target)
{
	return t ? find(t, initiator, target) : NULL;
}

int smpol_bw_put(struct smpol_bw_table *t, const struct smpol_bw_entry *e)
{
	struct smpol_bw_entry *have, *grown;

	if (!e->read && !e->write)
		return 0;
	have = find(t, e->initiator, e->target);
	if (have) {
		if (e->source >= have->source)
			*have = *e;
		return 0;
	}
	grown = realloc(t->entries, (size_t)(t->nentries + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->entries = grown;
	t->entries[t->nentries++] = *e;
	return 0;
}

int smpol_bw_copy(const struct smpol_bw_table *src, struct smpol_bw_table *dst)
{
	memset(dst, 0, sizeof(*dst));
	if (!src->nentries)
		return 0;
	dst->entries = malloc((size_t)src->nentries * sizeof(*dst->entries));
	if (!dst->entries)
		return -ENOMEM;
	memcpy(dst->entries, src->entries, (size_t)src->nentries * sizeof(*dst->entries));
	dst->nentries = src->nentries;
	return 0;
}

void smpol_bw_free(struct smpol_bw_table *t)
{
	free(t->entries);
	t->entries = NULL;
	t->nentries = 0;
}
