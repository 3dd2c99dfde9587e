#!/usr/bin/env bash
# test-checker.sh CHECK — check-docs.sh (CHECK) on small trees built here:
# it passes a clean tree, and names the file and line of every outside
# reference and every broken link planted, in a plain directory and in a git
# checkout (where only tracked files count), while ignoring .ci/, build
# directories, code, URLs and links that resolve; and of an installed
# documentation directory, the SDK documents missing from it.
set -uo pipefail
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  printf 'FAIL: %s\n' "$*"
  failures=$((failures + 1))
}

# The references the checker refuses, assembled so that this file does not
# contain them.
d=DESIG'N'
up='..''/shared'
abs='/work''/shared'

# run NAME ARGS...: runs the checker, keeping its output in $tmp/NAME.out.
run() {
  local name=$1
  shift
  bash "$check" "$@" >"$tmp/$name.out" 2>&1
}
expect_status() { # NAME STATUS
  local got
  got=$(tail -n 1 "$tmp/$1.status")
  [ "$got" = "$2" ] || fail "$1: exit status $got, expected $2; output:
$(cat "$tmp/$1.out")"
}
expect_line() { # NAME TEXT
  grep -qF -- "$2" "$tmp/$1.out" || fail "$1: no line with '$2' in:
$(cat "$tmp/$1.out")"
}
expect_no_line() { # NAME TEXT
  ! grep -qF -- "$2" "$tmp/$1.out" || fail "$1: unexpected '$2' in:
$(cat "$tmp/$1.out")"
}
checked() { # NAME ARGS...
  local name=$1
  run "$@"
  echo $? >"$tmp/$name.status"
}

# A clean tree: pages linking each other, a directory, an anchor, a URL,
# a reference definition; .ci/ and a build directory may say anything.
clean=$tmp/clean
mkdir -p "$clean/docs" "$clean/plugins/a" "$clean/.ci" "$clean/build-x"
cat >"$clean/README.md" <<EOF
# project
See [the architecture](docs/arch.md#3-rooms), [plugin a](plugins/a/),
[the site](https://example.org/x.md) and [mail](mailto:a@example.org).
Code is not a link: \`[x](missing.md)\`.

\`\`\`
[y](also-missing.md)
\`\`\`

[ref]: docs/arch.md
EOF
printf '# arch\nBack to [the start](../README.md "title").\n' >"$clean/docs/arch.md"
printf '# a\n[arch](../../docs/arch.md)\n' >"$clean/plugins/a/README.md"
printf 'int a; /* see docs/arch.md §3 */\n' >"$clean/plugins/a/a.c"
printf 'notes beside the clone: %s\n' "$up" >"$clean/.ci/run"
printf '%s\n' "$abs" >"$clean/build-x/log"
checked clean source "$clean"
expect_status clean 0
[ ! -s "$tmp/clean.out" ] || fail "clean: output for a clean tree: $(cat "$tmp/clean.out")"

# The same tree with one of each mistake.
bad=$tmp/bad
cp -r "$clean" "$bad"
printf 'int a; /* see %s \xc2\xa74 */\n' "$d" >"$bad/plugins/a/a.c"
printf 'x\nread %s/%s.md\n' "$up" "$d" >"$bad/docs/notes.txt"
printf '# CMake\n# %s/seeds\n' "$abs" >"$bad/CMakeLists.txt"
printf '# a\n[gone](../b/) and [arch](../../docs/arch.md)\n' >"$bad/plugins/a/README.md"
printf '[abs](/docs/arch.md)\n[ref]: nowhere.md\n' >>"$bad/docs/arch.md"
checked bad source "$bad"
expect_status bad 1
expect_line bad "plugins/a/a.c:1: refers to notes outside the repository"
expect_line bad "docs/notes.txt:2: refers to notes outside the repository"
expect_line bad "CMakeLists.txt:2: refers to notes outside the repository"
expect_line bad "plugins/a/README.md:2: link to '../b/': no such file or directory"
expect_line bad "docs/arch.md:3: link to '/docs/arch.md' is absolute"
expect_line bad "docs/arch.md:4: link to 'nowhere.md': no such file or directory"
expect_line bad "6 problem(s)"
expect_no_line bad ".ci/"
expect_no_line bad "build-x"
expect_no_line bad "../../docs/arch.md"

# In a git checkout only tracked files count; untracked ones may be drafts.
if command -v git >/dev/null; then
  repo=$tmp/repo
  cp -r "$clean" "$repo"
  git -C "$repo" init -q
  printf 'build*/\n' >"$repo/.gitignore"
  git -C "$repo" add .
  printf '%s\n' "$abs" >"$repo/untracked.txt"
  printf '[draft](nowhere.md)\n' >"$repo/draft.md"
  checked git-clean source "$repo"
  expect_status git-clean 0
  printf 'x %s\n' "$up" >"$repo/tracked.txt"
  printf '[draft](nowhere.md)\n' >>"$repo/docs/arch.md"
  git -C "$repo" add tracked.txt
  checked git-bad source "$repo"
  expect_status git-bad 1
  expect_line git-bad "tracked.txt:1: refers to notes outside the repository"
  expect_line git-bad "docs/arch.md:3: link to 'nowhere.md'"
  expect_no_line git-bad "untracked.txt"
  expect_no_line git-bad "draft.md:"
fi

# links DIR: an installed documentation directory.
checked links-tree links "$clean/docs"
expect_status links-tree 0
mkdir "$tmp/doc"
cp "$clean/docs/arch.md" "$tmp/doc/"
checked links-copy links "$tmp/doc"
expect_status links-copy 1
expect_line links-copy "arch.md:2: link to '../README.md': no such file or directory"
printf '# arch\n[abi](abi.md#2-versions)\n' >"$tmp/doc/arch.md"
printf '# abi\n' >"$tmp/doc/abi.md"
checked links-ok links "$tmp/doc"
expect_status links-ok 0

# installed BUILD_DIR: a project that installs only part of the SDK's
# documents, one of them with a link that does not hold once installed.
if command -v cmake >/dev/null; then
  proj=$tmp/proj
  mkdir -p "$proj/docs"
  printf '# arch\n[abi](abi.md) [readme](../README.md)\n' >"$proj/docs/architecture.md"
  printf '# abi\n' >"$proj/docs/abi.md"
  printf '# readme\n' >"$proj/README.md"
  cat >"$proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(part NONE)
include(GNUInstallDirs)
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DATADIR} COMPONENT other)
EOF
  if cmake -S "$proj" -B "$proj/build" >"$tmp/proj.log" 2>&1; then
    checked installed installed "$proj/build"
    expect_status installed 1
    expect_line installed "share/doc/part/docs/plugins.md: not installed"
    expect_line installed "share/doc/part/sdk/conformance/README.md: not installed"
    expect_line installed "share/doc/part/README.md: not installed"
    expect_line installed "docs/architecture.md:2: link to '../README.md': no such file or directory"
    expect_no_line installed "architecture.md: not installed"
    expect_no_line installed "abi.md: not installed"
  else
    fail "cannot configure the fixture project: $(cat "$tmp/proj.log")"
  fi
fi

checked usage source
expect_status usage 2

if [ $failures -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "check-docs.sh: all cases behave"
