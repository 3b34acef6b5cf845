#!/bin/bash
# The phone's developer tools on the real guest, from one snapshot of a
# booted phone with a NIC (so neither test waits for a boot again):
#  - gdb: gdb-multiarch in batch mode attaches to --gdb, breaks in the
#    kernel's timer interrupt handler, reads the registers, single-steps
#    and checks that the pc moved on;
#  - pcap: the guest test panlab-nettest fetches a file from the content
#    server; tshark must read the capture and find the TCP handshake, the
#    HTTP GET and the 200 response carrying the file.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
phone=$build/emu/panlab-phone
work=$build/emu/tools-test.$$
qpid=""
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
for f in "$phone" "$build/kernel/arch/arm/boot/zImage" "$build/kernel/System.map" \
	"$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz"; do
	[ -s "$f" ] || { echo "test_phone_tools: $f is missing; run 'make build'" >&2; exit 1; }
done
for tool in gdb-multiarch tshark; do
	command -v "$tool" > /dev/null || { echo "test_phone_tools: $tool is not installed (scripts/install-deps.sh)" >&2; exit 1; }
done
mkdir -p "$work/content"
cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$work/initrd.gz"
echo "panlab content $$" > "$work/content/hello.txt"

echo "test_phone_tools: booting to the snapshot point"
"$phone" --kernel "$build/kernel/arch/arm/boot/zImage" --initrd "$work/initrd.gz" \
	--append "console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.wait_config=1" \
	--console "$work/boot-console.log" --net user --snapshot-save "$work/snap.bin" \
	2> "$work/boot.err" || { cat "$work/boot.err" >&2; exit 1; }
config="panlab.trace=0 panlab.test=panlab-nettest"

# ---- gdb ----
irq=$(awk '$3 == "gic_handle_irq" { print $1; exit }' "$build/kernel/System.map")
[ -n "$irq" ] || { echo "test_phone_tools: no gic_handle_irq in System.map" >&2; exit 1; }
# A port of our own; another test may be using the one next to it.
port=$((20000 + $$ % 20000))
"$phone" --snapshot-load "$work/snap.bin" --config "$config" --net user \
	--console "$work/gdb-console.log" --gdb "$port" 2> "$work/gdb-phone.err" &
qpid=$!
# The stub listens once the snapshot is restored; gdb retries until then.
gdb-multiarch -nx -batch -ex "set architecture arm" \
	-ex "set tcp connect-timeout 30" -ex "target remote :$port" \
	-ex "break *0x$irq" -ex continue -ex "info registers pc cpsr" \
	-ex stepi -ex "info registers pc" -ex kill > "$work/gdb.out" 2>&1 || true
# gdb's kill ends the phone; if gdb never connected, the phone still waits.
kill "$qpid" 2>/dev/null || true
wait "$qpid" || true
qpid=""
pcs=$(grep -o '^pc  *0x[0-9a-f]*' "$work/gdb.out" | awk '{ print $2 }')
first=$(echo "$pcs" | sed -n 1p) second=$(echo "$pcs" | sed -n 2p)
if [ "$first" != "0x$irq" ] || [ -z "$second" ] || [ "$second" = "$first" ]; then
	echo "test_phone_tools: gdb did not stop at gic_handle_irq (0x$irq) and step on:" >&2
	cat "$work/gdb.out" "$work/gdb-phone.err" >&2
	exit 1
fi
grep -q '^cpsr  *0x[0-9a-f]*' "$work/gdb.out" || { echo "test_phone_tools: gdb read no cpsr" >&2; cat "$work/gdb.out" >&2; exit 1; }
echo "test_phone_tools: gdb stopped at gic_handle_irq ($first) and stepped to $second"

# ---- pcap ----
"$phone" --snapshot-load "$work/snap.bin" --config "$config" --net user \
	--pcap "$work/net.pcap" --content-dir "$work/content" \
	--console "$work/net-console.log" --max-virtual-s 60 2> "$work/net.err" ||
	{ cat "$work/net.err" >&2; tail -n 5 "$work/net-console.log" >&2; exit 1; }
grep -aq "panlab-nettest: got panlab content $$" "$work/net-console.log" ||
	{ echo "test_phone_tools: the guest did not fetch the file:" >&2; tail -n 5 "$work/net-console.log" >&2; exit 1; }
count() { tshark -r "$work/net.pcap" -Y "$1" 2> "$work/tshark.err" | wc -l; }
syn=$(count 'tcp.flags.syn == 1 && tcp.port == 80')
get=$(count 'http.request.method == "GET" && http.request.uri == "/hello.txt"')
ok=$(count 'http.response.code == 200')
if [ "$syn" -lt 2 ] || [ "$get" != 1 ] || [ "$ok" != 1 ]; then
	echo "test_phone_tools: the capture holds $syn SYN, $get GET /hello.txt and $ok 200 OK frames, expected >= 2, 1, 1" >&2
	cat "$work/tshark.err" >&2
	tshark -r "$work/net.pcap" 2>&1 | head -n 20 >&2
	exit 1
fi
echo "test_phone_tools: tshark reads $(tshark -r "$work/net.pcap" 2>/dev/null | wc -l) frames: $syn SYN, GET /hello.txt, 200 OK"
echo "test_phone_tools: ok"
