#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: the same targets, dictionaries, libFuzzer options and seeds
# as scripts/fuzz-nightly, packaged the way ClusterFuzz picks them up from $OUT:
# <target> (binary), <target>.dict, <target>.options, <target>_seed_corpus.zip.
cd "$SRC/editref"

# The committed seeds (fuzz/seeds, written from the conformance corpus by scripts/fuzz-seeds).
cd fuzz
cargo fuzz build -O --debug-assertions
for target in $(cargo fuzz list); do
    cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
    if [[ $target == inputs || $target == dialect_inputs ]]; then
        cp dict/inputs.dict "$OUT/$target.dict"
    else
        cp dict/text.dict "$OUT/$target.dict"
    fi
    cat >"$OUT/$target.options" <<OPTIONS
[libfuzzer]
max_len = 65536
timeout = 10
rss_limit_mb = 2048
OPTIONS
    if compgen -G "seeds/$target/*" >/dev/null; then
        (cd "seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
