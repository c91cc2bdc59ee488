"""Time wadgym.acs compiling every ACS source shipped in vizdoom's scenario WADs, in one process.

    python bench/acs_speed.py [--repeat N] [--acc PATH]

With --acc, also times the C compiler (acc) started once per file on the same sources, and prints the
ratio measured in this run. Figures are wall-clock; the best of --repeat runs is reported.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time


def shipped_sources() -> list[tuple[str, bytes]]:
    import vizdoom

    from wadgym.acs.dis import map_lumps

    sources = []
    for wad in sorted(glob.glob(os.path.join(vizdoom.scenarios_path, "*.wad"))):
        for map_name, lump in map_lumps(wad, "SCRIPTS"):
            sources.append((f"{os.path.basename(wad)}:{map_name}", lump))
    return sources


def time_wadgym(sources, repeat: int) -> list[float]:
    from wadgym.acs import compile_source

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for name, text in sources:
            compile_source(text, name)
        times.append(time.perf_counter() - start)
    return times


def time_acc(acc: str, sources, repeat: int) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, (_, text) in enumerate(sources):
            path = os.path.join(folder, f"s{i}.acs")
            with open(path, "wb") as handle:
                handle.write(text)
            paths.append(path)
        for _ in range(repeat):
            start = time.perf_counter()
            for path in paths:
                result = subprocess.run([acc, path, path[:-4] + ".o"], capture_output=True)
                if result.returncode != 0:
                    sys.exit(f"acc failed on {path}: {result.stderr.decode(errors='replace')}")
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs to time (default 10)")
    parser.add_argument("--acc", help="path of an acc binary to compare against")
    args = parser.parse_args()

    start = time.perf_counter()
    import wadgym  # noqa: F401  (the package root, which registers the Gymnasium envs)

    package_seconds = time.perf_counter() - start
    start = time.perf_counter()
    import wadgym.acs.codegen  # noqa: F401  (the compiler's own modules, tables included)

    import_seconds = time.perf_counter() - start
    sources = shipped_sources()
    first = time_wadgym(sources, 1)[0]
    ours = time_wadgym(sources, args.repeat)
    print(f"sources: {len(sources)} SCRIPTS lumps, {sum(len(t) for _, t in sources)} bytes")
    print(f"import: wadgym package {package_seconds * 1000:.1f} ms, then the compiler's modules "
          f"{import_seconds * 1000:.1f} ms (once per process)")
    print(f"wadgym.acs, all sources in one process: first run {first * 1000:.1f} ms, "
          f"best {min(ours) * 1000:.1f} ms, median {statistics.median(ours) * 1000:.1f} ms")
    if args.acc:
        theirs = time_acc(args.acc, sources, max(1, args.repeat // 2))
        print(f"acc, started once per file: best {min(theirs) * 1000:.1f} ms, "
              f"median {statistics.median(theirs) * 1000:.1f} ms")
        print(f"ratio acc / wadgym.acs (best runs): {min(theirs) / min(ours):.1f}x; "
              f"counting the compiler's import and first run: {min(theirs) / (import_seconds + first):.1f}x")


if __name__ == "__main__":
    main()
