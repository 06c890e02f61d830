# meshmem top-level Makefile: the two commands of the README.
#   make        configure (CMake) and build everything into build/
#   make test   install what is missing, build, install the Python package into build/venv,
#               run every test (ctest, then pytest on the installed package)
#   make demo   install what is missing, build, run the main demonstration on this machine
#   make lint   ruff on the Python code (pyproject.toml's [tool.ruff]), and the C and C++ sources
#               against .clang-format (scripts/format.sh --check; scripts/format.sh rewrites them)
#   make sanitize   the test suite built with ASan+UBSan (build-asan/) and TSan (build-tsan/)
#   make rtl-synth  Yosys on the OPTWEB engine (rtl/synth/synth.py): each block and the node at
#                   N = 2, 4, 8, 16 (RTL_SYNTH_NODES), the table into docs/rtl-synth.md; minutes
#                   per run, hours at N = 16 (RTL_SYNTH_TIMEOUT seconds per run); not in make test
#   make install [PREFIX=/usr/local] [DESTDIR=stage]   libraries, headers, meshrun, meshcc,
#                   pkg-config file and CMake package under PREFIX (staged under DESTDIR)
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all build deps python test demo lint sanitize asan tsan clean install rtl-synth

all: build

deps:
	@scripts/install-deps.sh

# Configured again when scripts/install-deps.sh installed packages after it was configured: what
# CMake did not find then (OpenMPI's twins, OpenBLAS, FFTW, UCX, PMIx) is found and built now.
DEPS_STAMP ?= .deps/installed
$(DEPS_STAMP):
	mkdir -p $(@D) && touch $@

$(BUILD)/build.ninja: $(DEPS_STAMP)
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)
	touch $@

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The Python package, installed as a user would (pip install .) into a venv of the build tree
# that sees the system's packages (numpy, pytest, cffi, scikit-build-core: install-deps.sh);
# its CMake build stays in $(BUILD)/wheel, so that a second install rebuilds only what changed.
VENV = $(BUILD)/venv
$(VENV)/bin/python:
	python3 -m venv --system-site-packages $(VENV)

python: $(VENV)/bin/python
	PIP_ROOT_USER_ACTION=ignore $(VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  --no-build-isolation --no-deps -C build-dir=$(abspath $(BUILD))/wheel .

# --no-tests=error: a label or a configuration that selects no test fails instead of passing.
# pytest runs with the venv's interpreter: the Python tests test the installed package
# (MESHMEM_TEST_INSTALLED=1 makes a missing one an error, tests/py/conftest.py).
test: deps build python
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS) --timeout 300
	MESHMEM_BUILD=$(abspath $(BUILD)) MESHMEM_TEST_INSTALLED=1 $(VENV)/bin/python -m pytest -q tests/py

# the installed tree is relocatable (cmake/MeshmemInstall.cmake): PREFIX needs no reconfiguration
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

demo: deps build
	$(BUILD)/bin/meshmem demo

# the ruff and clang-format install-deps.sh installs (the versions [tool.ruff] and .clang-format
# are written for); fails on a finding or on a file that does not conform
lint: deps
	python3 -m ruff check .
	scripts/format.sh --check

# The sanitizer suites: the tests labelled "sanitize" (tests/CMakeLists.txt chooses them and
# sets the sanitizers' options), then a check that they left no process and nothing in /dev/shm.
SANITIZE_CTEST = tests/sanitizers/ctest-checked.sh
SANITIZE_ARGS  = --output-on-failure --no-tests=error -j $(JOBS) --timeout 300 -L sanitize

asan:
	$(MAKE) build BUILD=build-asan BUILD_TYPE=Debug CMAKE_ARGS=-DMESHMEM_SANITIZE=address
	$(SANITIZE_CTEST) build-asan $(SANITIZE_ARGS)

tsan:
	$(MAKE) build BUILD=build-tsan BUILD_TYPE=Debug CMAKE_ARGS=-DMESHMEM_SANITIZE=thread
	$(SANITIZE_CTEST) build-tsan $(SANITIZE_ARGS)

sanitize: deps asan tsan

RTL_SYNTH_NODES   ?= 2,4,8,16
RTL_SYNTH_TIMEOUT ?= 3600
rtl-synth:
	python3 rtl/synth/synth.py --blocks --intel --nodes $(RTL_SYNTH_NODES) \
	  --timeout $(RTL_SYNTH_TIMEOUT) --out $(BUILD)/rtl-synth --doc docs/rtl-synth.md

clean:
	rm -rf build build-asan build-tsan
