# topology.sh - the guest machine, in one place: the host builds QEMU's arguments
# from it and the guest's checks compute their expectations from it (POSIX sh).
#
# node  CPUs  memory  role
# 0     0-1   1536M   DRAM, socket 0
# 1     2-3   1536M   DRAM, socket 1
# 2     -     1024M   memory-only "CXL", initiator node 0
# 3     -     0       memory-only "CXL", initiator node 1, empty at boot: QEMU puts the
#                     SRAT hotpluggable range on the last node, so it is possible.
VM_NODES="0 1 2 3"
VM_NODE_CPUS="0-1 2-3 - -"
VM_NODE_MEM_MB="1536 1536 1024 0"
VM_NODE_INITIATOR="0 1 0 1"
VM_HOTPLUG_NODE=3

# ACPI SLIT distances, "src dst value" (symmetric).
VM_DISTANCES="0 1 21
0 2 14
0 3 24
1 2 24
1 3 14
2 3 26"

# ACPI HMAT, "initiator target latency_ns bandwidth_MBps"; read and write alike.
# QEMU takes bandwidth in bytes/s with binary suffixes: "224000M" shows up in sysfs as
# 224000 (MB/s), "224G" would show 229376.
VM_HMAT="0 0 80 224000
0 1 140 112000
0 2 250 64000
0 3 320 48000
1 0 140 112000
1 1 80 224000
1 2 320 48000
1 3 250 64000"

# hmat_bw INITIATOR TARGET / hmat_lat INITIATOR TARGET
hmat_bw() { echo "$VM_HMAT" | awk -v i="$1" -v t="$2" '$1 == i && $2 == t { print $4 }'; }
hmat_lat() { echo "$VM_HMAT" | awk -v i="$1" -v t="$2" '$1 == i && $2 == t { print $3 }'; }

# nth N WORDS...: the Nth word (0-based), for the per-node lists above.
nth() { n=$1; shift; shift "$n"; echo "$1"; }
