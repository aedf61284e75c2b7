#!/usr/bin/env bash
# The two-site testbed: sites of nodes on one machine, each node a network namespace, joined inside a site
# by a fast bridge and across sites by a WAN with a fixed round-trip time (user-space delay lines between
# TAP devices) and a per-node rate (tbf on the node's WAN egress). Root only.
#
# usage: testbed.sh up     [--sites N] [--nodes N] [--mbit M] [--rtt MS] [--override NODE=MBIT]...
#                          [--queue-bytes B] [--fifo-priority N] [--prefix P]
#        testbed.sh down   [--prefix P]
#        testbed.sh status [--prefix P]
#        testbed.sh rtt    [--prefix P] [--count N] FROM TO     TCP round trips FROM -> TO (node names): median,
#                                                              min, max (echo and client under SCHED_FIFO 5)
#
#   --sites N         sites, 2..26, named a, b, c, ...                                   (default 2)
#   --nodes N         nodes per site, named <site><index>: a0, a1, ..., b0, ...         (default 2)
#   --mbit M          each node's inter-site egress rate, Mbit/s                        (default 100)
#   --rtt MS          round-trip time between two nodes of different sites, ms          (default 50)
#   --override N=M    node N's inter-site egress rate instead, Mbit/s (repeatable)      (e.g. a2=10)
#   --queue-bytes B   bytes each delay line holds per direction before it drops         (default 33554432)
#   --fifo-priority N the delay lines' SCHED_FIFO priority, 0 for the normal scheduler  (default 10)
#                     (a busy machine then adds no scheduling delay to the wire's)
#   --prefix P        name prefix of every namespace, [a-z][a-z0-9]{0,11}               (default js)
#
# What up builds (s = site index from 0: a=0, b=1, ...; n = node index in its site; g = s*nodes+n):
#   namespace P-<node>   the node: lan0 = 10.80.<s>.<n+1>/24 (its site's LAN, unshaped),
#                        wan0 = 10.81.<g>.2/30 (the WAN; tbf at the node's rate on its egress only),
#                        route 10.81.0.0/16 via 10.81.<g>.1
#   namespace P-site-<letter> the site's bridge br0, one veth port per node
#   namespace P-wan      the WAN router (ip_forward=1): TAP <node> = 10.81.<g>.1/30 per node
#   per node a delay line (a process in the root namespace, holding no address there) between the node's
#   wan0 and its TAP in P-wan, holding every frame RTT/4 each way: a path between two sites crosses two.
# Reach a node from its own site at its LAN address, from another site at its WAN address. up prints
# one line per node: "node <name> namespace <ns> lan <address> wan <address> mbit <rate>".
#
# up first removes whatever a previous run with the same prefix left (its delay lines from their pid
# files, processes inside its namespaces, the namespaces); down removes everything and checks it is gone.
# State (pid files; each delay line's log, kept after down with its counters) under
# $JETSTREAM_TESTBED_DIR/<prefix>, default /tmp/jetstream-testbed;
# the compiled delay line under $JETSTREAM_TESTBED_DIR/bin, rebuilt when delayline.c changes.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE=${JETSTREAM_TESTBED_DIR:-/tmp/jetstream-testbed}
LAN_NET=10.80
WAN_NET=10.81

die() { echo "testbed: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
COMMAND=$1; shift
SITES=2; NODES=2; MBIT=100; RTT=50; QUEUE_BYTES=33554432; PREFIX=js; COUNT=20; FIFO_PRIORITY=10
declare -A OVERRIDES=()
ARGS=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --sites) SITES=${2:?}; shift 2 ;;
    --nodes) NODES=${2:?}; shift 2 ;;
    --mbit) MBIT=${2:?}; shift 2 ;;
    --rtt) RTT=${2:?}; shift 2 ;;
    --override) [[ ${2:-} =~ ^([a-z][0-9]+)=([0-9]+)$ ]] || die "--override ${2:-}: not NODE=MBIT (e.g. a2=10)"
                OVERRIDES[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
    --queue-bytes) QUEUE_BYTES=${2:?}; shift 2 ;;
    --fifo-priority) FIFO_PRIORITY=${2:?}; shift 2 ;;
    --prefix) PREFIX=${2:?}; shift 2 ;;
    --count) COUNT=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --*) die "unknown option $1" ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

