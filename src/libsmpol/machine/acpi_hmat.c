/* acpi_hmat.c - bandwidth pairs from the raw HMAT (see acpi_hmat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acpi_hmat.h"
#include "array.h"
#include "acpi_table.h"
#include "error.h"

#define HMAT_STRUCTS 40            /* header (36) + reserved (4) */
#define STRUCT_HEADER 8            /* type u16, reserved u16, length u32 */
#define LOCALITY 1                 /* System Locality Latency and Bandwidth Information */
#define LOCALITY_FIXED 32          /* up to and including the entry base unit */
#define HIERARCHY_MEMORY 0
enum { ACCESS_BW = 3, READ_BW = 4, WRITE_BW = 5 };

/* As Linux's hmat_normalize: 0 when unknown or too large. */
static uint32_t normalize(uint16_t entry, uint64_t base, uint8_t revision)
{
	uint64_t v;

	if (!entry || entry == 0xffff || base > UINT32_MAX / entry)
		return 0;
	v = entry * base;
	if (revision == 1)
		v = v < 10 ? 0 : (v + 9) / 10;
	return (uint32_t)v;
}

/* Every number as read, in table order; merged into pairs once all are read. */
struct raw {
	struct smpol_hmat_pair pair;
	size_t seq;
};

struct raw_list {
	struct raw *v;
	size_t n, cap;
};

static int append(struct raw_list *l, uint32_t init, uint32_t target, uint32_t read, uint32_t write)
{
	struct raw *grown = smpol_array_room(l->v, &l->cap, l->n, sizeof(*l->v), 64);

	if (!grown)
		return -ENOMEM;
	l->v = grown;
	l->v[l->n] = (struct raw){ { init, target, read, write }, l->n };
	l->n++;
	return 0;
}

static int by_pair(const void *a, const void *b)
{
	const struct smpol_hmat_pair *x = a, *y = b;

	if (x->initiator_pxm != y->initiator_pxm)
		return x->initiator_pxm < y->initiator_pxm ? -1 : 1;
	return x->target_pxm < y->target_pxm ? -1 : x->target_pxm > y->target_pxm;
}

static int by_pair_then_order(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c = by_pair(&x->pair, &y->pair);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One pair per (initiator, target); a later structure of the same data type wins. */
static int merge(struct raw_list *l, struct smpol_hmat *h)
{
	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), by_pair_then_order);
	h->pairs = malloc(l->n * sizeof(*h->pairs));
	if (!h->pairs)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		const struct smpol_hmat_pair *r = &l->v[i].pair;
		struct smpol_hmat_pair *p;

		if (!h->npairs || by_pair(&h->pairs[h->npairs - 1], r)) {
			h->pairs[h->npairs++] = *r;
			continue;
		}
		p = &h->pairs[h->npairs - 1];
		if (r->read_bw)
			p->read_bw = r->read_bw;
		if (r->write_bw)
			p->write_bw = r->write_bw;
	}
	return 0;
}

/* One locality structure of `len` bytes at s (len >= LOCALITY_FIXED, checked). */
static int parse_locality(struct raw_list *l, uint8_t revision, const uint8_t *s, uint32_t len, size_t offset,
			  char *err, size_t errlen)
{
	uint8_t hierarchy = s[8] & 0x0f, type = s[9];
	uint64_t m = smpol_le32(s + 12), n = smpol_le32(s + 16), base = smpol_le64(s + 24);
	const uint8_t *inits = s + LOCALITY_FIXED, *targets, *entries;

	/* bounded first, so the product below cannot overflow */
	if (m > len / 4 || n > len / 4 || LOCALITY_FIXED + 4 * (m + n) + 2 * m * n > len)
		return smpol_fail(err, errlen, EBADMSG, "the HMAT locality structure at offset %zu lists %llu "
				  "initiators and %llu targets, more than its %u bytes hold", offset,
				  (unsigned long long)m, (unsigned long long)n, len);
	if (hierarchy != HIERARCHY_MEMORY || type < ACCESS_BW || type > WRITE_BW)
		return 0;   /* a cache level, or a latency */
	targets = inits + 4 * m;
	entries = targets + 4 * n;
	for (uint64_t i = 0; i < m; i++) {
		for (uint64_t t = 0; t < n; t++) {
			uint32_t v = normalize(smpol_le16(entries + 2 * (i * n + t)), base, revision);

			if (v && append(l, smpol_le32(inits + 4 * i), smpol_le32(targets + 4 * t),
					type != WRITE_BW ? v : 0, type != READ_BW ? v : 0))
				return smpol_fail(err, errlen, ENOMEM, "out of memory");
		}
	}
	return 0;
}

int smpol_hmat_parse(const uint8_t *buf, size_t len, struct smpol_hmat *out, char *err, size_t errlen)
{
	struct raw_list raw = { 0 };
	size_t off = HMAT_STRUCTS;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = smpol_acpi_table_check(buf, len, "HMAT", HMAT_STRUCTS, err, errlen);
	if (rc)
		return rc;
	out->revision = smpol_acpi_table_revision(buf);
	if (out->revision != 1 && out->revision != 2)
		return smpol_fail(err, errlen, EPROTONOSUPPORT, "HMAT revision %u is not one this reader knows (1, 2)",
				  out->revision);
	while (off < len) {
		uint32_t slen = len - off < STRUCT_HEADER ? 0 : smpol_le32(buf + off + 4);
		uint16_t type = len - off < STRUCT_HEADER ? 0 : smpol_le16(buf + off);

		if (len - off < STRUCT_HEADER)
			rc = smpol_fail(err, errlen, EBADMSG, "the HMAT ends inside a structure header at offset %zu", off);
		else if (slen < STRUCT_HEADER || slen > len - off)
			rc = smpol_fail(err, errlen, EBADMSG, "the HMAT structure at offset %zu has length %u, outside "
					"the %zu bytes left", off, slen, len - off);
		else if (type == LOCALITY && slen < LOCALITY_FIXED)
			rc = smpol_fail(err, errlen, EBADMSG, "the HMAT locality structure at offset %zu has length %u, "
					"under the %d its fields take", off, slen, LOCALITY_FIXED);
		else if (type == LOCALITY)
			rc = parse_locality(&raw, out->revision, buf + off, slen, off, err, errlen);
		if (rc)
			break;
		off += slen;
	}
	if (!rc && merge(&raw, out))
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory");
	free(raw.v);
	if (rc)
		smpol_hmat_free(out);
	return rc;
}

void smpol_hmat_free(struct smpol_hmat *h)
{
	free(h->pairs);
	h->pairs = NULL;
	h->npairs = 0;
}

const struct smpol_hmat_pair *smpol_hmat_find(const struct smpol_hmat *h, uint32_t initiator_pxm,
					      uint32_t target_pxm)
{
	struct smpol_hmat_pair key = { initiator_pxm, target_pxm, 0, 0 };

	return h->npairs ? bsearch(&key, h->pairs, (size_t)h->npairs, sizeof(key), by_pair) : NULL;
}
