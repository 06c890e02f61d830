# meshmem top-level Makefile: the two commands of the README.
#   make        configure (CMake) and build everything into build/
#   make test   install what is missing, build, run every test (ctest + pytest)
#   make demo   install what is missing, build, run the main demonstration on this machine
#   make sanitize   the test suite built with ASan+UBSan (build-asan/) and TSan (build-tsan/)
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all build deps test test-c test-py demo sanitize asan tsan clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300
	MESHMEM_BUILD=$(abspath $(BUILD)) python3 -m pytest -q tests/py

demo: deps build
	$(BUILD)/bin/meshmem demo

asan:
	$(MAKE) build BUILD=build-asan BUILD_TYPE=Debug CMAKE_ARGS=-DMESHMEM_SANITIZE=address
	cd build-asan && ctest --output-on-failure -j $(JOBS) --timeout 300 -L sanitize

tsan:
	$(MAKE) build BUILD=build-tsan BUILD_TYPE=Debug CMAKE_ARGS=-DMESHMEM_SANITIZE=thread
	cd build-tsan && ctest --output-on-failure -j $(JOBS) --timeout 300 -L sanitize

sanitize: deps asan tsan

clean:
	rm -rf build build-asan build-tsan
