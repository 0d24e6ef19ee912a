#!/usr/bin/env bash
# The compiled kernels under AddressSanitizer + UndefinedBehaviorSanitizer (issue 27).
#
#   tools/sanitize.sh [SCRATCH_DIR]        (default: a new temporary folder, removed afterwards)
#
# Builds wbcpy._kernels with -fsanitize=address,undefined into SCRATCH_DIR (the checkout's own build is
# left alone), beside a copy of the wbcpy package, and runs the kernel tests (with the kernel fuzz test),
# the QP tests and the contact tests with that build first on the path. Any sanitizer report aborts the
# run (-fno-sanitize-recover, halt_on_error) and is also searched for in the output: the script prints
# "sanitize: clean" and exits 0 only when there is none. Run it after every change to csrc/.
# Needs gcc (or clang) with libasan and libubsan; Linux.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
CC=${CC:-gcc}
if [ $# -ge 1 ]; then
    SCRATCH=$1
    mkdir -p "$SCRATCH"
else
    SCRATCH=$(mktemp -d)
    trap 'rm -rf "$SCRATCH"' EXIT
fi
SCRATCH=$(cd "$SCRATCH" && pwd)
rm -rf "$SCRATCH/wbcpy"
# the package without its compiled kernels, then the sanitized kernels beside it
cp -r "$ROOT/wbcpy" "$SCRATCH/wbcpy"
find "$SCRATCH/wbcpy" \( -name '_kernels*.so' -o -name '__pycache__' \) -prune -exec rm -rf {} +
ln -sfn "$ROOT/robots" "$SCRATCH/robots" # (the shipped robots, found beside the package as in a checkout)
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
CC=$CC "$PY" tools/build_kernels.py "$SCRATCH" --flags "$FLAGS" >"$SCRATCH/build.log" 2>&1 || {
    cat "$SCRATCH/build.log"
    exit 1
}
# Python itself is not instrumented: the ASan runtime is preloaded; CPython's own allocations at exit are
# not leaks of the kernels (detect_leaks=0)
ASAN_LIB=$("$CC" -print-file-name=libasan.so)
UBSAN_LIB=$("$CC" -print-file-name=libubsan.so)
export LD_PRELOAD="$ASAN_LIB $UBSAN_LIB"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONPATH="$SCRATCH"
LOG="$SCRATCH/sanitize.log"
# -P: the checkout (the current folder) is not put first on sys.path, so wbcpy is the scratch copy
"$PY" -P -c "import wbcpy._kernels as k; assert k.__file__.startswith('$SCRATCH'), k.__file__; print('sanitize: kernels', k.__file__)"
set +e
"$PY" -P -m pytest -q -p no:cacheprovider tests/kernels tests/qp tests/contacts 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e
if grep -E -q "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|UndefinedBehaviorSanitizer" "$LOG"; then
    echo "sanitize: sanitizer reports above" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize: the tests failed (exit $status)" >&2
    exit "$status"
fi
echo "sanitize: clean"
