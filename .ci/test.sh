#!/usr/bin/env bash
# make test: lint and every test, in four lanes side by side, then the 20
# slowest tests and, when anything failed, what failed.
#
# The packages that own goroutines (the UI bridge and runner, the store's
# recorder, the engine's browser and servers) run under the race detector;
# app's end-to-end drills, the practice sites and the Review tab's widget
# tests run without it (under it Fyne's text measuring and the fixtures'
# PNGs run 10 to 20 times slower, 311 s against 23 s), and the Review tests
# that cross goroutines (the thumbnail worker, the replay panel's run) run
# again under it.
#
# The library code is compiled once per mode before the tests that need
# it (two go commands building the same package at once would each compile
# it: the build cache does not share work in progress), in stages that
# keep both cores busy from the start on an empty build cache: the GL
# bindings (one C compiler after the other, minutes of one core) beside
# what the engine needs; then the staleness corpus starts (it mostly
# waits: each case is compared with the page 1.5 s later) while the rest
# compiles, plain and under the race detector at once, the race
# detector's in two stages (the engine's and the store's, then the UI's).
# Each lane starts a package once the stage it needs is done. Each lane
# runs one package at a time (-p 1). Each test binary keeps one warm
# Chromium for its tests (engine/browser's shared pool).
#
# On a 2-core machine the run is bound by CPU, not by waiting: both cores
# stay busy from the first test to the last but one lane, and about half
# the CPU goes to Chromium itself (one screenshot costs ~25 ms of its GPU
# process compositing the frame in software and ~22 ms of its browser
# process encoding the PNG). Lanes only help as far as they keep both
# cores busy to the end.
#
# When anything fails, the last lines printed say what: each failing test
# and its messages (a CI log is often read from its end only).
set -uo pipefail
GO=${GO:-go}
cd "$(dirname "$0")/.."

RACE_LANE1=(./engine/browser)
RACE_LANE4=(./engine/openenv)
# Lane 2: the store and every other engine package (the browser-free ones:
# action, har, gym, and any added later). The replay and the Hugging Face
# export start no goroutine and share nothing between goroutines (the
# engine they drive runs under the race detector in its own tests): they
# run without it, as it doubled their CPU (dataset/replay 172 s against
# 94 s of CPU for two of its tests) on a machine the suite keeps busy.
PLAIN_DATASET=(waymark/dataset/replay waymark/dataset/hfexport)
mapfile -t RACE_LANE2 < <({ $GO list ./dataset/...; $GO list ./engine/... | grep -vE '^waymark/engine/(browser|openenv)$'; } |
	grep -vxF -f <(printf '%s\n' "${PLAIN_DATASET[@]}"))
STALE='^TestStaleCorpus$'
REVIEW_RACE='^(TestOpenLongEpisode|TestCloseStopsTheThumbnailWorker|TestReplayPanel|TestReplayPanelSaysWhy)$'
# A failure's lines in go test's output: the --- FAIL lines, the messages
# under them (file.go:N:), panics, races and timeouts.
FAILED_LINES='^ *--- FAIL|^ +[A-Za-z0-9_]+\.go:[0-9]+: |^panic: |^fatal error: |^WARNING: DATA RACE|^FAIL[[:space:]]|\.go:[0-9]+:[0-9]+: '

# ui/review/internal/demo's test runs the demo program it builds: the
# race detector has nothing of it to watch, and instrumenting its test
# binary would compile the GL bindings (cgo, over two minutes) once more.
# ui/overlay draws the step marks and writes GIFs: it starts no goroutine
# and shares nothing between goroutines, and under the race detector its
# image loops took 12 times the CPU (30 s against 2.4 s).
PLAIN_UI=(waymark/ui/overlay)
mapfile -t uirace < <($GO list ./ui/... | grep -vE '^waymark/ui/review(/internal/demo)?$' | grep -vxF -f <(printf '%s\n' "${PLAIN_UI[@]}"))
mapfile -t plain < <($GO list ./... | grep -vE '^waymark/(ui|dataset|engine)(/|$)'; echo waymark/ui/review/internal/demo)

