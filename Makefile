# The two commands of the README: `make run` and `make test`. Both set up a fresh
# Debian bookworm machine (as root) first; `make install` is that set-up alone.
PY      := /usr/bin/python3
# The project's virtual environment: Debian's interpreter and site packages (NumPy 1.24,
# IPython, the xeus-python shell, numba) plus the pinned PyPI packages Debian lacks
# (JupyterLab 4, Notebook 7, ipywidgets 8, anywidget, Dask). The kernel embeds it and
# every test runs in it.
VENV    ?= .venv
VPY     := $(CURDIR)/$(VENV)/bin/python
# The second test matrix: a current NumPy 2.x, nothing of Debian's site packages.
NP2     ?= .venv-np2
NP2PY   := $(CURDIR)/$(NP2)/bin/python
PYSITE  := lib/python3.11/site-packages
PIP     := -m pip install -q --disable-pip-version-check --no-input
# A CUDA toolkit where the machine has one, else NVIDIA's wheels in the environment.
CUDA_HOME ?= $(if $(wildcard /usr/local/cuda/include/cuda.h),/usr/local/cuda,$(CURDIR)/$(VENV)/$(PYSITE)/nvidia/cu13)
CMAKE_ARGS := -DNPC_KERNEL_PYTHON=$(VPY) -DNPC_CUDA_HOME=$(CUDA_HOME)
BUILD   ?= build
ASAN_BUILD ?= build-asan
JOBS    ?= 2
PORT    ?= 8888
HEADLESS ?=
export PATH := $(HOME)/.local/bin:$(PATH)

# Debian packages the build, the kernel and the tests need (matplotlib: the teaching
# notebooks plot, and a recommends-free apt would not bring it with IPython).
DEB_PKGS := build-essential cmake pkg-config ccache git \
  xeus-dev xeus-python-dev python3-xeus-python-shell python3-ipython python3-debugpy \
  pybind11-dev pybind11-json-dev nlohmann-json3-dev xtl-dev cppzmq-dev libzmq3-dev uuid-dev libssl-dev \
  llvm-16-dev libclang-cpp16-dev libclang-16-dev clang-16 libopenblas-dev libgtest-dev \
  libimgui-dev libglfw3-dev libstb-dev fonts-dejavu-core \
  python3-venv python3-numpy python3-pytest python3-hypothesis python3-jupyter-kernel-test python3-nbclient jupyter-client \
  python3-nbformat python3-nbconvert jupyter-notebook jupyter-console python3-numba python3-numexpr \
  python3-pil python3-matplotlib chromium xvfb

.PHONY: all deps venv venv-np2 build build-asan install test test-cpp test-py test-py-np2 run bench bench-programs fuzz clean

all: build

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "npcompile: installing Debian packages:$$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "npcompile: Debian packages present"; fi

# The environment is remade when a requirements file changes; pip is told the versions of
# everything it pulls in (lab-constraints.txt), so two machines get the same packages.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements/lab.txt requirements/lab-constraints.txt requirements/cuda.txt \
                   share/jupyterlab/overrides.json | deps
	$(PY) -m venv --system-site-packages $(VENV)
	$(VPY) $(PIP) -r requirements/lab.txt -c requirements/lab-constraints.txt
	@if [ ! -f /usr/local/cuda/include/cuda.h ]; then \
	  echo "npcompile: no CUDA toolkit in /usr/local/cuda: NVRTC and cuda.h from NVIDIA's wheels"; \
	  $(VPY) $(PIP) -r requirements/cuda.txt; fi
	@# JupyterLab's defaults for this environment: no news or update prompts on a closed network
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp share/jupyterlab/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

# npcompile reaches this environment through a .pth naming the folder it is installed in.
venv-np2: $(NP2)/.installed
$(NP2)/.installed: requirements/numpy2.txt | deps
	$(PY) -m venv $(NP2)
	$(NP2PY) $(PIP) -r requirements/numpy2.txt
	$(PY) -c "import site; print(site.getusersitepackages())" > $(NP2)/$(PYSITE)/npcompile.pth
	touch $@

