# Waymark. Two commands on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
export LANG := en_US.UTF-8
export FYNE_SCALE ?= 1
export CGO_ENABLED := 1

# Debian/Ubuntu packages: the browser and display the engine drives, fonts,
# the GL/X11 headers Fyne's GLFW driver compiles against, and tools the
# end-to-end tests use (xdotool, imagemagick's `import`; tesseract, an
# independent OCR reader the redaction tests read stored screenshots with). Node.js and npm
# (Debian's, unless an npm is already on the PATH) fetch the independent
# validators the tests check HAR and OpenAPI files with.
APT_PACKAGES := chromium xvfb xauth xdotool imagemagick fonts-dejavu-core fonts-liberation \
	gcc pkg-config libgl1-mesa-dev libgl1-mesa-dri xorg-dev libx11-dev libxrandr-dev \
	libxxf86vm-dev libxi-dev libxcursor-dev libxinerama-dev tesseract-ocr tesseract-ocr-eng

BIN := bin/waymark

.PHONY: deps build run test lint bench vet clean fuzz mutate drill

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$$missing"; \
	if ! command -v apt-get >/dev/null; then \
		echo "Waymark needs these Debian/Ubuntu packages (or your system's equivalents):$$missing"; exit 1; \
	elif [ "$$(id -u)" = 0 ]; then echo "+ $$cmd"; bash -c "$$cmd"; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then echo "+ sudo $$cmd"; sudo bash -c "$$cmd"; \
	else echo "Missing packages:$$missing"; echo "Install them with:"; echo "  sudo bash -c '$$cmd'"; exit 1; fi
	@command -v $(GO) >/dev/null || { echo "Go 1.26 or newer is needed: https://go.dev/dl/"; exit 1; }

build: deps
	$(GO) build -o $(BIN) .

run: build
	./$(BIN) $(ARGS)

vet: deps
	$(GO) vet ./...

# Lint and every test, in four lanes side by side, ending with the 20
# slowest tests and, when anything failed, what failed: see .ci/test.sh.
test: deps
	@GO=$(GO) bash .ci/test.sh

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# gofmt (any output fails), go vet and staticcheck (a pinned version, fetched
# by `go run`). ST1005 is off: error strings start with proper nouns
# ("Chromium was not found", "Xvfb did not start").
lint: deps
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$out" ]; then echo "gofmt -w these files:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) -checks inherit,-ST1005 ./...

# The crash drill with 200 kills (make test runs 10): a recording process is
# killed with SIGKILL at random moments; every acknowledged step must survive.
DRILL_KILLS ?= 200
drill: deps
	WAYMARK_DRILL_KILLS=$(DRILL_KILLS) $(GO) test -run '^TestCrashDrill$$' -count=1 -v -timeout 120m ./app

# The reproducibility figure (every practice task's solution recorded, then
# replayed 3 times in each display mode) is one long measure: it runs once.
bench: deps
	$(GO) test -run '^$$' -bench . -skip '^(BenchmarkReproducibility|BenchmarkServeLoad|BenchmarkServeMemoryPerEpisode|BenchmarkOfflineReplay|BenchmarkRedactionCost)$$' -benchtime 20x -timeout 40m ./...
	$(GO) test -run '^$$' -bench '^BenchmarkServeLoad$$' -benchtime 1x -timeout 60m ./app
	$(GO) test -run '^$$' -bench '^BenchmarkServeMemoryPerEpisode$$' -benchtime 1x -timeout 30m ./app
	$(GO) test -run '^$$' -bench '^BenchmarkOfflineReplay$$' -benchtime 1x -timeout 40m ./dataset/replay
	$(GO) test -run '^$$' -bench '^BenchmarkRedactionCost$$' -benchtime 1x -timeout 40m ./dataset/replay
	$(GO) test -run '^$$' -bench '^BenchmarkReproducibility$$' -benchtime 1x -timeout 90m ./dataset/replay

