#!/usr/bin/env bash
# The Python package (python/) from a clean state, set up exactly as README's "Python" section says:
# a fresh virtual environment of Debian's Python (/usr/bin/python3: the python3 on PATH may be
# another one) that sees Debian's NumPy and pytest, the package built offline from ./python against
# build/release's libvolvox.so, then its tests, which compare with build/release/volvox.
# Needs build/release's volvox_shared and volvox_cli (scripts/test.sh builds them before this).
# Extra arguments go to pytest (e.g. -k denoise).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/venv
rm -rf "$venv" python/build  # python/build: setuptools' objects, which it would otherwise reuse
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-index --no-build-isolation ./python
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests "$@"
