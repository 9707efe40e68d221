#!/usr/bin/env bash
# Emulated hosts on one Linux machine: each host a network namespace with
# its own address, all joined through a bridge, links optionally limited in
# rate (tbf) and delayed (netem, where the kernel has it). For trying a
# multi-host huddle deployment (docs/deploy.md) before using real machines.
# Needs root (or CAP_NET_ADMIN) and iproute2.
#
#   scripts/hosts.sh up [N] [--rate 100mbit] [--delay 20ms] [--prefix hh]
#       makes hosts 0..N-1 (default 3) at 198.51.100.1..N
#   scripts/hosts.sh exec I COMMAND...      [--prefix hh before I]
#       runs COMMAND on host I (as if logged in there)
#   scripts/hosts.sh down [--prefix hh]
#       deletes them again
#
# 198.51.100.0/24 is TEST-NET-2 (RFC 5737): never routed, so nothing here
# can reach or be reached from the outside network.
set -euo pipefail

prefix=hh
usage() { sed -n '8,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "hosts.sh: $*" >&2; exit 1; }

command -v ip >/dev/null || fail "iproute2 (the ip command) is not installed"
[ $# -ge 1 ] || usage
action=$1; shift

# Takes --prefix wherever it is given before the command's own arguments.
take_prefix() {
  if [ "${1:-}" = "--prefix" ]; then
    [ $# -ge 2 ] || usage
    prefix=$2
    return 0
  fi
  return 1
}
check_prefix() {
  # Interface names are at most 15 characters: prefix + "-br" / "a12" / "b12".
  [[ $prefix =~ ^[a-z][a-z0-9]{0,7}$ ]] || fail "--prefix: 1 to 8 lower-case letters and digits, starting with a letter"
}

hosts_up() {
  local n=3 rate="" delay=""
  while [ $# -gt 0 ]; do
    case $1 in
      --rate) rate=${2:?--rate needs a value, e.g. 100mbit}; shift 2 ;;
      --delay) delay=${2:?--delay needs a value, e.g. 20ms}; shift 2 ;;
      --prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
      [0-9]*) n=$1; shift ;;
      *) usage ;;
    esac
  done
  check_prefix
  [ "$n" -ge 2 ] && [ "$n" -le 50 ] || fail "the number of hosts must be 2 to 50, not $n"
  ip netns list | grep -q "^$prefix-hub\b" && fail "hosts with prefix $prefix exist already: scripts/hosts.sh down --prefix $prefix"
  local hub=$prefix-hub
  ip netns add "$hub"
  ip -n "$hub" link set lo up
  ip -n "$hub" link add "$prefix-br" type bridge
  ip -n "$hub" link set "$prefix-br" up
  local netem_missing=""
  for ((i = 0; i < n; i++)); do
    local host=$prefix-$i a=${prefix}a$i b=${prefix}b$i
    ip netns add "$host"
    ip -n "$host" link set lo up
    ip link add "$a" type veth peer name "$b"
    ip link set "$a" netns "$host"
    ip link set "$b" netns "$hub"
    ip -n "$hub" link set "$b" master "$prefix-br"
    ip -n "$hub" link set "$b" up
    ip -n "$host" addr add "198.51.100.$((i + 1))/24" dev "$a"
    ip -n "$host" link set "$a" up
    # Each host's outgoing traffic: delayed (netem) and/or limited (tbf).
    if [ -n "$delay" ]; then
      if ip netns exec "$host" tc qdisc add dev "$a" root handle 1: netem delay "$delay" 2>/dev/null; then
        [ -z "$rate" ] || ip netns exec "$host" tc qdisc add dev "$a" parent 1: handle 2: tbf rate "$rate" burst 64kb latency 500ms
      else
        netem_missing=1
        [ -z "$rate" ] || ip netns exec "$host" tc qdisc add dev "$a" root tbf rate "$rate" burst 64kb latency 500ms
      fi
    elif [ -n "$rate" ]; then
      ip netns exec "$host" tc qdisc add dev "$a" root tbf rate "$rate" burst 64kb latency 500ms
    fi
    echo "host $i: namespace $host, address 198.51.100.$((i + 1))"
  done
  if [ -n "$netem_missing" ]; then
    echo "note: this kernel has no netem, so --delay $delay is not applied; emulate latency in huddle instead (--net wan)" >&2
  fi
}

hosts_down() {
  while [ $# -gt 0 ]; do take_prefix "$@" && shift 2 || usage; done
  check_prefix
  local found=""
  for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-(hub|[0-9]+)$" || true); do
    ip netns del "$ns"
    found=1
  done
  [ -n "$found" ] || echo "no hosts with prefix $prefix" >&2
}

hosts_exec() {
  take_prefix "$@" && shift 2 || true
  check_prefix
  [ $# -ge 2 ] || usage
  local i=$1; shift
  ip netns list | grep -q "^$prefix-$i\b" || fail "no host $i (scripts/hosts.sh up first)"
  exec ip netns exec "$prefix-$i" "$@"
}

case $action in
  up) hosts_up "$@" ;;
  down) hosts_down "$@" ;;
  exec) hosts_exec "$@" ;;
  *) usage ;;
esac
