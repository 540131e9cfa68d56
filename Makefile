# eacu: one entry point for installing, building, running and testing.
#   make demo   install the Debian packages the demo needs (DEMO_PACKAGES), build the eacu executable (no test targets), run
#               examples/calculator.lua on a private Xvfb
#   make test   install the rest (TEST_PACKAGES), build everything, run the whole test suite (what .ci/run runs)
#   make test-sanitize  the same sources built with AddressSanitizer + UBSan (clang, build-san):
#               unit tests, Lua specs, fuzz regressions, and end-to-end tests that need no timing
#   make fuzz   every libFuzzer target (tests/fuzz) for FUZZ_SECONDS each (default 30)
#   make agent-win  eacu-agent.exe, the Windows device agent (agent/), cross-built with mingw-w64
#               into $(AGENT_BUILD)/eacu-agent.exe (not part of make demo)
#   make install    eacu, its modules, assets, examples, man page, completion and systemd units
#               under PREFIX (default /usr/local; DESTDIR honoured): cmake/Install.cmake
#   make package    $(BUILD)/eacu_VERSION_amd64.deb (CPack DEB) from the built eacu and eacu-agent.exe
#   make test-package  the package installed with apt on this machine, its example, worker and
#               serve run from /usr, then purged (tests/package/package_test.sh; CI runs it)
BUILD ?= build
AGENT_BUILD ?= build-agent
SAN_BUILD ?= build-san
FUZZ_SECONDS ?= 30
JOBS  ?= 2
PREFIX ?= /usr/local
# Debian packages. DEMO_PACKAGES: what building eacu and `make demo` need (the build, Xvfb,
# xcalc, a window manager, OCR data). TEST_PACKAGES: what only the tests and the optional targets
# need (clang for the sanitizer build, Chromium, the programs the tests drive, redis-server, adb,
# Wine and the mingw-w64 cross compilers for `make agent-win`; for `make package` and its tests:
# dpkg-dev and file for dpkg-shlibdeps, systemd for systemd-analyze, man-db, bash-completion,
# python3-yaml).
DEMO_PACKAGES = build-essential cmake pkg-config ccache \
  libluajit-5.1-dev libopencv-dev libopencv-contrib-dev nlohmann-json3-dev libsqlite3-dev catch2 \
  libx11-dev libxext-dev libxtst-dev libxres-dev libxcomposite-dev libxdamage-dev \
  libtesseract-dev tesseract-ocr-eng tesseract-ocr-chi-sim libcurl4-openssl-dev libreadline-dev \
  libcpp-httplib-dev libatspi2.0-dev libboost-dev libhiredis-dev libxml2-dev \
  libavcodec-dev libavutil-dev libswscale-dev \
  xvfb xfonts-base fonts-dejavu-core fonts-droid-fallback x11-apps openbox dbus at-spi2-core
TEST_PACKAGES = $(DEMO_PACKAGES) clang-14 libclang-rt-14-dev \
  x11-utils zenity sqlite3 procps chromium tmux python3 python3-doc python3-tk python3-gi gir1.2-gtk-3.0 \
  xterm xdotool \
  libatk-adaptor libgail-common hexchat redis-server adb ffmpeg \
  wine64 mingw-w64 fonts-wqy-microhei \
  dpkg-dev file systemd man-db groff-base bash-completion python3-yaml
# ccache (CMakeLists.txt) hashes paths under this checkout relative to it, and not the build's
# working directory: a fresh clone elsewhere (CI's) reuses what earlier builds on the machine
# compiled (ccache's manual, "Compiling in different directories").
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps deps-demo install-packages configure configure-demo build build-eacu demo test clean configure-san test-sanitize fuzz agent-win \
  install package test-package

# deps-demo installs DEMO_PACKAGES, deps all of TEST_PACKAGES (missing ones only, one apt-get).
deps-demo:
	@$(MAKE) --no-print-directory install-packages PKGS="$(DEMO_PACKAGES)"

deps:
	@$(MAKE) --no-print-directory install-packages PKGS="$(TEST_PACKAGES)"

install-packages:
	@missing=$$(for p in $(PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

# make demo installs only DEMO_PACKAGES: a newcomer's first command stays quick.
configure-demo: deps-demo
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j$(JOBS)

build-eacu: configure-demo
	cmake --build $(BUILD) -j$(JOBS) --target eacu

demo: build-eacu
	$(BUILD)/eacu run examples/calculator.lua --display virtual
	$(BUILD)/eacu show

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# One sanitizer build for both: clang with ASan + UBSan everywhere and libFuzzer's coverage.
configure-san: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
	  -DEACU_SANITIZE=ON -DEACU_FUZZ=ON

test-sanitize: configure-san
	cmake --build $(SAN_BUILD) -j$(JOBS)
	JOBS=$(JOBS) bash tests/sanitize/run_sanitized.sh $(SAN_BUILD)

fuzz: configure-san
	cmake --build $(SAN_BUILD) -j$(JOBS) --target fuzzers
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp bash tests/fuzz/run_fuzzers.sh $(SAN_BUILD) $(FUZZ_SECONDS)

agent-win: deps
	cmake -S agent -B $(AGENT_BUILD) -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/mingw-w64.cmake -DCMAKE_BUILD_TYPE=Release
	cmake --build $(AGENT_BUILD) -j$(JOBS) --target eacu-agent

# make install: the layout of the package under $(PREFIX), e.g. make install PREFIX=/opt/eacu
# DESTDIR=/tmp/stage. Builds only eacu and its man page and completion.
install: build-eacu
	cmake --build $(BUILD) -j$(JOBS) --target eacu_docs
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# make package: the eacu already built in $(BUILD) (nothing else is built) and eacu-agent.exe.
package: build-eacu agent-win
	cmake -S . -B $(BUILD) -DEACU_AGENT_EXE=$(CURDIR)/$(AGENT_BUILD)/eacu-agent.exe
	cmake --build $(BUILD) -j$(JOBS) --target eacu eacu_docs
	rm -f $(BUILD)/eacu_*_amd64.deb
	cd $(BUILD) && cpack -G DEB
	@ls -l $(BUILD)/eacu_*_amd64.deb

# make test-package: installs the .deb on this machine (root or sudo), runs it, purges it.
test-package: package
	bash tests/package/package_test.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(AGENT_BUILD)
