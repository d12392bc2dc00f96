#!/bin/bash
# Run HERE (Debian bookworm with llvm-16-dev): makes .device-carry/cpu, what the GPU machine
# needs to build npcompile._native with the LLVM CPU backend (.ci/gpu-machine cpu16):
#   libnpc_backend_cpu.a   compiler/backends/cpu built here (the only sources that include
#                          LLVM/clang headers, which the GPU machine lacks)
#   llvm16-core.tar.xz     libLLVM-16.so.1, libclang-cpp.so.16 and their libz3 and libedit
#   llvm16-extra.tar.xz    libxml2 and ICU 72, used there only where its own are missing
# The shared libraries are Debian's packages (apt-get download), only their .so files
# kept, xz-compressed: about 35 MB together, under the 64 MiB that travels.
# Then: run `.ci/gpu-machine cpu16` there with .device-carry/cpu, .device-carry/include and
# .device-carry/bench carried.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
DEST=$ROOT/.device-carry/cpu
BUILD=${BUILD:-$ROOT/build-cpu-archive}
mkdir -p "$DEST"

# 1. the archive, from this checkout's sources (incremental)
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DNPC_BUILD_KERNEL=OFF -DNPC_BUILD_TESTS=OFF \
    -DNPC_BUILD_VIEWER=OFF -DNPC_WITH_CUDA=OFF > /dev/null
fi
nice -n 10 cmake --build "$BUILD" -j2 --target npc_backend_cpu > /dev/null
cp "$BUILD/compiler/backends/cpu/libnpc_backend_cpu.a" "$DEST/"

# 2. the shared libraries it was built against (same versions as installed here)
if [ ! -f "$DEST/llvm16-core.tar.xz" ] || [ ! -f "$DEST/llvm16-extra.tar.xz" ]; then
  work=$(mktemp -d)
  (cd "$work" && apt-get download libllvm16 libclang-cpp16 libz3-4 libedit2 libxml2 libicu72 > /dev/null)
  mkdir -p "$work/x" "$work/core" "$work/extra"
  for f in "$work"/*.deb; do dpkg -x "$f" "$work/x"; done
  lib=$work/x/usr/lib/x86_64-linux-gnu
  # each under its soname, links resolved
  cp -L "$lib/libLLVM-16.so.1" "$lib/libclang-cpp.so.16" "$lib/libz3.so.4" "$lib/libedit.so.2" "$work/core/"
  cp -L "$lib/libxml2.so.2" "$lib/libicuuc.so.72" "$lib/libicudata.so.72" "$work/extra/"
  (cd "$work/core" && tar cf - * | nice -n 10 xz -9 -T2 > "$DEST/llvm16-core.tar.xz")
  (cd "$work/extra" && tar cf - * | nice -n 10 xz -9 -T2 > "$DEST/llvm16-extra.tar.xz")
  rm -rf "$work"
fi
du -sh "$DEST"/*
