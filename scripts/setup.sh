#!/usr/bin/env bash
# Set up .venv for texas42: `bash scripts/setup.sh` (the package), `bash scripts/setup.sh --dev`
# (plus the test tools, Ray, whose tests start a local cluster, the web app's extra and, for
# its browser tests, Debian's chromium by apt-get (Playwright drives it) when /usr/bin/chromium
# is missing: as root or with sudo). PyTorch is installed first, pinned to torch==2.13.0, when the venv has
# none: pyproject only asks for torch>=2.2, and a bare torch requirement can pull a build many
# GB large. Where your package index serves torch 2.13.0 with CUDA and you want the CPU build,
# install it into .venv beforehand from PyTorch's CPU wheel index (see PyTorch's install
# page); any torch already in .venv is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/pip install -q torch==2.13.0
if [ "${1:-}" = "--dev" ]; then
    .venv/bin/pip install -q -e '.[dev]'
    if [ ! -x /usr/bin/chromium ]; then
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get install -y -q chromium >/dev/null ||
            { $SUDO apt-get update -q >/dev/null &&
              $SUDO apt-get install -y -q chromium >/dev/null; } ||
            echo "setup.sh: could not install Debian's chromium: the browser tests will fail" >&2
    fi
else
    .venv/bin/pip install -q -e .
fi
