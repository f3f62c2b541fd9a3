"""Builds volvox._volvox, the pybind11 extension over libvolvox.so (the installable library).

The library is found, in this order, in
  $VOLVOX_PREFIX          an installed prefix (`cmake --install build/release --prefix P`): P/include, P/lib*
  ../build/release        this checkout's release build (`ninja -C build/release volvox_shared`)
and the extension keeps that library folder as its run path (no LD_LIBRARY_PATH needed): rebuild
the package after moving the library. pybind11's headers come from Debian's pybind11-dev.
"""
import os
import sys
from pathlib import Path

from setuptools import Extension, setup

here = Path(__file__).resolve().parent


def library_folders():
    """(include folder, library folder) of libvolvox.so."""
    prefix = os.environ.get("VOLVOX_PREFIX")
    if prefix:
        prefix = Path(prefix).resolve()
        candidates = [prefix / "lib", prefix / "lib64", *sorted(prefix.glob("lib/*-linux-gnu"))]
        include = prefix / "include"
        hint = f"VOLVOX_PREFIX={prefix} holds no lib*/libvolvox.so: install the library there first"
    else:
        candidates = [here.parent / "build" / "release"]
        include = here.parent / "include"
        hint = ("no libvolvox.so in ../build/release: build it first "
                "(cmake --preset release && ninja -C build/release volvox_shared), or set VOLVOX_PREFIX")
    for folder in candidates:
        if (folder / "libvolvox.so").exists() and (include / "volvox" / "volvox.h").exists():
            return include, folder
    sys.exit("volvox: " + hint)


include_dir, library_dir = library_folders()
extension = Extension(
    "volvox._volvox",
    sources=sorted(str(p.relative_to(here)) for p in (here / "src").glob("*.cpp")),
    depends=[str(p) for p in (here / "src").glob("*.h")] + [str(p) for p in (include_dir / "volvox").glob("*.h")],
    include_dirs=[str(include_dir)],
    library_dirs=[str(library_dir)],
    libraries=["volvox"],
    runtime_library_dirs=[str(library_dir)],
    extra_compile_args=["-std=c++20", "-fvisibility=hidden", "-O1", "-g0"],
    language="c++",
)

setup(ext_modules=[extension])
