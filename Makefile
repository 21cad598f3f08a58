# deepladder: the two set-up commands.
#   make run   installs what is missing, builds (Release), runs the quick ladder on the built-in corpus
#   make test  the same set-up and build, then every test (ctest; long ones are labelled and skipped)
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: setup configure build run test bench clean format

setup:
	@bash scripts/setup

configure: setup
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) --parallel $(JOBS)

run: build
	@bash scripts/quick-run $(BUILD_DIR)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --parallel $(JOBS) --label-exclude 'long|bench|gpu'

bench: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --label-regex bench --verbose

clean:
	@rm -rf $(BUILD_DIR)

format:
	@git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | xargs clang-format -i
