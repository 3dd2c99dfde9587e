#!/bin/sh
# test-out-of-tree.sh BUILD_DIR — prove that a third party can use the
# installed SDK: install BUILD_DIR (a configured and built insee tree) into a
# temporary prefix, check that the SDK's documents are there with links that
# hold, build the installed copy of this template against it with CMake
# (find_package(InseeSDK)) and this one with pkg-config (insee-sdk.pc), check
# both plugins with the installed insee-conform, and have the installed insee
# describe the plugin and run the example experiment with it; build the
# example bridge client against the installed libinsee-client with
# pkg-config (insee-client.pc) and CMake (COMPONENTS client), and the MPI
# ring example against libinsee-mpi (insee-mpi.pc, COMPONENTS mpi), run by
# the installed insee-mpirun with nothing but the installed tree's run paths
# to find the libraries (no LD_LIBRARY_PATH), and HPCC's ping-pong, a plain
# MPI program, with the installed insee-mpicc. Exits non-zero on the first
# failure; removes its temporary directory in any case.
set -eu

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix
name=oldest-first
so=arbiter-$name.so

step() { printf '== %s\n' "$*"; }

step "install $build into a temporary prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"

step "every installed program and library finds its libraries"
# The prefix is not the one configured: only run paths relative to
# $ORIGIN find the project's own libraries here.
find "$prefix" -type f | while IFS= read -r f; do
  [ "$(head -c 4 "$f")" = "$(printf '\177ELF')" ] || continue
  if ldd "$f" | grep 'not found'; then
    echo "$f: libraries not found (its run path: $(readelf -d "$f" | grep -E 'R(UN)?PATH' || echo none))" >&2
    exit 1
  fi
done

step "the SDK documents and the template are installed, their links hold"
doc=$(find "$prefix" -path '*/sdk/conformance/README.md' -printf '%h\n')
test -n "$doc"
doc=$(dirname "$(dirname "$doc")")
bash "$here/../../tests/docs/check-docs.sh" docdir "$doc"

step "build the installed template with find_package(InseeSDK)"
cmake -S "$doc/sdk/template" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS=-Werror \
  >"$tmp/configure.log"
cmake --build "$tmp/cmake" >"$tmp/build.log"
test -f "$tmp/cmake/$so"

step "build the template with pkg-config"
pc=$(find "$prefix" -name insee-sdk.pc)
test -n "$pc"
export PKG_CONFIG_PATH="$(dirname "$pc")"
test -n "$(pkg-config --variable=plugindir insee-sdk)"
mkdir "$tmp/pc"
# shellcheck disable=SC2046 # the flags are meant to split into words
cc -std=c17 -Wall -Wextra -Werror -shared -fPIC $(pkg-config --cflags insee-sdk) \
  "$here/oldest_first.c" -o "$tmp/pc/$so" $(pkg-config --libs insee-sdk)

step "insee-conform on both builds"
"$prefix/bin/insee-conform" "$tmp/cmake/$so"
"$prefix/bin/insee-conform" "$tmp/pc/$so" >/dev/null

step "insee plugins info $name"
"$prefix/bin/insee" --plugin-dir "$tmp/cmake" plugins info "$name"

step "insee run exp.toml with the template's plugin"
(cd "$here" && "$prefix/bin/insee" --plugin-dir "$tmp/cmake" \
  run exp.toml --set simulation.warmup=500 --set simulation.cycles=2000) >"$tmp/run.log"
grep -q 'oldest-first' "$tmp/run.log"

# build_program NAME SOURCE PC_MODULE "COMPONENTS" TARGET: SOURCE built as
# $tmp/pc/NAME with pkg-config (and a run path to the prefix's libraries,
# as a program built against a prefix outside the loader's path needs) and
# as $tmp/NAME/build/NAME with find_package(InseeSDK COMPONENTS ...) and
# Insee::TARGET (CMake gives it that run path).
build_program() {
  test -n "$(find "$prefix" -name "$3.pc")"
  # shellcheck disable=SC2046 # the flags are meant to split into words
  cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags "$3") "$2" \
    -o "$tmp/pc/$1" $(pkg-config --libs "$3") -Wl,-rpath,"$(pkg-config --variable=libdir "$3")"
  mkdir "$tmp/$1"
  cat >"$tmp/$1/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project($1 C)
find_package(InseeSDK REQUIRED COMPONENTS $4)
add_executable($1 "$2")
target_link_libraries($1 PRIVATE Insee::$5)
EOF
  cmake -S "$tmp/$1" -B "$tmp/$1/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS=-Werror >"$tmp/$1-configure.log"
  cmake --build "$tmp/$1/build" >"$tmp/$1-build.log"
}

step "build the example bridge client against libinsee-client (pkg-config, then CMake)"
build_program bridge_client "$here/../../examples/bridge_client.c" insee-client client client
# Both run (usage: exit 2), so the installed library loads.
for exe in "$tmp/pc/bridge_client" "$tmp/bridge_client/build/bridge_client"; do
  status=0
  "$exe" >/dev/null 2>&1 || status=$?
  test "$status" -eq 2
done

step "build the MPI ring against libinsee-mpi (pkg-config, then CMake), run it with insee-mpirun"
build_program ring "$here/../../examples/mpi/ring.c" insee-mpi "client mpi" mpi
# 4 ranks on a ring of 8 nodes at 1000:10: every step is handed over at the
# next boundary (docs/mpi.md), 2000 client units, 8000 in all.
for exe in "$tmp/pc/ring" "$tmp/ring/build/ring"; do
  "$prefix/bin/insee-mpirun" --insee "$prefix/bin/insee" -n 4 \
    "$here/../../examples/mpi/ring.toml" -- "$exe" >"$tmp/mpi-run.log" 2>&1 ||
    { cat "$tmp/mpi-run.log" >&2; exit 1; }
  grep -q 'simulated completion time: 8000 client units' "$tmp/mpi-run.log"
done

step "compile a plain MPI program with the installed insee-mpicc, run it with insee-mpirun"
"$prefix/bin/insee-mpicc" -O2 -Wall -Wextra -Werror "$here/../../examples/mpi/hpcc_pingpong.c" \
  -o "$tmp/hpcc_pingpong"
# Neighbours on the torus at 1000:20, no computation counted: one slice
# (1000 ns) each way (docs/mpi.md).
INSEE_MPI_COMPUTE_SCALE=0 "$prefix/bin/insee-mpirun" --insee "$prefix/bin/insee" -n 2 \
  "$here/../../examples/mpi/hpcc-pingpong.toml" -- "$tmp/hpcc_pingpong" 5 8 200 \
  >"$tmp/mpicc-run.log" 2>&1 || { cat "$tmp/mpicc-run.log" >&2; exit 1; }
grep -q 'latency (8 bytes): min 1.000 mean 1.000 max 1.000 us' "$tmp/mpicc-run.log"

step "out-of-tree build OK"
