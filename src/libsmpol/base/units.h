/* units.h - memory sizes as people type them ("4G", "512M") and as we print them. */
#ifndef SMPOL_UNITS_H
#define SMPOL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * smpol_parse_size - parse a size into KiB. Digits, then at most one suffix
 * K, M, G or T (binary, either case, as Slurm's --mem); no suffix means MiB, as in
 * Slurm. Nothing else is accepted: no sign, space, fraction or "B".
 * Returns 0, -EINVAL (with a sentence quoting the text) or -ERANGE on overflow.
 */
int smpol_parse_size(const char *text, uint64_t *kib, char *err, size_t errlen);

/* smpol_format_size_exact - the size as smpol_parse_size reads it back: the largest
 * suffix that divides it ("1536M", "64M", "5K"). 0 or -ENOSPC. */
int smpol_format_size_exact(uint64_t kib, char *buf, size_t len);

/* smpol_format_size - "1.5 GiB", "512 MiB", "12 KiB": the largest binary unit that
 * keeps >= 1, named as binary. */
int smpol_format_size(uint64_t kib, char *buf, size_t len);

#endif
