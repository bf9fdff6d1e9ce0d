/* acpi_srat.c - proximity domains to node ids, as Linux numbers them (see acpi_srat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acpi_srat.h"
#include "acpi_table.h"
#include "bitmap.h"
#include "error.h"

#define SRAT_ENTRIES 48            /* header (36) + reserved u32 + reserved u64 */
#define ENABLED 0x1
#define HOT_PLUGGABLE 0x2

enum { CPU_APIC = 0, MEMORY = 1, CPU_X2APIC = 2, CPU_GICC = 3, GENERIC_INITIATOR = 5 };

/* An entry's fields: where its PXM and flags are, how long it must be. */
struct layout {
	uint8_t type;
	uint8_t min_len;
	uint8_t pxm_at;
	uint8_t flags_at;
};

static const struct layout layouts[] = {
	{ CPU_APIC, 16, 2, 4 },
	{ MEMORY, 40, 2, 28 },
	{ CPU_X2APIC, 24, 4, 12 },
	{ CPU_GICC, 18, 2, 10 },
	{ GENERIC_INITIATOR, 32, 4, 24 },
};

static const struct layout *layout_of(uint8_t type)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].type == type)
			return &layouts[i];
	return NULL;
}

static uint32_t entry_pxm(const uint8_t *e, const struct layout *l, uint8_t revision)
{
	uint32_t pxm;

	if (l->type == CPU_APIC) {
		/* bits 31:8 exist from SRAT revision 2 on */
		pxm = e[2];
		if (revision >= 2)
			pxm |= (uint32_t)e[9] << 8 | (uint32_t)e[10] << 16 | (uint32_t)e[11] << 24;
		return pxm;
	}
	pxm = smpol_le32(e + l->pxm_at);
	return l->type == MEMORY && revision <= 1 ? pxm & 0xff : pxm;
}

/* acpi_map_pxm_to_node: a PXM seen for the first time takes the lowest unused node. */
static int map_pxm(struct smpol_srat *s, uint32_t pxm)
{
	struct smpol_srat_domain *grown;

	if (smpol_srat_node(s, pxm) >= 0)
		return 0;
	if (s->ndomains >= SMPOL_MAX_NODES)
		return -E2BIG;
	grown = realloc(s->domains, (size_t)(s->ndomains + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->domains = grown;
	/* ids are handed out in order and never freed: the lowest unused is the count */
	s->domains[s->ndomains] = (struct smpol_srat_domain){ pxm, s->ndomains };
	s->ndomains++;
	return 0;
}

static int add_range(struct smpol_srat *s, const uint8_t *e, uint32_t pxm)
{
	struct smpol_srat_range *grown = realloc(s->ranges, (size_t)(s->nranges + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	s->ranges = grown;
	s->ranges[s->nranges++] = (struct smpol_srat_range){ smpol_le64(e + 8), smpol_le64(e + 16), pxm,
							     (smpol_le32(e + 28) & HOT_PLUGGABLE) != 0 };
	return 0;
}

/* One pass over the entries: memory ones when `memory`, the processor-like others
 * otherwise. */
static int pass(const uint8_t *buf, size_t len, bool memory, struct smpol_srat *s, char *err, size_t errlen)
{
	uint8_t revision = smpol_acpi_table_revision(buf);

	for (size_t off = SRAT_ENTRIES; off < len;) {
		const struct layout *l;
		uint8_t elen;
		uint32_t pxm;
		int rc = 0;

		if (len - off < 2 || (elen = buf[off + 1]) < 2 || elen > len - off)
			return smpol_fail(err, errlen, EBADMSG, "the SRAT entry at offset %zu runs past the table "
					  "or has length %u", off, len - off < 2 ? 0 : buf[off + 1]);
		l = layout_of(buf[off]);
		if (!l || (l->type == MEMORY) != memory) {
			off += elen;
			continue;
		}
		if (elen < l->min_len)
			return smpol_fail(err, errlen, EBADMSG, "the SRAT entry of type %u at offset %zu has length "
					  "%u, under its %u", l->type, off, elen, l->min_len);
		if (smpol_le32(buf + off + l->flags_at) & ENABLED) {
			pxm = entry_pxm(buf + off, l, revision);
			rc = map_pxm(s, pxm);
			if (!rc && memory)
				rc = add_range(s, buf + off, pxm);
		}
		if (rc == -E2BIG)
			return smpol_fail(err, errlen, E2BIG, "the SRAT names more than %d proximity domains",
					  SMPOL_MAX_NODES);
		if (rc)
			return smpol_fail(err, errlen, ENOMEM, "out of memory");
		off += elen;
	}
	return 0;
}

int smpol_srat_parse(const uint8_t *buf, size_t len, struct smpol_srat *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = smpol_acpi_table_check(buf, len, "SRAT", SRAT_ENTRIES, err, errlen);
	if (!rc)
		rc = pass(buf, len, false, out, err, errlen);
	if (!rc)
		rc = pass(buf, len, true, out, err, errlen);
	if (rc)
		smpol_srat_free(out);
	return rc;
}

void smpol_srat_free(struct smpol_srat *s)
{
	free(s->domains);
	free(s->ranges);
	memset(s, 0, sizeof(*s));
}

int smpol_srat_node(const struct smpol_srat *s, uint32_t pxm)
{
	for (int i = 0; i < s->ndomains; i++)
		if (s->domains[i].pxm == pxm)
			return s->domains[i].node;
	return -1;
}

int64_t smpol_srat_pxm_of_address(const struct smpol_srat *s, uint64_t addr)
{
	for (int i = 0; i < s->nranges; i++)
		if (addr >= s->ranges[i].base && addr - s->ranges[i].base < s->ranges[i].length)
			return s->ranges[i].pxm;
	return -1;
}
