#!/bin/sh
# Compare package stats with its reference implementations in one run on this machine:
# go test benchmarks (stats/bench_test.go) against statsmodels Logit.fit and
# scipy.stats.mannwhitneyu(method="exact") on data of the same shapes (peer.py), printing
# the ratio reference time / Go time (> 1: Go is faster). Run from the repository root:
#
#     sh stats/bench/compare.sh
#
# Note: scipy memoizes the exact Mann-Whitney distribution between calls with the same
# sizes, so its repeated calls measure a table lookup plus ranking; the Go code recomputes
# the distribution every call.
set -eu
py=/usr/bin/python3
go test -run '^$' -bench 'Logit|MannWhitneyExact' -benchtime 1s ./stats/ |
	awk '/^Benchmark/ { name=$1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name); print name, $3 }' >/tmp/stats-bench-go.$$
$py stats/bench/peer.py >/tmp/stats-bench-py.$$
printf '%-24s %14s %14s %8s\n' benchmark go_ns/op peer_ns/op ratio
awk 'NR==FNR { peer[$1]=$2; next } ($1 in peer) { printf "%-24s %14.0f %14.0f %8.1f\n", $1, $2, peer[$1], peer[$1]/$2 }' \
	/tmp/stats-bench-py.$$ /tmp/stats-bench-go.$$
rm -f /tmp/stats-bench-go.$$ /tmp/stats-bench-py.$$
