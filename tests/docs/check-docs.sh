#!/usr/bin/env bash
# check-docs.sh — the project's documents stand on their own
# (docs/architecture.md): a reader of a clone, or of an installed prefix,
# needs nothing from outside it.
#
#   check-docs.sh source SRC_DIR   every file of the tree (git ls-files in a
#       git checkout, else find; .ci/ excepted: CI legitimately expects the
#       project's notes beside the clone) is free of references to notes that
#       are not in the repository; every relative link of its Markdown files
#       leads to a file or directory that exists
#   check-docs.sh links DIR        every relative link of the Markdown files
#       under DIR leads to a file or directory that exists
#   check-docs.sh docdir DIR       DIR, an installed documentation directory
#       (laid out as the source tree), holds the SDK documents, and the links
#       of every page in it hold
#   check-docs.sh installed BUILD_DIR   installs the `doc` component of
#       BUILD_DIR into a temporary prefix and checks it as docdir does
#
# Prints one line per problem, FILE:LINE: what; exits 1 if there is any.
set -uo pipefail

problems=0
problem() {
  printf '%s\n' "$*"
  problems=$((problems + 1))
}

# The references that send a reader outside the repository, as regular
# expressions written so that this file does not match them itself.
forbidden='[.][.]/shared|/work[/]shared|DESIG[N][.]md|DESIG[N][ ]§'

# FILE:LINE:TARGET for every inline link ](target) and reference definition
# [id]: target, outside fenced code blocks and code spans.
md_links() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)
      if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]+[^ \t]+/)) {
        def = substr(line, RSTART, RLENGTH)
        sub(/^ ? ? ?\[[^]]+\]:[ \t]+/, "", def)
        print FILENAME ":" FNR ":" def
      }
      while (match(line, /\]\([^)]*\)/)) {
        target = substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
        sub(/^[ \t]+/, "", target)
        sub(/[ \t].*$/, "", target)   # a title after the address
        gsub(/^<|>$/, "", target)
        print FILENAME ":" FNR ":" target
      }
    }' "$@"
}

# Checks the relative links of the Markdown files given.
check_links() {
  local where file line target path
  [ $# -gt 0 ] || return 0
  while IFS= read -r where; do
    file=${where%%:*}
    line=${where#*:}
    target=${line#*:}
    line=${line%%:*}
    case $target in
      '' | '#'* | [a-zA-Z]*:*) continue ;; # same page, or a URL (https:, mailto:)
      /*)
        problem "$file:$line: link to '$target' is absolute; make it relative to the page"
        continue
        ;;
    esac
    path=${target%%#*}
    path=${path%%\?*}
    [ -e "$(dirname "$file")/$path" ] ||
      problem "$file:$line: link to '$target': no such file or directory"
  done < <(md_links "$@")
}

# NUL-separated list of the source tree's files, paths relative to SRC_DIR.
source_files() {
  if [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$1" && pwd -P)" ]; then
    git -C "$1" ls-files -z
  else
    (cd "$1" && find . \( -path ./.git -o -path './build*' \) -prune -o -type f -print0 |
      sed -z 's|^\./||')
  fi
}

check_source() {
  local src=$1 f
  local -a files=() markdown=()
  while IFS= read -r -d '' f; do
    case $f in .ci/*) continue ;; esac
    [ -f "$src/$f" ] || continue # deleted in the work tree, not yet committed
    files+=("$f")
    case $f in *.md) markdown+=("$f") ;; esac
  done < <(source_files "$src")
  if [ ${#files[@]} -eq 0 ]; then
    problem "$src: no files found"
    return
  fi
  cd "$src" || exit 2
  local hit file line
  while IFS= read -r hit; do
    file=${hit%%:*}
    line=${hit#*:}
    line=${line%%:*}
    problem "$file:$line: refers to notes outside the repository (${hit#*:*:}); point to docs/architecture.md or another page of docs/ instead"
  done < <(LC_ALL=C grep -I -n -E "$forbidden" -- "${files[@]}")
  check_links "${markdown[@]}"
}

check_dir_links() {
  local -a markdown=()
  local f
  while IFS= read -r -d '' f; do markdown+=("$f"); done < <(find "$1" -name '*.md' -print0 | sort -z)
  if [ ${#markdown[@]} -eq 0 ]; then
    problem "$1: no Markdown files"
    return
  fi
  check_links "${markdown[@]}"
}

# The documents a third party needs with the installed SDK, relative to the
# documentation directory (laid out as the source tree): a sample of each
# kind the pages link to.
sdk_docs='README.md docs/architecture.md docs/abi.md docs/plugins.md docs/mpi.md
sdk/conformance/README.md sdk/template/README.md sdk/template/CMakeLists.txt
sdk/template/oldest_first.c sdk/template/exp.toml examples/mpi/ring.c examples/mpi/ring.toml
plugins/topology/torus/README.md plugins/bridge/sync-server/README.md'

# DIR [NAME]: the SDK documents are in DIR (called NAME in messages) and
# their links hold.
check_doc_dir() {
  local f
  for f in $sdk_docs; do
    [ -f "$1/$f" ] || problem "${2:-$1}/$f: not installed"
  done
  check_dir_links "$1"
}

check_installed() {
  local build=$1 doc f
  tmp=$(mktemp -d) || exit 2 # global: the trap runs after this returns
  trap 'rm -rf "$tmp"' EXIT
  if ! cmake --install "$build" --prefix "$tmp/prefix" --component doc >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    problem "cmake --install $build --component doc failed"
    return
  fi
  doc=$(find "$tmp/prefix" -path '*/docs/architecture.md' -printf '%h\n' | head -n 1)
  if [ -z "$doc" ]; then
    problem "the installed prefix has no docs/architecture.md"
    return
  fi
  doc=$(dirname "$doc")
  check_doc_dir "$doc" "${doc#"$tmp/prefix"/}"
}

if [ $# -ne 2 ]; then
  echo "usage: $0 source SRC_DIR | links DIR | docdir DIR | installed BUILD_DIR" >&2
  exit 2
fi
case $1 in
  source) check_source "$2" ;;
  links) check_dir_links "$2" ;;
  docdir) check_doc_dir "$2" ;;
  installed) check_installed "$2" ;;
  *)
    echo "$0: unknown mode '$1' (source, links, docdir or installed)" >&2
    exit 2
    ;;
esac
if [ $problems -gt 0 ]; then
  echo "$problems problem(s)" >&2
  exit 1
fi
