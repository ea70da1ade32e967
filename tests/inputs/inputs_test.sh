#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hostile inputs (tests/inputs/CMakeLists.txt).
#   inputs_test.sh HPM WORKDIR SCENARIO
set -u
hpm=$1 work=$2 scenario=$3
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/../common/scenario.sh"

# within HPM CMD...: run hpm with a time limit and a memory limit (1 GiB of
# address space under ASan is too little: the limit is only set natively)
within() {
    timeout 20 "$hpm" "$@" >out 2>err
    rc=$?
    [ $rc -eq 124 ] && fail "hpm $* hung"
    [ $rc -ge 128 ] && fail "hpm $* died of signal $((rc - 128))"
    return 0
}

# start_serve OPTIONS...: hpm serve on a free port in the background
# ($sv; with $serve_nofile descriptors when set), its URL in $url and port
# in $port; stop_serve ends it
start_serve() {
    (ulimit -n "${serve_nofile:-$(ulimit -n)}" && exec "$hpm" serve --port 0 "$@" \
        >serve.out 2>serve.err) &
    sv=$!
    i=0
    while [ $i -lt 50 ] && ! grep -q http serve.out; do sleep 0.1; i=$((i + 1)); done
    url=$(awk '{ print $3 }' serve.out)
    [ -n "$url" ] || { kill $sv; fail "hpm serve did not start: $(cat serve.err)"; }
    port=${url##*:}
    port=${port%%/*}
}
stop_serve() {
    kill $sv
    wait $sv
}
# scrape_beside WHAT: once the script holding connections ($hp) says
# held.ready, a scrape gets the exposition; then both end
scrape_beside() {
    i=0
    while [ $i -lt 200 ] && [ ! -e held.ready ]; do sleep 0.1; i=$((i + 1)); done
    code=$(curl -s --max-time 5 -o scrape.txt -w '%{http_code}' "$url")
    wait $hp
    stop_serve
    [ "$code" = 200 ] || fail "a scrape beside $1 got '$code' ($(cat held.txt))"
    grep -q "^hpm_processes " scrape.txt || fail "the scrape is not the exposition"
}

case $scenario in
files)
    mkfifo fifo
    truncate -s 100G sparse
    echo "no profile at all" >text
    for cmd in "report --folded" annotate; do
        within $cmd /dev/zero
        expect_rc 1
        expect_err "cannot read /dev/zero: not a regular file"
        within $cmd fifo
        expect_rc 1
        expect_err "cannot read fifo: not a regular file"
        within $cmd sparse
        expect_rc 1
        expect_err "sparse: .*more than"
        within $cmd text
        expect_rc 1
        expect_err "text: not a"
    done
    within count --from-output /dev/zero
    [ $rc -ne 0 ] || fail "count --from-output /dev/zero succeeded"
    expect_err "/dev/zero: not a regular file"
    within count --from-output sparse
    [ $rc -ne 0 ] || fail "count --from-output of a sparse file succeeded"
    within count --from-output text
    expect_err "text: not an output file of the virtual PMU"
    within count --machine ./fifo -- true
    expect_rc 2
    expect_err "fifo: not a regular file"
    within count --machine /dev/zero -- true
    expect_rc 2
    within diff fifo text
    expect_rc 2
    expect_err "fifo: not a regular file"
    # hpm record writes perf.data, whose header is rewritten at its end:
    # a FIFO (or a device) is refused before the run
    within record -e INSTRUCTIONS:1000 -o fifo -- true
    expect_rc 2
    expect_err "cannot write the recording to fifo: not a regular file"
    # a profile whose source file names are a device, a FIFO and a huge
    # sparse file: annotated without source, with a note, promptly
    cat >p.prof <<EOT
# callgrind format
version: 1
creator: hand
events: INSTRUCTIONS
fl=/dev/zero
fn=a
1 100
fl=$dir/fifo
fn=b
1 50
fl=$dir/sparse
fn=c
1 25
EOT
    within annotate p.prof
    expect_rc 0
    expect_out "source not shown: /dev/zero: not a regular file"
    expect_out "source not shown: $dir/fifo: not a regular file"
    expect_out "source not shown: $dir/sparse: .*more than"
    # a profile's command and creator lines (someone else's file) reach
    # the terminal without their control characters, with --loops too
    esc=$(printf '\033') bel=$(printf '\007')
    printf '# callgrind format\nversion: 1\ncreator: x%s[2J\ncmd: ./prog %s]0;TITLE%s\npositions: instr line\nevents: INSTRUCTIONS\nfl=a.c\nfn=f\n0x10 1 5\n' \
        "$esc" "$esc" "$bel" >esc.prof
    for opt in --source=no --loops; do
        within annotate $opt esc.prof
        expect_rc 0
        grep -q "$esc" out && fail "annotate $opt: an escape character reached the terminal"
        grep -q "$bel" out && fail "annotate $opt: a bell character reached the terminal"
        expect_out "^command:   ./prog ?\]0;TITLE?$"
        [ $opt = --loops ] || expect_out "^creator:   x?\[2J$"
    done
    ;;
plot)
    # names reach gnuplot only when they cannot end its command: a newline
    # in a series file's name, in -o, or in an event name would make the
    # rest a gnuplot command, and gnuplot's system() a shell command
    printf 'time_s,event,delta,rate_per_s,total\n0.1,INSTRUCTIONS,100,1000,100\n0.2,INSTRUCTIONS,100,1000,200\n' >s.csv
    within plot s.csv -o ok.svg
    expect_rc 0
    xmllint --noout ok.svg || fail "ok.svg is not well-formed"
    bad=$(printf 's\nsystem "touch PWNED"\n.csv')
    cp s.csv "$bad"
    within plot "$bad" -o x.svg
    expect_rc 2
    expect_err "control characters"
    within plot s.csv -o "$(printf 'x\nsystem "touch PWNED"\n.svg')"
    expect_rc 2
    printf '0.1,INS\rsystem("touch PWNED"),100,1000,100\n' >ev.csv
    within plot ev.csv -o y.svg
    expect_rc 2
    expect_err "an event name with control characters"
    [ -e PWNED ] && fail "a name made gnuplot run a command"
    mkfifo fifo
    within plot fifo -o z.svg
    expect_rc 1
    expect_err "fifo: not a regular file"
    ;;
serve)
    # 1100 half-open requests from one client (127.0.0.2) took every slot of
    # hpm serve (select() stops at 1024) and scrapes were reset while they
    # were held: now one address holds at most --per-client connections,
    # an idle one is closed after --timeout seconds, and a scrape from
    # another address succeeds meanwhile
    start_serve --timeout 2
    /usr/bin/python3 - "$port" >held.txt 2>&1 <<'EOT' &
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
port = int(sys.argv[1])
held = []
for i in range(1100):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    try:
        s.connect(("127.0.0.1", port))
        s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
        held.append(s)
    except OSError:
        s.close()
print("opened", len(held), flush=True)
open("held.ready", "w").close()
time.sleep(5)
# the server closed the idle ones (--timeout 2) or refused them
alive = 0
for s in held:
    s.setblocking(False)
    try:
        alive += s.recv(1) != b""
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
print("alive after the timeout", alive, flush=True)
EOT
    hp=$!
    scrape_beside "1100 idle connections"
    grep -q "alive after the timeout 0" held.txt || fail "idle connections were not closed: $(cat held.txt)"
    ;;
serve_trickle)
    # 16 connections from 127.0.0.1 (where a local Prometheus scrapes
    # from) sending a header byte every second, under the idle --timeout:
    # they filled --per-client and the scrape was refused. Now the scrape
    # takes the oldest one's place, and each of them is closed once its
    # request has not arrived whole within --deadline (2 s), however it
    # trickles
    start_serve --timeout 10 --deadline 2
    /usr/bin/python3 - "$port" >held.txt 2>&1 <<'EOT' &
import socket, sys, time
port = int(sys.argv[1])
held = []
for i in range(16):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.send(b"G")
    held.append(s)
open("held.ready", "w").close()
closed, begun = set(), time.time()
while len(closed) < len(held) and time.time() - begun < 60:
    time.sleep(1)
    for k, s in enumerate(held):
        if k in closed:
            continue
        try:
            s.send(b"E")  # one more byte of the request line, every second
        except OSError:
            closed.add(k)
print("closed %d of %d" % (len(closed), len(held)), flush=True)
EOT
    hp=$!
    scrape_beside "16 trickling connections from its address"
    grep -q "closed 16 of 16" held.txt || fail "trickling connections were not closed: $(cat held.txt)"
    ;;
serve_many)
    # 1600 trickling connections from 100 loopback addresses (16 each,
    # within --per-client) filled the server's 1024 descriptors: now they
    # are held to a cap under the descriptor limit, the newest taking the
    # oldest's place, and a scrape gets in
    serve_nofile=1024
    start_serve --deadline 30
    /usr/bin/python3 - "$port" >held.txt 2>&1 <<'EOT' &
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
port = int(sys.argv[1])
held, refused = [], 0
for a in range(2, 102):
    for i in range(16):
        s = socket.socket()
        s.settimeout(5)
        s.bind(("127.0.0.%d" % a, 0))
        try:
            s.connect(("127.0.0.1", port))
            s.send(b"GET /metrics HTTP/1.1\r\n")  # never finished
            held.append(s)
        except OSError:
            refused += 1
            s.close()
print("opened", len(held), "refused", refused, flush=True)
open("held.ready", "w").close()
time.sleep(12)  # held past the scrape's 5 s
EOT
    hp=$!
    scrape_beside "1600 connections from 100 addresses"
    # past the server's descriptors: the attack was made
    opened=$(awk '$1 == "opened" { print $2 }' held.txt)
    [ "${opened:-0}" -gt 1024 ] || fail "only '${opened:-}' connections were opened: $(cat held.txt)"
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
