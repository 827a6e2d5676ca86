#!/usr/bin/env bash
# Sets up everything (idempotent) and runs every test: unit tests, the lit + FileCheck
# suite (dialects, frontend, driver, malformed inputs, the kernel suite to PTX and AMDGCN),
# then the README's first command (tools/run-example.sh on its default kernel), so that
# it keeps working.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cargo test "$@"
bash tools/run-example.sh
