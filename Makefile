# Waymark. Two commands on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
export LANG := en_US.UTF-8
export FYNE_SCALE ?= 1
export CGO_ENABLED := 1

# Debian/Ubuntu packages: the browser and display the engine drives, fonts,
# the GL/X11 headers Fyne's GLFW driver compiles against, and tools the
# end-to-end tests use (xdotool, imagemagick's `import`).
APT_PACKAGES := chromium xvfb xauth xdotool imagemagick fonts-dejavu-core fonts-liberation \
	gcc pkg-config libgl1-mesa-dev libgl1-mesa-dri xorg-dev libx11-dev libxrandr-dev \
	libxxf86vm-dev libxi-dev libxcursor-dev libxinerama-dev

BIN := bin/waymark

.PHONY: deps build run test bench vet clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
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

test: deps
	$(GO) vet ./...
	$(GO) test -timeout 40m ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 20x -timeout 40m ./...

clean:
	rm -rf bin
