#!/usr/bin/env bash
# The whole suite, as CI runs it (.ci/run) and as the README says: the tests marked `long` (long by nature:
# the differential-test sample, the upstream sample, private Ray clusters, the A/A simulations) in one process
# beside the rest on every core (-n auto), both at once. Fails when either fails; arguments go to both.
# The rest alone, for an edit-test loop: python -m pytest -q -n auto -m "not long and not cluster_faults"
set -u
cd "$(dirname "$0")/.."
# Most tests start `python -m qdexplorer.cli` or a window in a child. Where PYTHONDONTWRITEBYTECODE is set (as on
# CI's machines) each child would compile the package's source again (0.4 s of a 0.8 s start): compile it once.
python -m compileall -q -j 0 qdexplorer tests benchmarks >/dev/null || true
long_log=$(mktemp -t qdx-long-tests.XXXXXX)
# The long process is given only the test files that mark a test long (found now, so a new one is never missed):
# collecting all ~3000 tests to keep ~40 cost it ~10 s of CPU. Arguments that name a path choose the files
# themselves (the long tests among them), as before. tests/upstream_sample/tree is Quadrants' own, never collected.
long_files=()
named=0
for a in "$@"; do [ -e "${a%%::*}" ] && named=1; done
if [ "$named" -eq 0 ]; then
    mapfile -t long_files < <(grep -rlE --include='test_*.py' --include='*_test.py' --exclude-dir=tree 'mark\.long\b' tests | sort)
fi
python -m pytest -q -p no:cacheprovider -m long "${long_files[@]}" "$@" >"$long_log" 2>&1 &
long=$!
python -m pytest -q -n auto -m "not long and not cluster_faults" "$@"
rest=$?
wait "$long"
long_rc=$?
echo "--- the tests marked long (one process, run beside the rest):"
cat "$long_log"
rm -f "$long_log"
# 5: no test selected (arguments that name only long tests, or none of them): not a failure of the suite
[ "$rest" -eq 0 ] || [ "$rest" -eq 5 ] || exit "$rest"
[ "$long_rc" -eq 0 ] || [ "$long_rc" -eq 5 ] || exit "$long_rc"
[ "$rest" -eq 0 ] || [ "$long_rc" -eq 0 ] || exit 5
