# Shared by .ci/run and .ci/matrix (sourced): one line per test run, its whole output in a log file, and on failure
# that run's failed tests. Needs $logs (a folder) and sets failed=1 when a run fails.
failed=0

# The test runner's closing counts, from its TAP (# pass 3): "N tests, N passed, ...".
counts() {
  awk '/^# (tests|pass|fail|cancelled|skipped|todo) [0-9]+$/ { n[$2] = $3 }
    END { printf "%d tests, %d passed, %d failed, %d skipped", n["tests"], n["pass"], n["fail"] + n["cancelled"], n["skipped"] }' "$1"
}
# A failed run's failures, one line each: a failed test's name and the first line of its error, from the TAP
# (scripts/test.mjs writes TAP where stdout is not a terminal); suites that failed only through their tests, and
# tests cancelled with their suite, left out (the suite's line says why); the log's last lines when no test failed
# (npm ci, the build). Then where the whole output is.
failures() {
  awk 'function flush() { if (on && b !~ /subtestsFailed|cancelledByParent/) print "  FAIL  " substr(name ": " err, 1, 300); on = 0 }
    /^ *not ok [0-9]+ - / { flush(); name = $0; sub(/^ *not ok [0-9]+ - /, "", name); on = 1; b = ""; err = ""; next }
    on && next_err { err = $0; sub(/^ */, "", err); next_err = 0 }
    on && /^ *error: / { e = $0; sub(/^ *error: /, "", e); if (e ~ /^[|>]-?$/) next_err = 1; else { gsub(/^'"'"'|'"'"'$/, "", e); err = e } }
    on { b = b $0 "\n"; if ($0 ~ /^ *\.\.\.$/) flush() }
    END { flush() }' "$1" >"$1.failed" || true
  if [ -s "$1.failed" ]; then cat "$1.failed" >&2; else tail -n 30 "$1" | sed 's/^/  /' >&2; fi   # no test failed: its end
  rm -f "$1.failed"
  echo "  (the whole output: $1)" >&2
}
# run LABEL LOG COMMAND...: runs a test run with its output into LOG and prints one line: LABEL, the counts, the time.
run() {
  local label=$1 log=$2 start=$SECONDS rc=0
  shift 2
  "$@" >"$log" 2>&1 || rc=$?
  if [ $rc -eq 0 ]; then
    echo "$label: $(counts "$log"), $((SECONDS - start)) s"
  else
    echo "$label: FAILED (exit $rc): $(counts "$log"), $((SECONDS - start)) s"
    failures "$log"
    # shellcheck disable=SC2034 # read by .ci/matrix, which sources this
    failed=1
  fi
  return $rc
}