build: venv
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	cmake --build $(BUILD) -j$(JOBS)

# The sanitizer variant: the C++ libraries and their unit tests under ASan/UBSan.
build-asan: venv
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DNPC_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)

# The viewer lands in the install prefix's bin (~/.local/bin, not on root's PATH on
# Debian): linked into the venv's bin and, where writable, /usr/local/bin.
install: build
	cmake --install $(BUILD)
	@prefix=$$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' $(BUILD)/CMakeCache.txt); \
	for dir in $(CURDIR)/$(VENV)/bin /usr/local/bin; do \
	  if [ -x "$$prefix/bin/npcompile-viewer" ] && [ -w "$$dir" ]; then \
	    ln -sf "$$prefix/bin/npcompile-viewer" "$$dir/npcompile-viewer"; fi; \
	done; command -v npcompile-viewer >/dev/null && echo "npcompile-viewer: $$(command -v npcompile-viewer)" || true
	@$(VPY) -c "import npcompile, sys; print('npcompile', npcompile.__version__, 'importable from', npcompile.__file__)"
	@$(VPY) -m jupyter kernelspec list 2>/dev/null | grep npcompile

test-cpp: build build-asan
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

# Every Python test on the compiled path, then the tracer's suite again on the reference
# path, where results must equal NumPy's bit for bit.
# The browser tests' screenshots (JupyterLab, the report widget step by step, the viewer)
# are kept in $(SCREENSHOTS) and listed at the end, for a person to look at.
SCREENSHOTS ?= $(CURDIR)/$(BUILD)/screenshots
test-py: install
	NPC_SCREENSHOT_DIR=$(SCREENSHOTS) $(VPY) -m pytest -q -p no:cacheprovider tests
	@ls -1 $(SCREENSHOTS)/*.png 2>/dev/null | sed 's/^/screenshot: /' || true
	NPC_BACKEND=reference $(VPY) -m pytest -q -p no:cacheprovider tests/compiler

# The differential suite (tracer, compiler, reports) again under NumPy 2.x: results follow
# that version's promotion rules (NEP 50), the oracle being the NumPy that runs the test.
test-py-np2: install venv-np2
	$(NP2PY) -c "import numpy, npcompile; print('NumPy', numpy.__version__, '+ npcompile from', npcompile.__file__)"
	$(NP2PY) -m pytest -q -p no:cacheprovider tests/compiler tests/profiler tests/fuzz \
	  --ignore=tests/profiler/test_report_chromium.py --ignore=tests/profiler/test_viewer_screenshot.py

# A differential fuzzing campaign (tests/fuzz/fuzz.py): random NumPy programs from fresh
# seeds against eager NumPy, each batch in a child process (crashes and hangs are caught
# and their seed printed). MINUTES=10 by default; FUZZ_NUMPY2=1 runs it under NumPy 2.x.
MINUTES ?= 10
fuzz: install
	$(if $(FUZZ_NUMPY2),$(NP2PY),$(VPY)) tests/fuzz/fuzz.py --seconds $$(( $(MINUTES) * 60 ))

test: install test-cpp test-py test-py-np2

run: install
ifneq ($(HEADLESS),)
	$(VPY) notebooks/run_all.py
else
	@token=$$($(VPY) -c "import secrets; print(secrets.token_hex(16))"); \
	echo "npcompile: open http://127.0.0.1:$(PORT)/lab?token=$$token (kernel: Python 3 (npcompile))"; \
	cd notebooks && exec $(VPY) -m jupyter lab --ip=127.0.0.1 --port=$(PORT) --no-browser --allow-root \
	  --IdentityProvider.token=$$token
endif

bench: install
	$(VPY) bench/run.py

bench-programs: install
	$(VPY) bench/run_programs.py

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(VENV) $(NP2)
