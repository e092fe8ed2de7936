# boxvoice — the two commands in README.md (`make demo`, `make test`) start here.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

DEB_PACKAGES := libasound2-dev libsndfile1-dev libcurl4-openssl-dev libsoxr-dev libspeexdsp-dev \
	libsqlite3-dev libsystemd-dev dbus-daemon tmux libpocketsphinx-dev pocketsphinx-en-us libwebsockets-dev libcivetweb-dev alsa-utils \
	sphinxtrain sphinxbase-utils pocketsphinx cmake python3-pip
# Only `make samples` needs these (Samples/ is committed, so tests never synthesize speech).
SAMPLE_TOOLS := flite espeak-ng sox festival festvox-suopuhe-lj festvox-czech-dita
# Only `make bench` needs these: GNU time measures a command's own peak memory (see MemoryBench.swift); ffmpeg decodes
# the real recorded speech (G.722) the spoken-commands section fetches, sox degrades clips, festival speaks new
# sentences (its kal and slt voices: the held-out end-of-input clips of scripts/end-of-input-clips.sh; its Italian pc
# and lp voices: the accented English of held-out command set j; its Finnish and Czech voices: development set k),
# flite speaks command set l (its awb and rms voices).
BENCH_TOOLS := time ffmpeg sox festival festvox-kdlpc16k festvox-kallpc16k festvox-us-slt-hts festvox-itapc16k \
	festvox-italp16k festvox-suopuhe-lj festvox-suopuhe-mv festvox-czech-dita festvox-czech-ph espeak-ng flite \
	python3-matplotlib
# Only `make deb` needs these.
DEB_TOOLS := dpkg-dev lintian binutils patchelf
# Only `make check-readme` needs these beyond the others: GNOME's media-keys schema (for the README's gsettings
# binding, with GLib's keyfile backend), gsettings itself, and a compiler for its notification recorder.
FIRST_HOUR_TOOLS := gnome-settings-daemon-common libglib2.0-bin gcc

SWIFT_BUILD_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# `boxvoice --version` reports the commit (CBuildInfo: a C define, the one value SwiftPM passes through).
BUILD_INFO = -Xcc -DBOXVOICE_COMMIT='"$(COMMIT)"' $(HEARING_LINK)
# The neural hearing parts (whisper.cpp and Silero VAD) that `make setup` builds from archives pip
# downloads by pinned name, version and sha256 (scripts/hearing-parts.sh). SwiftPM finds their headers and libraries
# through pkg-config; the programs find the libraries at run time in the build folder, or installed, in
# ../lib/boxvoice beside the binary.
HEARING := $(CURDIR)/.build/hearing
export PKG_CONFIG_PATH := $(HEARING)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
HEARING_LINK := -Xlinker -rpath -Xlinker $(HEARING)/lib -Xlinker -rpath -Xlinker '$$ORIGIN/../lib/boxvoice'
BIN_DEBUG = $$(swift build --show-bin-path)/boxvoice

.PHONY: setup build build-tests demo test bench samples clean release install uninstall deb check-readme

## setup: install the Debian packages the project needs (idempotent; quiet when all are present)
setup:
	@scripts/apt-ensure.sh $(DEB_PACKAGES)
	@scripts/hearing-parts.sh $(HEARING)

build: setup
	swift build $(SWIFT_BUILD_FLAGS) $(BUILD_INFO)

## demo: dictate a committed sample to the embedded local box (no microphone, no box needed) and print the message
demo: build
	@scripts/demo.sh "$(BIN_DEBUG)"

build-tests: setup
	swift build --build-tests $(SWIFT_BUILD_FLAGS) $(BUILD_INFO)

## test: build everything and run every test target (with a real PipeWire sound server: scripts/sound-server-packages.sh)
test: build-tests
	@# No product file over 400 lines, no function over 80 (the bench is a tool, not the product).
	@python3 scripts/check-shape.py
	@scripts/sound-server-packages.sh
	@# The test binary runs directly: `swift test` relays its output through a pipe and was seen to drop the last
	@# lines of a long run (the summary among them). Every test is swift-testing; there is no XCTest pass to miss.
	"$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)/boxvoicePackageTests.xctest" --testing-library swift-testing
	@scripts/offline-setup-check.sh
	@$(MAKE) --no-print-directory check-readme

## check-readme: the README's quick start run as written, as a new user's first hour (scripts/check-readme.sh)
check-readme: setup
	@scripts/apt-ensure.sh $(FIRST_HOUR_TOOLS) $(DEB_TOOLS)
	@scripts/check-readme.sh

## bench: measure against the named baselines, each area's report in docs/bench/, and write BENCHMARKS.md from them;
## AREAS="capture latency" remakes only those (scripts/bench.sh lists them). Release build, Swift runtime linked
## statically as a shipped binary would be: it starts in ~5 ms instead of ~15 ms.
RELEASE_FLAGS := -c release --static-swift-stdlib
AREAS ?=
bench: setup
	@scripts/apt-ensure.sh $(BENCH_TOOLS)
	swift build $(RELEASE_FLAGS) $(BUILD_INFO)
	@scripts/bench.sh "$$(swift build $(RELEASE_FLAGS) --show-bin-path)" $(AREAS)

## release: the binaries as shipped (release build, Swift runtime linked statically)
release: setup
	swift build $(RELEASE_FLAGS) $(BUILD_INFO)

## install: boxvoice and boxsim in PREFIX/bin, Models in PREFIX/share/boxvoice, the systemd user unit, man pages and
## bash/zsh/fish completions (PREFIX=/usr/local; DESTDIR honoured); uninstall removes exactly what it installed
install: release
	@scripts/install.sh "$$(swift build $(RELEASE_FLAGS) --show-bin-path)" "$(DESTDIR)" "$(PREFIX)"

uninstall:
	@scripts/uninstall.sh "$(DESTDIR)" "$(PREFIX)"

## deb: a Debian package (build/deb/) from the same install tree, checked by lintian
deb: release
	@scripts/apt-ensure.sh $(DEB_TOOLS)
	@scripts/make-deb.sh "$$(swift build $(RELEASE_FLAGS) --show-bin-path)"
	lintian --fail-on error build/deb/*.deb

## samples: regenerate Samples/ with flite, espeak-ng and sox
samples:
	@scripts/apt-ensure.sh $(SAMPLE_TOOLS)
	Samples/generate.sh

clean:
	rm -rf .build build