[[ $PREFIX =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "--prefix $PREFIX: not [a-z][a-z0-9]{0,11}"
STATE=$BASE/$PREFIX
[[ $(id -u) == 0 ]] || die "needs root (network namespaces, TAP devices, tc)"

letter() { printf "\\$(printf '%03o' $((97 + $1)))"; }
site_index() { echo $(( $(printf '%d' "'${1:0:1}") - 97 )); }

# The namespaces of this prefix that exist now.
namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}-(wan|site-[a-z]|[a-z][0-9]+)$" || true; }

# The pids of the running delay lines of this prefix (whatever their pid files say).
delay_line_pids() {
  local f cmd
  for f in /proc/[0-9]*/cmdline; do
    cmd=$(tr '\0' ' ' 2>/dev/null < "$f") || continue
    if [[ $cmd == */delayline-*" --netns-a /var/run/netns/${PREFIX}-"* ]]; then f=${f#/proc/}; echo "${f%/cmdline}"; fi
  done
}

# Stops the delay lines named in this prefix's pid files (checking each pid is a delay line of this prefix).
stop_delay_lines() {
  local f pid pids=()
  shopt -s nullglob
  for f in "$STATE"/*.pid; do
    pid=$(cat "$f" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && [[ $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) == */delayline-*" --netns-a /var/run/netns/${PREFIX}-"* ]]; then
      kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    fi
    rm -f "$f"
  done
  shopt -u nullglob
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do [[ -e /proc/$pid ]] || break; sleep 0.02; done
    [[ -e /proc/$pid ]] && kill -KILL "$pid" 2>/dev/null || true
  done
}

