#!/bin/sh
# Compare task.DiffText with CPython's difflib.unified_diff on the same real file pair, in
# one run, and print the ratio (Python time / Go time; > 1 means Go is faster).
#   sh task/testdata/patch/bench.sh        (from the repository root)
set -e
cd "$(dirname "$0")"
go_ns=$(cd ../.. && go test -run '^$' -bench '^BenchmarkDiffText$' -count 5 . | awk '/^BenchmarkDiffText/ {print $3}' | sort -n | head -1)
py_ns=$(/usr/bin/python3 bench_difflib.py | awk '{print $2}')
echo "go DiffText:            ${go_ns} ns/op"
echo "python unified_diff:    ${py_ns} ns/op"
awk -v g="$go_ns" -v p="$py_ns" 'BEGIN { printf "ratio python/go:        %.1fx\n", p / g }'
