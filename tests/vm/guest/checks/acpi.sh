#!/bin/sh
# vm-boot: shared
# vm-timeout: 60
# The raw ACPI tables (HMAT, SRAT) as the guest kernel sees them: they hold the whole
# initiator x target matrix QEMU was given (topology.sh). Each table is printed on the
# console between "@@TABLE NAME" and "@@END-TABLE NAME" lines (base64), which
# tests/fixtures/acpi/capture.sh turns into fixtures.
. /checks/lib.sh

T=/sys/firmware/acpi/tables
for t in HMAT SRAT; do
	if [ ! -r $T/$t ]; then
		fail "table-$t" "$T/$t is missing or unreadable"
		continue
	fi
	echo "@@TABLE $t"
	base64 <$T/$t
	echo "@@END-TABLE $t"
	pass "table-$t"
done
# Which memory blocks each node holds: what the PXM-to-node mapping is verified with.
echo "@@BLOCKS size $(cat /sys/devices/system/memory/block_size_bytes)"
for d in /sys/devices/system/node/node[0-9]*; do
	echo "@@BLOCKS ${d##*/} $(cd "$d" && ls -d memory[0-9]* 2>/dev/null | tr '\n' ' ')"
done
