"""Compare wadgym's ACS compiler with acc on a folder of real-world ACS: bytes, refusals and compile time.

    python bench/acc_compare.py CORPUS ACC [--target zdoom|vizdoom] [--repeat N] [--list]

CORPUS is a folder of ACS sources (every *.acs under it, in any case, and *.c files that include zcommon.acs, except
copies of acc's own headers; headers beside them); ACC is an acc
binary (1.58, with its zcommon.acs beside it). acc compiles each file in the file's own folder, as a mod's
build does; a file counts when acc exits 0 and writes an object. wadgym then compiles the same file with
``--target`` (zdoom by default: what `wadgym-acc` does) and the two objects are compared byte for byte.

Files with the same bytes as an earlier one count once. Printed from this one run: distinct files found, how
many acc compiles, identical, different, refused (AcsError), and
time per file: wadgym's CPU time compiling in its own process (best of --repeat) against acc's process time
(user + system from the child's rusage, best of --repeat), as the median and the worst ratio over the files acc
compiles, with the sizes. CPU times, not wall time: this bench runs on shared machines. --list names every
file that differs or is refused, with the reason.

Nothing here is committed corpus: fetch public mods into a folder and point this at it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

# acc's own headers, which some mods keep beside their sources: not part of a mod.
ACC_HEADERS = ("zcommon.acs", "zdefs.acs", "zspecial.acs", "zwvars.acs")


def acs_files(folder: str) -> list[str]:
    """Every *.acs file under ``folder``, and every *.c file that includes zcommon.acs (some mods name their
    ACS sources .c for editors' syntax colouring)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.lower() in ACC_HEADERS:
                continue
            if name.lower().endswith(".acs") or name.lower().endswith(".c") and _includes_zcommon(path):
                found.append(path)
    return found


def _includes_zcommon(path: str) -> bool:
    with open(path, "rb") as file:
        return b'"zcommon.acs"' in file.read().lower()


def unique(files: list[str]) -> tuple[list[str], int]:
    """The files whose bytes no earlier file has (projects copy scenarios and libraries), and how many were
    dropped."""
    seen: set[bytes] = set()
    kept = []
    for path in files:
        with open(path, "rb") as file:
            digest = hashlib.sha256(file.read()).digest()
        if digest not in seen:
            seen.add(digest)
            kept.append(path)
    return kept, len(files) - len(kept)


def run_acc(acc: str | list[str], source: str, output: str) -> tuple[bool, float]:
    """(compiled, child CPU seconds) for one acc process (or another command line) in the source's folder."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [acc] if isinstance(acc, str) else acc
    result = subprocess.run([*command, os.path.basename(source), output], cwd=os.path.dirname(source) or ".",
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    err = os.path.join(os.path.dirname(source), "acs.err")
    if os.path.exists(err):
        os.remove(err)
    return result.returncode == 0 and os.path.exists(output), cpu


def run_wadgym(source: str, target: str) -> tuple[bytes | None, str, float]:
    """(object or None, refusal message, CPU seconds) for one in-process compile."""
    from wadgym.acs import AcsError, compile_file

    start = time.process_time()
    try:
        data = compile_file(source, target=target)
    except AcsError as exc:
        return None, str(exc).splitlines()[0], time.process_time() - start
    return data, "", time.process_time() - start


def acc_command() -> list[str]:
    """The wadgym-acc command as a map editor starts it: the console script installed beside this Python
    (it registers no env: wadgym/__init__.py), else `python -m wadgym.acs`."""
    script = os.path.join(os.path.dirname(sys.executable), "wadgym-acc")
    return [script] if os.path.isfile(script) else [sys.executable, "-m", "wadgym.acs"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="folder of ACS sources")
    parser.add_argument("acc", help="the acc binary to compare with")
    parser.add_argument("--target", default="zdoom", choices=("zdoom", "vizdoom"))
    parser.add_argument("--repeat", type=int, default=3, help="timing runs per file (best counts)")
    parser.add_argument("--list", action="store_true", help="name each file that differs or is refused")
    parser.add_argument("--process", action="store_true",
                        help="also time the wadgym-acc command (the script beside this Python, else python -m "
                             "wadgym.acs) as a process per file")
    args = parser.parse_args(argv)
    acc = os.path.abspath(args.acc)
    files, duplicates = unique(acs_files(args.corpus))
    counts = {"identical": 0, "different": 0, "refused": 0}
    ratios: list[tuple[float, float, float, int, str]] = []
    processes: list[float] = []
    projects: dict[str, list[int]] = {}  # top-level folder -> [files acc compiles, identical]
    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, "acc.o")
        for source in files:
            if os.path.exists(output):
                os.remove(output)
            compiled, acc_cpu = run_acc(acc, os.path.abspath(source), output)
            if not compiled:
                continue
            with open(output, "rb") as file:
                expected = file.read()
            for _ in range(args.repeat - 1):
                acc_cpu = min(acc_cpu, run_acc(acc, os.path.abspath(source), output)[1])
            data, refusal, ours = run_wadgym(source, args.target)
            name = os.path.relpath(source, args.corpus)
            project = projects.setdefault(name.split(os.sep)[0], [0, 0])
            project[0] += 1
            if data is None:
                counts["refused"] += 1
                if args.list:
                    print(f"refused    {name}: {refusal}")
                continue
            for _ in range(args.repeat - 1):
                ours = min(ours, run_wadgym(source, args.target)[2])
            if data == expected:
                counts["identical"] += 1
                project[1] += 1
            else:
                counts["different"] += 1
                if args.list:
                    print(f"different  {name} ({len(data)} bytes, acc {len(expected)})")
            ratios.append((ours / max(acc_cpu, 1e-6), ours, acc_cpu, os.path.getsize(source), name))
            if args.process:
                command = [*acc_command(), "--target", args.target]
                processes.append(min(run_acc(command, os.path.abspath(source), output)[1]
                                     for _ in range(args.repeat)) / max(acc_cpu, 1e-6))
    compiled = sum(counts.values())
    if args.list:
        for folder, (accs, same) in sorted(projects.items()):
            print(f"project    {folder}: acc compiles {accs}, identical {same}")
    print(f"corpus {args.corpus}: {len(files)} distinct ACS files ({duplicates} byte-identical copies left out), "
          f"acc compiles {compiled}; "
          f"wadgym --target {args.target}: {counts['identical']} identical, {counts['different']} different, "
          f"{counts['refused']} refused")
    if ratios:
        ratios.sort()
        median = statistics.median(r[0] for r in ratios)
        worst = ratios[-1]
        print(f"CPU time per file, wadgym in-process / acc process (best of {args.repeat}): median "
              f"{median:.2f}x (wadgym {statistics.median(r[1] for r in ratios) * 1000:.1f} ms, acc "
              f"{statistics.median(r[2] for r in ratios) * 1000:.1f} ms); worst {worst[0]:.2f}x on {worst[4]} "
              f"({worst[3]} bytes: wadgym {worst[1] * 1000:.1f} ms, acc {worst[2] * 1000:.1f} ms)")
        if processes:
            print(f"the wadgym-acc command as a process / acc's process: median {statistics.median(processes):.1f}x, "
                  f"worst {max(processes):.1f}x (Python's start and imports included)")
        largest = max(ratios, key=lambda r: r[3])
        print(f"largest file {largest[4]} ({largest[3]} bytes): wadgym {largest[1] * 1000:.1f} ms, acc "
              f"{largest[2] * 1000:.1f} ms ({largest[0]:.2f}x)")
    return 0 if counts["different"] == counts["refused"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
