#!/usr/bin/env bash
# Overcooked env speed, side by side in one command: PaperLab's Go rules (toolkit/marl/env/overcooked
# benchmarks: rules only, rules + 96-value featurize_state, rules + lossless planes, 256 games stepped
# on GOMAXPROCS goroutines, 2 here) and overcooked_ai's Python rules (the same three) as the measuring peer
# (bench/overcooked_peer.py).
# The peer needs an overcooked_ai checkout: OVERCOOKED_AI_SRC=/path/to/overcooked_ai/src (default
# ../overcooked_ai/src); without one only the Go side runs and the script says so.
# Run it alone.   bench/overcooked.sh [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out=bench/out
mkdir -p "$out"
. bench/peers.sh
overcooked_src
if [ "$peer" = 1 ] && ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "bench: the peer needs numpy (apt-get install python3-numpy); skipped" >&2; peer=0
fi
go test -c -o "$out/overcooked.test" ./toolkit/marl/env/overcooked
: > "$out/overcooked_raw.txt"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  {
    "$out/overcooked.test" -test.run '^$' -test.bench . -test.benchtime 1s 2>/dev/null | grep '^Benchmark'
    if [ "$peer" = 1 ]; then /usr/bin/python3 bench/overcooked_peer.py "$src" 1 20000; fi
  } >> "$out/overcooked_raw.txt"
done
awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  $1=="peer" { p[$2]=p[$2]" "$3; next }
  /^Benchmark/ { name=$1; sub(/^Benchmark/,"",name); sub(/-[0-9]+$/,"",name);
                 for (i=1;i<=NF;i++) if ($(i+1)=="steps/s") g[name]=g[name]" "$i }
  function r(label, gname, pname) { printf "ratio %-62s %8.0fx\n", label, median(g[gname])/median(p[pname]) }
  END {
    printf "%-28s %14s\n", "benchmark", "steps/s"
    for (n in g) printf "go %-25s %14.0f\n", n, median(g[n])
    for (n in p) printf "python %-21s %14.0f\n", n, median(p[n])
    if ("rules" in p) {
      r("rules      Go Step / Python get_state_transition", "Step", "rules")
      r("featurized Go EnvStep / Python rules+featurize_state", "EnvStep", "featurized")
      r("featurized Go EnvStepReuse / Python rules+featurize_state", "EnvStepReuse", "featurized")
      r("lossless   Go EnvStepLossless / Python rules+lossless", "EnvStepLossless", "lossless")
      r("lossless   Go EnvStepLosslessReuse / Python rules+lossless", "EnvStepLosslessReuse", "lossless")
      r("vectorized Go VecEnvStepReuse / Python rules+featurize_state", "VecEnvStepReuse", "featurized")
    }
    print "(medians over all rounds; one Go thread except VecEnvStep*, which steps 256 copies on 2 goroutines)"
  }' "$out/overcooked_raw.txt" | tee "$out/overcooked_summary.txt"
