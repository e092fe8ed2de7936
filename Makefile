# boxvoice — the two commands in README.md (`make demo`, `make test`) start here.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

DEB_PACKAGES := libasound2-dev libsndfile1-dev libopus-dev libcurl4-openssl-dev libsoxr-dev \
	libsqlite3-dev libpocketsphinx-dev pocketsphinx-en-us libwebsockets-dev libcivetweb-dev alsa-utils
# Only `make samples` needs these (Samples/ is committed, so tests never synthesize speech).
SAMPLE_TOOLS := flite sox
# Only `make bench` needs this: GNU time measures a command's own peak memory (see MemoryBench.swift).
BENCH_TOOLS := time

SWIFT_BUILD_FLAGS ?=
BIN_DEBUG = $$(swift build --show-bin-path)/boxvoice

.PHONY: setup build demo test bench samples clean

## setup: install the Debian packages the project needs (idempotent; quiet when all are present)
setup:
	@scripts/apt-ensure.sh $(DEB_PACKAGES)

build: setup
	swift build $(SWIFT_BUILD_FLAGS)

## demo: record a committed sample through a real ALSA capture PCM (the file plugin) and print its segments
demo: build
	@scripts/demo.sh "$(BIN_DEBUG)"

## test: build everything and run every test target
test: setup
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	swift test --skip-build

## bench: measure against the named baselines and write BENCHMARKS.md (release build, Swift runtime linked
## statically as a shipped binary would be: it starts in ~5 ms instead of ~15 ms)
RELEASE_FLAGS := -c release --static-swift-stdlib
bench: setup
	@scripts/apt-ensure.sh $(BENCH_TOOLS)
	swift build $(RELEASE_FLAGS)
	@scripts/bench.sh "$$(swift build $(RELEASE_FLAGS) --show-bin-path)"

## samples: regenerate Samples/ with flite and sox
samples:
	@scripts/apt-ensure.sh $(SAMPLE_TOOLS)
	Samples/generate.sh

clean:
	rm -rf .build
