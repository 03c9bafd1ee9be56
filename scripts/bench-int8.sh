#!/usr/bin/env bash
# The speed figures of docs/results.md, "Quantized inference": `bench nn` at widths 128 and
# 256 in FP32 and int8 on each path this CPU has (the fastest, which is AVX-512 VNNI where the
# CPU has it; AMX, taken only by name; AVX2), one core; then `bench selfplay` in Oware and
# Ouril on 1 and 2 threads, FP32 without the evaluation cache against int8 with it, and the
# same on an AVX2-only core played by MANCALA_CPU_KERNEL=avx2 MANCALA_INT8_PATH=avx2. Run on
# an otherwise idle machine (about 5 minutes); paths this CPU lacks fall back to its fastest,
# as the kernel line of each figure says.
#
#     cargo build --release && scripts/bench-int8.sh
set -eu
B=${B:-target/release/mancala-zero}
S=${S:-4}
nn() {
    echo "=== bench nn $* ${MANCALA_INT8_PATH:+(MANCALA_INT8_PATH=$MANCALA_INT8_PATH)}"
    taskset -c 1 "$B" bench nn --batches 1,32,256 --seconds "$S" "$@" | grep -E "^evaluator|^batch|G multiply" | head -7
}
for w in 128 256; do
    nn --width $w --precision fp32
    nn --width $w --precision int8
    MANCALA_INT8_PATH=amx nn --width $w --precision int8
    MANCALA_INT8_PATH=avx2 MANCALA_CPU_KERNEL=avx2 nn --width $w --precision int8
    nn --width $w --precision fp32 --kernel avx2
done
sp() {
    echo "=== bench selfplay $*"
    "$B" bench selfplay --seconds 6 "$@" | grep -E "kernel|positions/s|hit"
}
for g in ouril oware; do
    for t in 1 2; do
        sp --game $g --threads $t --precision fp32 --cache off
        sp --game $g --threads $t --precision int8 --cache shared
        MANCALA_INT8_PATH=amx sp --game $g --threads $t --precision int8 --cache shared
        MANCALA_CPU_KERNEL=avx2 sp --game $g --threads $t --precision fp32 --cache off
        MANCALA_CPU_KERNEL=avx2 MANCALA_INT8_PATH=avx2 sp --game $g --threads $t --precision int8 --cache shared
    done
done
