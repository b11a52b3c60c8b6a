#!/bin/sh
# Runs one libFuzzer target for a bounded time over a scratch copy of its seed corpus, so new
# inputs never land in the source tree. Usage: run-fuzzer.sh BINARY SEED_DIR SECONDS MAX_LEN
set -eu
bin=$1 seeds=$2 seconds=$3 maxlen=$4
if [ ! -x "$bin" ]; then
    echo "fuzzer $bin was not built: install clang and libclang-rt-14-dev (installers/packages.txt [test])" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/artifacts"
# Findings are copied next to the binary for inspection.
status=0
"$bin" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1 || status=$?
tail -n 40 "$work/log"
if ls "$work/artifacts/"* >/dev/null 2>&1; then
    mkdir -p "$(dirname "$bin")/findings"
    cp "$work/artifacts/"* "$(dirname "$bin")/findings/"
    echo "fuzzer found a crashing input; copied to $(dirname "$bin")/findings/" >&2
    exit 1
fi
exit $status
