#!/usr/bin/env python3
"""Checks that scripts/install-deps.sh installs everything the build uses, on a bare Debian 12.

A machine that already holds packages can build even when install-deps.sh forgets one (CI once passed
while a fresh machine failed: --no-install-recommends dropped the OpenCL headers that oneDNN's CMake
config needs). So this maps every file the build used to the Debian package that owns it and fails
when a package is neither listed in install-deps.sh nor pulled in by a listed package's Depends or
Pre-Depends (Recommends do not count: install-deps.sh does not install them).

The files: every CMake file the configure step read (a traced configure of the source tree into a
scratch folder), every absolute path in the build's CMakeCache.txt (libraries, programs, config
folders), and every header the compiler read (ninja's dependency log of the build folder).

  scripts/check-deps.py BUILD_DIR [--without PACKAGE ...] [--must-miss PACKAGE]

--without drops packages from the listed set. --must-miss PACKAGE also checks, on the same scan, that
dropping PACKAGE would be caught (the test suite passes ocl-icd-opencl-dev: a check that cannot fail
proves nothing). Exit 0 when every file is covered (and the --must-miss check fails as it should), 1
otherwise, with one line per uncovered package and a file it owns.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def listed_packages():
    text = open(os.path.join(ROOT, "scripts", "install-deps.sh")).read()
    body = re.search(r"packages=\((.*?)\n\)", text, re.S).group(1)
    names = []
    for line in body.splitlines():
        line = line.split("#", 1)[0]
        names += line.split()
    return set(names)


def installed_relations():
    """name -> list of dependency groups (each a list of alternatives), and virtual -> providers."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package}\t${Status}\t${Pre-Depends}\t${Depends}\t${Provides}\n"],
        capture_output=True, text=True, check=True).stdout
    depends, providers = {}, {}
    for line in out.splitlines():
        name, status, pre, dep, provides = (line.split("\t") + [""] * 5)[:5]
        if "installed" not in status.split():
            continue
        groups = []
        for field in (pre, dep):
            for group in filter(None, (g.strip() for g in field.split(","))):
                alts = [re.sub(r"[\s(].*", "", a.strip()).split(":")[0] for a in group.split("|")]
                groups.append([a for a in alts if a])
        depends[name] = groups
        for p in filter(None, (p.strip() for p in provides.split(","))):
            providers.setdefault(re.sub(r"[\s(].*", "", p).split(":")[0], set()).add(name)
    return depends, providers


def closure(roots, depends, providers):
    """Every installed package reachable from roots by Depends / Pre-Depends."""
    seen, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        candidates = [name] if name in depends else sorted(providers.get(name, ()))
        for pkg in candidates:
            if pkg in seen:
                continue
            seen.add(pkg)
            for group in depends.get(pkg, []):
                stack.extend(group)  # any installed alternative may be the one that satisfies it
    return seen


def files_from_cache(build_dir):
    files = set()
    for line in open(os.path.join(build_dir, "CMakeCache.txt"), errors="replace"):
        m = re.match(r"^[A-Za-z0-9_.+-]+:(FILEPATH|PATH|STRING|INTERNAL|UNINITIALIZED)=(.*)$", line.strip())
        if not m:
            continue
        for value in m.group(2).split(";"):
            if value.startswith("/") and os.path.exists(value):
                files.add(value)
    return files


def files_from_trace(build_dir):
    """CMake files read by a configure of the source tree (find modules, package configs)."""
    files = set()
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.json")
        cache = os.path.join(build_dir, "CMakeCache.txt")
        generator = re.search(r"^CMAKE_GENERATOR:INTERNAL=(.*)$", open(cache).read(), re.M)
        cmd = ["cmake", "-S", ROOT, "-B", os.path.join(scratch, "b"), "--trace-expand",
               "--trace-format=json-v1", "--trace-redirect=" + trace, "-DVOLVOX_BUILD_TESTS=ON"]
        if generator:
            cmd += ["-G", generator.group(1)]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        for line in open(trace, errors="replace"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if "file" in entry:
                files.add(entry["file"])
    return files


def files_from_ninja_deps(build_dir):
    out = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], capture_output=True, text=True).stdout
    return {line.strip() for line in out.splitlines() if line.startswith("    /")}


def owners(paths):
    """path -> owning package, for files under /usr, /lib, /etc (dpkg -S, batched)."""
    result = {}
    wanted = sorted(p for p in paths if p.startswith(("/usr/", "/lib", "/etc/")) and not os.path.isdir(p))
    for i in range(0, len(wanted), 200):
        batch = wanted[i:i + 200]
        # dpkg knows the path it unpacked: on merged-/usr systems a /lib path may be recorded as /usr/lib.
        query = batch + [os.path.realpath(p) for p in batch]
        out = subprocess.run(["dpkg", "-S"] + query, capture_output=True, text=True).stdout
        for line in out.splitlines():
            if ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            for p in batch:
                if path in (p, os.path.realpath(p)) and p not in result:
                    result[p] = pkgs.split(",")[0].strip().split(":")[0]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--without", action="append", default=[], help="drop a package from the listed set")
    parser.add_argument("--must-miss", help="a package whose absence from the list this check must notice")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)

    listed = listed_packages() - set(args.without)
    depends, providers = installed_relations()
    missing_listed = sorted(p for p in listed if p not in depends and p not in providers)
    covered = closure(listed, depends, providers)

    paths = files_from_cache(build_dir) | files_from_trace(build_dir) | files_from_ninja_deps(build_dir)
    paths = {p for p in paths if not p.startswith((ROOT + "/", build_dir + "/", "/tmp/"))}
    owner = owners(paths)
    unowned = sorted(p for p in paths if p not in owner and p.startswith("/usr/local/"))

    def uncovered_by(covered_set):
        found = {}
        for path, pkg in sorted(owner.items()):
            if pkg not in covered_set:
                found.setdefault(pkg, path)
        return found

    uncovered = uncovered_by(covered)
    if args.must_miss and not uncovered_by(closure(listed - {args.must_miss}, depends, providers)):
        print(f"check-deps: without {args.must_miss} in scripts/install-deps.sh this check would still pass: "
              f"it cannot notice a missing package")
        return 1
    for pkg, path in sorted(uncovered.items()):
        print(f"check-deps: the build uses {path} from package {pkg}, which scripts/install-deps.sh neither "
              f"lists nor pulls in by Depends")
    for path in unowned:
        print(f"check-deps: the build uses {path}, which no Debian package owns")
    for pkg in missing_listed:
        print(f"check-deps: {pkg} is listed in scripts/install-deps.sh but not installed")
    if uncovered or unowned or missing_listed:
        return 1
    print(f"check-deps: {len(owner)} files from {len(set(owner.values()))} packages, all installed by "
          f"scripts/install-deps.sh ({len(listed)} listed, {len(covered)} with their Depends)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