# Every `func FuzzXxx` of the repository, one at a time, each for FUZZTIME
# with one worker; stops at the first failure (its input is written under the
# package's testdata/fuzz/FuzzXxx/, where `make test` replays it). Prints each
# target's last progress line (time and execs) and a summary.
FUZZTIME ?= 60s
FUZZMINIMIZETIME ?= 50x
fuzz: deps
	@set -o pipefail; summary=$$(mktemp); trap 'rm -f $$summary' EXIT; \
	for f in $$(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(' . | sort); do \
		pkg=./$$(dirname $${f#./}); \
		for t in $$(grep -oE '^func Fuzz[A-Za-z0-9_]+' $$f | sed 's/^func //'); do \
			echo "== $$pkg $$t for $(FUZZTIME)"; \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) -parallel 1 2>&1 | \
				awk -v t="$$pkg $$t" -v s="$$summary" '/^fuzz: elapsed/ && /execs/ {last=$$0; next} /^fuzz: elapsed/ {next} {print} \
					END {print last; print t ": " last >> s}' \
				|| { echo "FAIL: $$pkg $$t"; cat $$summary; exit 1; }; \
		done; \
	done; echo "== all fuzz targets passed:"; cat $$summary

clean:
	rm -rf bin

# Mutation testing of a change: `make mutate BASE=REV` mutates only the Go
# lines added or changed since REV (the working tree against it; untracked Go
# files whole) and runs the tests of the packages the change touched against
# each mutant as make test runs them (race detector where .ci/test.sh uses
# it, browser tests included): .ci/mutatediff, described in .ci/MUTATION.md.
# It prints the kill rate per package and each survivor as file:line. MUTATE
# (a regular expression of package folders, e.g. engine/gym) limits it;
# MUTATE_TESTS adds packages whose tests run too (not mutated); MUTATE_LOCK
# is held around the test processes that start a browser (the shared
# machine's Chromium lock; empty: none); MUTATE_WORKERS mutants run at once.
# Every line of a package: BASE=$(git hash-object -t tree /dev/null)
# MUTATE=engine/gym.
MUTATE_LOCK ?= /tmp/waymark-chromium.lock
MUTATE_WORKERS ?= 1

# Mutation testing (slow, not part of `make test`): gremlins copies the module
# to a temporary folder, mutates one spot at a time there and runs the
# package's browser-free tests (the -run filter) on each mutant. It prints the
# kill rate (test efficacy) of each package; the LIVED lines are the
# survivors, and those judged equivalent are listed with a reason in .ci/MUTATION.md,
# one section per package. One worker at low priority; MUTATE=engine/action limits it to
# one package. Each mutant may take MUTATE_TIMEOUT times the coverage run's
# time before it counts as timed out (3 gave false timeouts on a loaded
# two-core machine, where rebuilding the test binary alone can take that long).
# -count=1: a cached coverage run takes ~2 s, and every mutant would then time out.
MUTATE_TIMEOUT ?= 10
GREMLINS := github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
# package;tests to run (go test -run);files to mutate (all: every non-test
# file)[;more go test flags]. Only browser-free tests: dataset/replay's
# compare and similarity tests (not the replays), dataset's store tests with
# -short (the slow ones do less under it).
MUTATE_SETS := \
	'engine/action;.;all' \
	'engine;^TestHeartbeat;lease.go' \
	'engine/har;.;all' \
	'engine/openenv;^Test(Contract|Wire|SchemaMatchesPydantic|ValidationErrorsMatchPydantic|ErrorCodesKeepTheSession|CapacityReachedThenFreed|FactoryError|BinaryFrameEndsTheSession|HTTPEndpoints|KeepAlive|ClientErrorsAndLeniency|WSEndpointMapping|ClientInfersStepLimit|Lease(RenewedAndReported|ExpiresAtItsDeadline|GoneEndsAtOnce|HeartbeatWaitsForTheLastRenewal)|InterventionObservationLiteral);step.go wire.go schema.go lease.go' \
	'engine/openenv/wire;.;all' \
	'engine/openenv/control;.;session.go end.go' \
	'dataset;^Test(Contract|CohenKappa|FleissKappa|AgreementFromStore|Import|NormalizeCategory|ReplayRun|SaveReplayRun|WALReplaced|LockDropDetected|Merge);agreement.go importer.go replayruns.go walguard.go merge.go;-short' \
	'dataset/replay;^TestCompare(StepEachField|MaskedAndMerge|Drawn|AtTheChannelTolerance|CountsLiterally|StepScreenshotFields)$$;similar.go replay.go' \
	'engine/endpoints;.;all' \
	'dataset/taskfile;.;all' \
	'dataset/hfexport;.;all'

mutate:
ifdef BASE
	$(GO) run ./.ci/mutatediff -base '$(BASE)' $(if $(MUTATE),-pkg '^($(MUTATE))$$') $(if $(MUTATE_TESTS),-tests '^($(MUTATE_TESTS))$$') -lock '$(MUTATE_LOCK)' -workers $(MUTATE_WORKERS)
else
	@set -uo pipefail; logs=$$(mktemp -d); \
	for set in $(MUTATE_SETS); do \
		IFS=';' read -r pkg run keep flags <<<"$$set"; \
		if [ -n "$${MUTATE:-}" ] && [ "$$pkg" != "$$MUTATE" ]; then continue; fi; \
		excl=(-E /); \
		for f in $$(cd "$$pkg" && ls *.go | grep -v '_test\.go$$'); do \
			[ "$$keep" = all ] || [[ " $$keep " == *" $$f "* ]] || excl+=(-E "^$$f$$"); \
		done; \
		echo "=== $$pkg (tests: $$run $${flags:-}; mutating: $$keep)"; \
		log="$$logs/$${pkg//\//_}.log"; \
		( cd "$$pkg" && GOFLAGS="$${GOFLAGS:-} -count=1 -run=$$run $${flags:-}" nice -n 10 $(GO) run $(GREMLINS) unleash \
			--workers 1 --timeout-coefficient $(MUTATE_TIMEOUT) "$${excl[@]}" ) 2>&1 | tee "$$log"; \
	done; \
	echo; echo "=== kill rate per package (killed / (killed + lived)); survivors are the LIVED lines above"; \
	for f in "$$logs"/*.log; do \
		printf '%-20s %s | %s\n' "$$(basename "$$f" .log | tr _ /)" \
			"$$(grep -ho 'Killed: .*' "$$f" | tail -1)" "$$(grep -ho 'Test efficacy: .*' "$$f" | tail -1)"; \
	done; rm -rf "$$logs"
endif
