#!/bin/sh
# Runs one libFuzzer target for a bounded time over a scratch copy of its seed corpus.
#   run-fuzzer.sh [--keep] BINARY SEED_DIR SECONDS MAX_LEN
# ctest runs it without --keep, so a test run never changes the source tree. With --keep the
# inputs that reached new coverage are merged (libFuzzer -merge=1, minimised) back into
# SEED_DIR, so the committed corpus grows from every longer run; commit what it adds.
set -eu
keep=false
if [ "${1:-}" = --keep ]; then
    keep=true
    shift
fi
if [ $# -ne 4 ]; then
    echo "usage: $0 [--keep] BINARY SEED_DIR SECONDS MAX_LEN" >&2
    exit 2
fi
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
if $keep && [ "$status" -eq 0 ]; then
    before=$(ls "$seeds" | wc -l)
    "$bin" -merge=1 -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 "$seeds" "$work/corpus" >"$work/merge.log" 2>&1 ||
        { tail -n 20 "$work/merge.log"; exit 1; }
    echo "corpus $seeds: $before -> $(ls "$seeds" | wc -l) inputs"
fi
exit $status