logs=$(mktemp -d)
# The tests' temporary files (SQLite stores, profiles, exports) go to
# memory where the machine has a tmpfs: the store syncs every commit to
# disk, and on a busy machine's disk those syncs made the store's tests
# twice as slow. Crash safety against a killed process (the crash drills)
# is the same on tmpfs; surviving a power cut is not what tests check.
if [ -z "${WAYMARK_TEST_TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	WAYMARK_TEST_TMPDIR=$(mktemp -d -p /dev/shm waymark-test.XXXXXX)
fi
trap 'rm -rf "$logs" ${WAYMARK_TEST_TMPDIR:+"$WAYMARK_TEST_TMPDIR"}' EXIT
# The serves the tests start admit sessions by the built-in defaults, not
# by the capacity make bench measured on this machine (a test run loads the
# machine far past what serve's own figures allow).
export WAYMARK_CAPACITY=${logs}/no-capacity.json
SECONDS=0

# Library code, once per mode. The lists leave out main packages (linking
# them is the tests' work) and the test variants.
libs() {
	$GO list -test -deps -f '{{if and (not .Standard) (ne .Name "main")}}{{.ImportPath}}{{end}}' "$@" | grep -v '\[\|\.test$' | sort -u
}
mapfile -t stalelibs < <(libs ./engine/browser)
# The race detector's libraries in two stages: what the engine's and the
# store's packages need (no Fyne), then the UI's.
mapfile -t raceenginelibs < <(libs "${RACE_LANE1[@]}" "${RACE_LANE2[@]}" "${RACE_LANE4[@]}")
mapfile -t racelibs < <(libs "${RACE_LANE1[@]}" "${RACE_LANE2[@]}" "${RACE_LANE4[@]}" "${uirace[@]}" ./ui/review)
# The GL bindings (github.com/go-gl) are what only the desktop app's
# window needs, and the slowest code to compile: cgo runs the C compiler
# over the whole GL header dozens of times, one run after the other (on
# an empty build cache, 3 to 6 minutes of one core). They compile from the
# start, beside everything else; the plain libraries leave them out, and
# the packages that import them (Fyne's window driver, app) compile once
# both are done.
mapfile -t glpkgs < <($GO list -deps -f '{{.ImportPath}}' ./... | grep '^github\.com/go-gl/')
mapfile -t gluser < <($GO list -test -deps -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./... | awk '/ github\.com\/go-gl\//{print $1}')
mapfile -t plainlibs < <(libs ./... | grep -vxF -f <(printf '%s\n' "${glpkgs[@]}" "${gluser[@]}"))
mapfile -t gllibs < <(libs ./... | grep -xF -f <(printf '%s\n' "${gluser[@]}"))
$GO build -o "$logs/report" ./.ci/testreport || exit 1
report=("$logs/report" -times "$logs/times")

# lane N COMMAND...: runs the command with its output prefixed [N], kept in
# $logs/N, and says how long it took.
lane() {
	local n=$1
	shift
	local start=$SECONDS
	"$@" 2>&1 | tee "$logs/$n" | sed -u "s/^/[$n] /"
	local r=${PIPESTATUS[0]}
	echo "[$n] took $((SECONDS - start)) s"
	return "$r"
}
# -count=1: every test runs each time; go test would otherwise report the
# browser-free packages whose files did not change as passed from its cache.
# -vet=off: the lint lane's go vet ./... runs every analyzer over every
# package and its tests; the few go test runs before a package's tests
# would only repeat part of that work.
gotest() { TMPDIR=${WAYMARK_TEST_TMPDIR:-${TMPDIR:-/tmp}} $GO test -json -count=1 -p 1 -timeout 30m -vet=off -ldflags=-w "$@" | "${report[@]}"; }

# built STAGE waits for a library build (gl-bindings, race-engine, race,
# plain or gl, below) and says whether it worked.
built() {
	while [ ! -e "$logs/built-$1" ]; do sleep 1; done
	[ "$(cat "$logs/built-$1")" = ok ]
}

# build STAGE FLAGS... compiles a stage's library code and leaves word
# of it in $logs/built-STAGE.
build() {
	local mode=$1
	shift
	$GO build "$@" 2>&1 | sed -u "s/^/[build $mode] /"
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		echo "[build $mode] compiled at $SECONDS s"
		echo ok > "$logs/built-$mode"
	else
		echo failed > "$logs/built-$mode"
	fi
}

{
	build gl-bindings "${glpkgs[@]}"
	if built plain && built gl-bindings; then build gl "${gllibs[@]}"; else echo failed > "$logs/built-gl"; fi
} &
# The GL bindings are the one build that cannot use more than one core,
# and app's tests (the longest plain package) wait for them: everything
# started after this line runs at a lower priority than they do. On an
# empty build cache, at the same priority as the rest, they got a fifth of
# a core and were done only at 1,040 s.
renice -n 5 -p $$ >/dev/null
# First what the staleness corpus needs: it then runs while the rest
# compiles (it mostly waits, on its 1.5 s references). It measures how the
# engine settles, so it runs the engine as people do, without the race
# detector (which made it a third slower); the engine's code runs under
# the race detector in lane 1, the settling tests included.
$GO build "${stalelibs[@]}" 2>&1 | sed -u 's/^/[build] /'
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
	echo "FAIL: the engine does not compile (see the [build] lines above)"
	kill $(jobs -p) 2>/dev/null
	exit 1
fi
# engine/browser's race run is the longest of all (over 800 s of tests on
# two cores): its tests run in two shards, in lanes 1 and 4, from one test
# binary built once (two go test commands would each compile and link it).
# The shards take the tests in turn, in the order the package lists them,
# so each gets its share of the slow ones; each shard's binary keeps its own
# warm Chromium.
ebshard() {
	built race-engine || return 1
	while [ ! -e "$logs/built-ebtest" ]; do sleep 1; done
	[ "$(cat "$logs/built-ebtest")" = ok ] || return 1
	local names
	names=$(cd engine/browser && "$logs/eb.test" -test.list '.*' | grep -E '^(Test|Example|Fuzz)' | grep -vE "$STALE" |
		awk -v k="$1" 'NR % 2 == k' | paste -sd'|')
	(cd engine/browser && TMPDIR=${WAYMARK_TEST_TMPDIR:-${TMPDIR:-/tmp}} $GO tool test2json -t -p waymark/engine/browser \
		"$logs/eb.test" -test.v=test2json -test.count=1 -test.timeout=30m -test.run "^($names)\$") | "${report[@]}"
}
# A lane runs all its packages even after one fails (a failure must not
# hide the others' results), and fails if any did; it stops only when the
# code of a mode does not compile.
lane1() {
	local r=0
	ebshard 0 || r=1
	built race || return 1
	gotest -race "${uirace[@]}" || r=1
	gotest -race -run "$REVIEW_RACE" ./ui/review || r=1
	return $r
}
lane2() {
	local r=0
	built race-engine || return 1
	gotest -race "${RACE_LANE2[@]}" || r=1
	built plain || return 1
	gotest ./ui/review "${PLAIN_UI[@]}" "${practice[@]}" "${PLAIN_DATASET[@]}" || r=1
	return $r
}
lane3() {
	local r=0
	gotest -run "$STALE" ./engine/browser || r=1
	built gl || return 1
	gotest "${rest[@]}" || r=1
	return $r
}
lane4() {
	local r=0
	ebshard 1 || r=1
	built race-engine || return 1
	gotest -race "${RACE_LANE4[@]}" || r=1
	return $r
}
practice=(); rest=()
for p in "${plain[@]}"; do
	if [ "$p" = waymark/assets/practice ]; then practice+=("$p"); else rest+=("$p"); fi
done
lane 3 lane3 & three=$!

{
	build race-engine -race "${raceenginelibs[@]}"
	if built race-engine && $GO test -c -race -vet=off -ldflags=-w -o "$logs/eb.test" ./engine/browser 2>&1 | sed -u 's/^/[build race] /' &&
		[ "${PIPESTATUS[0]}" -eq 0 ]; then
		echo ok > "$logs/built-ebtest"
	else
		echo failed > "$logs/built-ebtest"
	fi
	build race -race "${racelibs[@]}"
} &
build plain "${plainlibs[@]}" &
lane 1 lane1 & one=$!
lane 2 lane2 & two=$!
lane 4 lane4 & four=$!
lint() { built gl && nice -n 10 make --no-print-directory lint; }
lane lint lint & lint=$!
wait $lint; rl=$?
wait $one; r1=$?
wait $two; r2=$?
wait $three; r3=$?
wait $four; r4=$?

"$logs/report" -slowest 20 "$logs/times"
echo "make test took $SECONDS s"
if [ $rl -ne 0 ] || [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || [ $r3 -ne 0 ] || [ $r4 -ne 0 ]; then
	for m in race-engine race plain gl-bindings gl; do
		[ "$(cat "$logs/built-$m" 2>/dev/null)" = ok ] || echo "FAIL: the $m libraries do not compile (see the [build $m] lines above)"
	done
	echo
	echo "=== what failed (the whole output is above), then the failing tests again"
	[ $rl -eq 0 ] || tail -n 15 "$logs/lint" | sed 's/^/[lint] /'
	for l in 1 2 3 4; do grep -E "$FAILED_LINES" "$logs/$l" | cut -c1-300 | head -n 60 | sed "s/^/[$l] /"; done
	for l in 1 2 3 4; do grep -E '^ *--- FAIL|^panic: ' "$logs/$l" | head -n 12 | sed "s/^/[$l] /"; done
	echo "FAIL: lint exit $rl, lane 1 exit $r1, lane 2 exit $r2, lane 3 exit $r3, lane 4 exit $r4"
	exit 1
fi
echo "PASS: lint and the four lanes"
