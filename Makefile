# The two commands of the README: `make run` and `make test`. Both set up a fresh
# Debian bookworm machine (as root) first; `make install` is that set-up alone.
PY      := /usr/bin/python3
BUILD   ?= build
ASAN_BUILD ?= build-asan
JOBS    ?= 2
PORT    ?= 8888
HEADLESS ?=
export PATH := $(HOME)/.local/bin:$(PATH)

# Debian packages the build, the kernel and the tests need.
DEB_PKGS := build-essential cmake pkg-config ccache git \
  xeus-dev xeus-python-dev python3-xeus-python-shell python3-ipython python3-debugpy \
  pybind11-dev pybind11-json-dev nlohmann-json3-dev xtl-dev cppzmq-dev libzmq3-dev uuid-dev libssl-dev \
  llvm-16-dev libclang-cpp16-dev libclang-16-dev clang-16 libopenblas-dev libgtest-dev \
  libimgui-dev libglfw3-dev libstb-dev fonts-dejavu-core \
  python3-numpy python3-pytest python3-hypothesis python3-jupyter-kernel-test python3-nbclient jupyter-client \
  python3-nbformat python3-nbconvert jupyter-notebook jupyter-console python3-numba python3-numexpr \
  python3-pil chromium xvfb

.PHONY: all deps build build-asan install test test-cpp test-py run bench clean

all: build

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "npcompile: installing Debian packages:$$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "npcompile: Debian packages present"; fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

# The sanitizer variant: the C++ libraries and their unit tests under ASan/UBSan.
build-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DNPC_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS)

install: build
	cmake --install $(BUILD)
	@$(PY) -c "import npcompile, sys; print('npcompile', npcompile.__version__, 'importable from', npcompile.__file__)"
	@jupyter kernelspec list | grep npcompile

test-cpp: build build-asan
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

# Every Python test on the compiled path, then the tracer's suite again on the reference
# path, where results must equal NumPy's bit for bit.
test-py: install
	$(PY) -m pytest -q -p no:cacheprovider tests
	NPC_BACKEND=reference $(PY) -m pytest -q -p no:cacheprovider tests/compiler

test: install test-cpp test-py

run: install
ifneq ($(HEADLESS),)
	$(PY) notebooks/run_all.py
else
	@token=$$($(PY) -c "import secrets; print(secrets.token_hex(16))"); \
	echo "npcompile: open http://127.0.0.1:$(PORT)/?token=$$token (kernel: Python 3 (npcompile))"; \
	cd notebooks && exec jupyter notebook --ip=127.0.0.1 --port=$(PORT) --no-browser --allow-root \
	  --NotebookApp.token=$$token
endif

bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
