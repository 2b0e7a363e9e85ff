#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The control socket never stalls BGP, and a client's answer costs fared a
# slice of memory, not the whole answer (issue 26 §3): BIRD sends 100,000
# routes, with a hold time of 3 s, and a client reads "routes json" slowly
# (about 1.3 MB/s: the answer is about 21 MB, so it takes longer than fared's
# 10 s stall limit and many hold times).
#   - the client gets the whole answer: valid JSON with every one of
#     BIRD's 100,000 routes (old fared cut any client off 10 s after it
#     connected, reading or not)
#   - meanwhile BIRD's sessions stay up (BIRD's own "since" time) and a
#     prefix fared starts to originate on a SIGHUP reaches BIRD before the
#     dump is over: fared ran its sessions between the slices
#   - fared's resident memory (VmRSS, the kernel's count in
#     /proc/PID/status) grows by less than 4 MiB during the dump, for an
#     answer of more than 16 MiB (old fared rendered the whole answer into
#     memory first: it grew by about the answer's size)
#   - a client that asks for the dump and reads nothing is dropped: its
#     socket sees fared's end close, and fared's fd count (/proc/PID/fd) is
#     back where it was
set -uo pipefail
. "$(dirname "$0")/lib.sh"

N=100000
write_fared_conf
# The routes come from 10.100.0.0/15.
sed -i 's|permit 10.202.0.0/16 le 32|permit 10.202.0.0/16 le 32\n\tpermit 10.100.0.0/15 le 32|' \
	"$DIR/fared.conf"
write_bird_conf
sed -i 's/hold time 6;/hold time 3;/' "$DIR/bird.conf"
python3 - "$N" >>"$DIR/bird.conf" <<'EOP'
import sys
n = int(sys.argv[1])
print("protocol static many {\n\tipv4;")
for i in range(n):
	print("\troute 10.%d.%d.%d/32 blackhole;" % (100 + (i >> 16), (i >> 8) & 255, i & 255))
print("}")
EOP
setup_net
start_bird
start_fared
wait_for 30 "fared sees the IPv4 session Established" fared_established $B4
wait_for 30 "fared sees the IPv6 session Established" fared_established $B6
paths() { ctl neighbors json | jq -r ".[] | select(.address == \"$B4\") | .paths"; }
has_all() { [ "$(paths)" -ge $N ]; }
wait_for 120 "fared has BIRD's $N routes" has_all
[ "$(birdc_ show protocols all fared4 | awk '/Hold timer:/ { print $3 }' |
	cut -d/ -f2)" = 3 ] || fail "BIRD's hold time is not 3 s: $(birdc_ show protocols all fared4 | grep -i hold)"
SINCE4=$(bird_since fared4)
SINCE6=$(bird_since fared6)
echo "ok: fared has $(paths) paths from BIRD; hold time 3 s"

# slow_client OUT PACE: "routes json", read 64 KiB per PACE seconds into OUT.
slow_client()
{
	python3 - "$CTL" "$1" "$2" <<'EOP'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"routes json\n")
with open(sys.argv[2], "wb") as out:
	while True:
		b = s.recv(65536)
		if not b:
			break
		out.write(b)
		time.sleep(float(sys.argv[3]))
EOP
}

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$FARED_PID/status"; }
rss0=$(rss)
slow_client "$DIR/dump.json" 0.05 &
client=$!
sleep 2
kill -0 $client 2>/dev/null || fail "the dump was over in 2 s: too fast to prove anything"
# A new originated prefix on a reload, mid-dump.
sed -i 's|^originate 10.203.0.0/24|originate 10.203.7.0/24\noriginate 10.203.0.0/24|' "$DIR/fared.conf"
kill -HUP "$FARED_PID"
max=$rss0
seen_new=
while kill -0 $client 2>/dev/null; do
	r=$(rss)
	[ "$r" -gt "$max" ] && max=$r
	if [ -z "$seen_new" ] && bird_has_route 10.203.7.0/24 fared4; then
		seen_new=1
		kill -0 $client 2>/dev/null && seen_new=during
	fi
	sleep 0.2
done
wait $client || fail "the slow client failed"
size=$(stat -c %s "$DIR/dump.json")
echo "answer: $size bytes; fared's VmRSS $rss0 KiB before, at most $max KiB during"
[ $((max - rss0)) -lt 4096 ] ||
	fail "fared's VmRSS grew by $((max - rss0)) KiB during the dump"
echo "ok: fared's VmRSS grew by $((max - rss0)) KiB for a $((size >> 20)) MiB answer"
[ "$size" -gt $((16 << 20)) ] || fail "the answer is only $size bytes"
got=$(jq '[.[] | select(.prefix | startswith("10.10"))] | length' "$DIR/dump.json") ||
	fail "the answer is not valid JSON (cut off?): ends with $(tail -c 80 "$DIR/dump.json")"
[ "$got" -eq $N ] || fail "the answer has $got of BIRD's $N routes"
echo "ok: the slow client got the whole answer, $got routes"
[ "$seen_new" = during ] ||
	fail "BIRD got fared's new 10.203.7.0/24 only after the dump (or never)"
echo "ok: BIRD got fared's new prefix while the dump went on"
bird_kept_session fared4 "$SINCE4"
bird_kept_session fared6 "$SINCE6"
bird_established fared4 && bird_established fared6 || fail "BIRD's sessions are down"
echo "ok: BIRD's sessions stayed up throughout (hold time 3 s)"

# A client that reads nothing.
fds() { ls "/proc/$FARED_PID/fd" | wc -l; }
fd0=$(fds)
python3 - "$CTL" <<'EOP' &
import select, socket, sys
s = socket.socket(socket.AF_UNIX)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.sendall(b"routes json\n")
p = select.poll()
p.register(s, select.POLLRDHUP)
sys.exit(0 if p.poll(60000) else 1)
EOP
idle=$!
held() { [ "$(fds)" -gt "$fd0" ]; }
released() { [ "$(fds)" -eq "$fd0" ]; }
wait_for 5 "fared holds the idle client" held
r1=$(rss)
wait $idle || fail "fared did not drop a client that read nothing (60 s)"
wait_for 5 "fared's fds back to $fd0" released
echo "ok: the client that read nothing was dropped; VmRSS $r1 KiB while held"
bird_kept_session fared4 "$SINCE4"
