#!/usr/bin/env bash
# Every party of a parties file as its own `huddle party` process on this
# machine, all started at once; waits for all and fails if any fails. The
# multi-process counterpart of `huddle local` (separate processes, so peak
# memory is per party), e.g. for `huddle bench compare`:
#
#   scripts/parties.sh CONFIG [huddle party options...]
#
# Party i gets `--config CONFIG --id i` and the options. Its stdout goes to
# $OUT/party-i.out when OUT is set (else nowhere); stderr passes through.
# HUDDLE names the binary (default: huddle on the PATH).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
config=$1; shift
huddle=${HUDDLE:-huddle}
[ -f "$config" ] || { echo "parties.sh: no parties file $config" >&2; exit 2; }
n=$(grep -c '^\[\[party\]\]' "$config")
[ "$n" -ge 2 ] || { echo "parties.sh: $config lists $n parties" >&2; exit 2; }
pids=()
for ((i = 0; i < n; i++)); do
  out=/dev/null
  [ -n "${OUT:-}" ] && out=$OUT/party-$i.out
  "$huddle" party --config "$config" --id "$i" "$@" > "$out" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit $failed