teardown() {
  stop_delay_lines
  local ns pid
  for ns in $(namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  for ns in $(namespaces); do
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -f "$STATE/spec" # the delay lines' logs stay, with the counters they print on exit, until the next up
}

# Fails if anything of this prefix is left: namespaces, delay lines, interfaces in this namespace.
verify_gone() {
  local left
  left=$(namespaces)
  [[ -z $left ]] || die "namespaces left: $left"
  for _ in $(seq 100); do
    left=$(delay_line_pids)
    [[ -z $left ]] && break; sleep 0.02
  done
  [[ -z $left ]] || die "delay lines left: $left"
  left=$(ip -o link show | awk -F': ' '{print $2}' | grep -E "^${PREFIX}-" || true)
  [[ -z $left ]] || die "interfaces left in the root namespace: $left"
}

# The delay line, compiled into $BASE/bin, named by the hash of its source (rebuilt when it changes).
delay_line_binary() {
  local src=$HERE/delayline.c hash bin
  [[ -f $src ]] || die "$src missing"
  hash=$(sha256sum "$src" | cut -c1-16)
  bin=$BASE/bin/delayline-$hash
  if [[ ! -x $bin ]]; then
    command -v gcc >/dev/null || die "gcc not found (needed to build the delay line)"
    mkdir -p "$BASE/bin"
    gcc -O2 -Wall -Wextra -o "$bin.$$" "$src" || die "compiling $src failed"
    mv -f "$bin.$$" "$bin"
  fi
  echo "$bin"
}

inside() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

new_namespace() {
  ip netns add "$1"
  inside "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$1" link set lo up
}

up() {
  [[ ${#ARGS[@]} -eq 0 ]] || die "up takes no arguments: ${ARGS[*]}"
  [[ $SITES =~ ^[0-9]+$ && $SITES -ge 2 && $SITES -le 26 ]] || die "--sites $SITES: not in 2..26"
  [[ $NODES =~ ^[0-9]+$ && $NODES -ge 1 ]] || die "--nodes $NODES: not a positive integer"
  (( SITES * NODES <= 250 )) || die "--sites x --nodes = $((SITES * NODES)): above 250"
  [[ $MBIT =~ ^[0-9]+$ && $MBIT -ge 1 ]] || die "--mbit $MBIT: not a positive integer"
  [[ $RTT =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--rtt $RTT: not a number of milliseconds"
  [[ $QUEUE_BYTES =~ ^[0-9]+$ ]] || die "--queue-bytes $QUEUE_BYTES: not an integer"
  [[ $FIFO_PRIORITY =~ ^[0-9]+$ && $FIFO_PRIORITY -le 99 ]] || die "--fifo-priority $FIFO_PRIORITY: not in 0..99"
  local node
  for node in "${!OVERRIDES[@]}"; do
    local s=$(site_index "$node") n=${node:1}
    (( s < SITES && n < NODES )) || die "--override $node: no such node"
    (( OVERRIDES[$node] >= 1 )) || die "--override $node=${OVERRIDES[$node]}: rate below 1 Mbit/s"
  done
  local delay_us
  delay_us=$(awk -v rtt="$RTT" 'BEGIN { printf "%d", rtt * 1000 / 4 + 0.5 }')
  local bin
  bin=$(delay_line_binary)

  teardown
  rm -f "$STATE"/*.log
  mkdir -p "$STATE"
  trap 'echo "testbed: up failed, removing what it built" >&2; teardown' ERR

  local wan=$PREFIX-wan
  new_namespace "$wan"
  inside "$wan" sysctl -qw net.ipv4.ip_forward=1
  local s n g L site ns name rate lines=()
  for ((s = 0; s < SITES; s++)); do
    L=$(letter $s); site=$PREFIX-site-$L
    new_namespace "$site"
    ip -n "$site" link add br0 type bridge
    ip -n "$site" link set br0 up
    for ((n = 0; n < NODES; n++)); do
      g=$((s * NODES + n)); name=$L$n; ns=$PREFIX-$name
      rate=${OVERRIDES[$name]:-$MBIT}
      new_namespace "$ns"
      # LAN: a veth from the node to its site's bridge.
      ip -n "$ns" link add lan0 type veth peer name "$name" netns "$site"
      ip -n "$site" link set "$name" master br0 up
      ip -n "$ns" addr add "$LAN_NET.$s.$((n + 1))/24" dev lan0
      ip -n "$ns" link set lan0 up
      # WAN: a delay line between the node's wan0 and its TAP in the router's namespace.
      setsid "$bin" --tap-a wan0 --netns-a "/var/run/netns/$ns" --tap-b "$name" --netns-b "/var/run/netns/$wan" \
        --delay-us "$delay_us" --queue-bytes "$QUEUE_BYTES" --pid-file "$STATE/$name.pid" --fifo-priority "$FIFO_PRIORITY" \
        </dev/null >/dev/null 2>"$STATE/$name.log" &
      local waited=0
      until [[ -s $STATE/$name.pid ]]; do
        kill -0 $! 2>/dev/null || die "the delay line of $name exited: $(cat "$STATE/$name.log")"
        (( waited++ < 500 )) || die "the delay line of $name did not start in 5 s"
        sleep 0.01
      done
      ip -n "$ns" addr add "$WAN_NET.$g.2/30" dev wan0
      ip -n "$ns" link set wan0 up
      ip -n "$wan" addr add "$WAN_NET.$g.1/30" dev "$name"
      ip -n "$wan" link set "$name" up
      ip -n "$ns" route add "$WAN_NET.0.0/16" via "$WAN_NET.$g.1" dev wan0
      tc -n "$ns" qdisc replace dev wan0 root tbf rate "${rate}mbit" burst 64kb latency 100ms
      lines+=("node $name namespace $ns lan $LAN_NET.$s.$((n + 1)) wan $WAN_NET.$g.2 mbit $rate")
    done
  done
  trap - ERR
  {
    echo "sites $SITES nodes $NODES mbit $MBIT rtt $RTT queue-bytes $QUEUE_BYTES"
    printf '%s\n' "${lines[@]}"
  } > "$STATE/spec"
  printf '%s\n' "${lines[@]}"
}

down() {
  teardown
  verify_gone
  echo "testbed $PREFIX: down"
}

status() {
  [[ -f $STATE/spec ]] || { echo "testbed $PREFIX: not up"; namespaces | sed 's/^/left: namespace /'; return 3; }
  head -1 "$STATE/spec"
  local name ns pid alive ok=0
  while read -r _ name _ ns _ lan _ wanaddr _ rate; do
    pid=$(cat "$STATE/$name.pid" 2>/dev/null || echo -)
    if [[ $pid != - && -e /proc/$pid ]]; then alive="delay line $pid"; else alive="delay line DOWN"; ok=1; fi
    if ! ip netns list | awk '{print $1}' | grep -qx "$ns"; then alive="$alive, namespace MISSING"; ok=1; fi
    echo "node $name namespace $ns lan $lan wan $wanaddr mbit $rate: $alive;" \
      "$(tc -n "$ns" -s qdisc show dev wan0 2>/dev/null | grep -o 'Sent [0-9]* bytes [0-9]* pkt (dropped [0-9]*' | tr -d '(' || echo 'no qdisc')"
  done < <(tail -n +2 "$STATE/spec")
  return $ok
}

rtt() {
  [[ ${#ARGS[@]} -eq 2 ]] || die "rtt takes two node names: FROM TO"
  [[ -f $STATE/spec ]] || die "testbed $PREFIX is not up"
  local from=${ARGS[0]} to=${ARGS[1]} line address
  grep -q "^node $from " "$STATE/spec" || die "no node $from"
  line=$(grep "^node $to " "$STATE/spec") || die "no node $to"
  if [[ ${from:0:1} == "${to:0:1}" ]]; then address=$(awk '{print $6}' <<<"$line"); else address=$(awk '{print $8}' <<<"$line"); fi
  local out; out=$(mktemp)
  ip netns exec "$PREFIX-$to" chrt -f 5 python3 "$HERE/tcptool.py" echo >"$out" &
  local server=$! port=
  for _ in $(seq 500); do port=$(awk '/^port/ {print $2}' "$out"); [[ -n $port ]] && break; sleep 0.01; done
  [[ -n $port ]] || { kill "$server"; die "the echo server in $to did not start"; }
  echo -n "$from -> $to ($address): "
  ip netns exec "$PREFIX-$from" chrt -f 5 python3 "$HERE/tcptool.py" ping "$address" "$port" "$COUNT" || true
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -f "$out"
}

case $COMMAND in
  up) up ;;
  down) down ;;
  status) status ;;
  rtt) rtt ;;
  *) usage ;;
esac
