#!/usr/bin/env bash
# check-clang.sh -- build and run every Tessel test kernel with clang-22 in
# all four configurations (MINI/SMALL dataset x fixed-size/VLA signatures).
#
# usage: ./check-clang.sh [kernel.c ...]      (default: every *.c here)
# env:   CC      compiler to use              (default: clang-22)
#        CFLAGS  extra flags appended to the build line
#        VERBOSE=1 print every configuration, not only failures
#
# A configuration passes when it compiles with no diagnostics at all
# (-Wall -Werror), the program exits with status 0 and its dump contains no
# nan/inf.  Prints "N passed, M failed" and exits non-zero if M > 0.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cc="${CC:-clang-22}"
extra="${CFLAGS:-}"

if ! command -v "$cc" >/dev/null 2>&1; then
  echo "check-clang.sh: compiler '$cc' not found" >&2
  exit 2
fi

if [ "$#" -gt 0 ]; then
  kernels=("$@")
else
  kernels=("$here"/*.c)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/tessel-kernels.XXXXXX")"
trap 'rm -rf "$work"' EXIT

pass=0
fail=0
for src in "${kernels[@]}"; do
  case "$src" in /*) ;; *) [ -f "$src" ] || src="$here/$src" ;; esac
  name="$(basename "$src" .c)"
  for dataset in MINI_DATASET SMALL_DATASET; do
    for form in fixed vla; do
      flags="-std=c99 -Wall -Werror -O1 -D$dataset"
      [ "$form" = vla ] && flags="$flags -DTESSEL_USE_VLA"
      tag="$name [$dataset, $form]"
      exe="$work/$name.$dataset.$form"
      # shellcheck disable=SC2086
      if ! msgs="$("$cc" $flags $extra -I"$here" "$src" -o "$exe" -lm 2>&1)" || [ -n "$msgs" ]; then
        echo "FAIL (build) $tag"
        printf '%s\n' "$msgs" | head -n 20 | sed 's/^/    /'
        fail=$((fail + 1))
        continue
      fi
      if ! "$exe" >"$work/out.txt" 2>"$work/dump.txt"; then
        echo "FAIL (run, exit $?) $tag"
        fail=$((fail + 1))
        continue
      fi
      if grep -qiE '(^| )-?(nan|inf)' "$work/dump.txt"; then
        echo "FAIL (nan/inf in output) $tag"
        fail=$((fail + 1))
        continue
      fi
      [ "${VERBOSE:-0}" = 1 ] && echo "ok   $tag"
      pass=$((pass + 1))
    done
  done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
