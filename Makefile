# deepladder: the two set-up commands.
#   make run   installs what is missing, builds (Release) only what the quick ladder runs (the CLI and
#              the worker; the workbench too when a display is present), runs the quick ladder on the
#              built-in corpus
#   make test  the same set-up, builds everything (tests and benchmarks too), then every test
#              (ctest; long ones are labelled and skipped), the benchmarks' smoke runs included
#   make bench every benchmark at full size (label bench; exits non-zero when a goal is MISSED)
#   make bench-smoke  every benchmark in smoke mode (label bench-smoke: small sizes, seconds each;
#              fails when one fails or prints MISSED); part of make test
#   make gui   builds the desktop workbench and opens it on the quick ladder's database
#   make check-sanitize  the tests built with AddressSanitizer + UndefinedBehaviorSanitizer in
#              build-sanitize/ (slow: a separate full build; not part of make test)
#   make fuzz  a libFuzzer campaign over every parser (clang; build-fuzz/; FUZZ_SECONDS per parser)
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

SANITIZE_DIR ?= build-sanitize
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 180

# What `make run` needs: the CLI (which draws the plots) and the worker it starts; the workbench
# only where there is a display to show it on.
RUN_TARGETS := deepladder deepladder-worker
ifneq ($(DISPLAY)$(WAYLAND_DISPLAY),)
RUN_TARGETS += deepladder-gui
endif

.PHONY: setup configure build build-run run gui test bench bench-smoke clean format check-sanitize fuzz

setup:
	@bash scripts/setup

configure: setup
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) --parallel $(JOBS)

build-run: configure
	@echo "== building $(RUN_TARGETS) in $(BUILD_DIR)/ (then the quick ladder trains: about 4-20 minutes on 2 cores, by the machine) =="
	@cmake --build $(BUILD_DIR) --parallel $(JOBS) --target $(RUN_TARGETS)

run: build-run
	@bash scripts/quick-run $(BUILD_DIR)

gui: configure
	@cmake --build $(BUILD_DIR) --parallel $(JOBS) --target deepladder-gui
	@$(BUILD_DIR)/bin/deepladder-gui $(wildcard results/quick/runs.db)

test: build
	@echo "== running the tests (labels long, bench and gpu are skipped; bench-smoke runs) =="
	@cd $(BUILD_DIR) && ctest --output-on-failure --parallel $(JOBS) --label-exclude 'long|^bench$$|gpu'

bench: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --label-regex '^bench$$' --verbose

bench-smoke: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --label-regex '^bench-smoke$$'

check-sanitize: setup
	@cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DDEEPLADDER_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(SANITIZE_DIR) --parallel $(JOBS) --target deepladder_tests
	@cd $(SANITIZE_DIR) && \
	  ASAN_OPTIONS=detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/scripts/sanitizers/ubsan.supp \
	  ctest --output-on-failure --parallel $(JOBS) --label-exclude 'long|bench|gpu' $(CTEST_FLAGS)

fuzz: setup
	@bash scripts/fuzz $(FUZZ_DIR) $(FUZZ_SECONDS)

clean:
	@rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(FUZZ_DIR)

format:
	@git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | xargs clang-format -i
