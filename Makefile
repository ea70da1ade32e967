# The README's commands. Everything is built by CMake into build/.
#   make        install missing Debian packages, build into build/ (hpm at build/bin/hpm)
#   make demo   ... then run the main job on the bundled workloads
#   make check  ... then every test: unit, integration, a Release build and a clang
#               build (each checked by its installed tree), ASan+UBSan build, the
#               threaded tests under ThreadSanitizer, bounded fuzzing
#   make bench  ... then every benchmark (lines "ratio NAME VALUE")
#   make deb    ... then the Debian package build/hpm_VERSION_amd64.deb (CPack)
BUILD      ?= build
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 20
# Warnings are errors in every build this Makefile (and so CI) makes.
WERROR     = -DHPM_WERROR=ON

.PHONY: all deps build demo check test asan fuzz bench deb clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(WERROR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

# Plain tests; a Release build (GCC) and a clang build, warnings as errors,
# each checked by installing it and counting from the moved install
# (install.relocated; the build types distributions and Spack make); the
# same tests under ASan+UBSan; the threaded tests (label threads, natively)
# under ThreadSanitizer; bounded fuzzing.
check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE reference
	@cmake -S . -B $(BUILD)/release $(WERROR) -DCMAKE_BUILD_TYPE=Release -DHPM_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS)
	cd $(BUILD)/release && ctest --output-on-failure -R '^install\.relocated$$'
	@CC=clang cmake -S . -B $(BUILD)/clang $(WERROR) -DCMAKE_BUILD_TYPE=Release -DHPM_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)/clang -j $(JOBS)
	cd $(BUILD)/clang && ctest --output-on-failure -R '^install\.relocated$$'
	@cmake -S . -B $(BUILD)/asan $(WERROR) -DHPM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && ctest --output-on-failure -j $(JOBS) -LE nosan
	@cmake -S . -B $(BUILD)/tsan $(WERROR) -DHPM_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD)/tsan -j $(JOBS) --target threads_tests
	cd $(BUILD)/tsan && ctest --output-on-failure -j $(JOBS) -L threads
	@CC=clang cmake -S . -B $(BUILD)/fuzz $(WERROR) -DHPM_FUZZ=ON -DHPM_FUZZ_SECONDS=$(FUZZ_SECONDS) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD)/fuzz -j $(JOBS)
	cd $(BUILD)/fuzz && ctest --output-on-failure

test: check

bench: build
	@bash scripts/bench.sh $(BUILD)

deb: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD)
