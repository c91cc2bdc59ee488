"""Long fuzz run of wadgym's ACS compiler: random bytes, mutated scenario scripts, token soup, random text.

    python bench/acs_fuzz.py --seconds 600          # or --iterations N; --seed S to reproduce; --target zdoom

Prints iterations per input kind, how many compiled, the distinct error messages, the slowest input, and
every crash (an exception other than AcsError, an AcsError wrapping a Python exception, or a compiled lump
the disassembler rejects) with a reproducer. Exit status 1 if anything crashed.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import sys
import time
import traceback
from collections import Counter

from wadgym.acs import AcsError, compile_source
from wadgym.acs.dis import map_lumps, parse_behavior
from wadgym.acs.fuzzing import SEED_SCRIPTS, is_compiler_bug, mutate, random_bytes, token_soup


def shipped_scripts() -> list[str]:
    import vizdoom

    wads = sorted(glob.glob(os.path.join(vizdoom.scenarios_path, "*.wad")))
    return [lump.decode("latin-1") for wad in wads for _, lump in map_lumps(wad, "SCRIPTS")]


def random_text(rng: random.Random) -> str:
    alphabet = "abcxyz_019 \n\t{}()[];,:=+-*/%<>&|^~!?.'\"\\#@"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))


def make_input(kind: str, rng: random.Random, corpus: list[str]):
    if kind == "bytes":
        return random_bytes(rng)
    if kind == "mutated":
        return mutate(rng, rng.choice(corpus), edits=3)
    if kind == "soup":
        return token_soup(rng, max_tokens=120)
    return random_text(rng)


def error_shape(message: str) -> str:
    """An error message without its position, source line and the names or numbers in it."""
    first = message.split("\n", 1)[0]
    first = re.sub(r"^.*?:\d+:\d+: error: ", "", first)
    return re.sub(r"'[^']*'|\"[^\"]*\"|\b\d+\b", "_", first)


def run_one(source, target: str = "vizdoom") -> tuple[str, str | None]:
    """('ok' | 'error' | 'crash', detail)."""
    try:
        lump = compile_source(source, filename="fuzz.acs", target=target)
    except AcsError as error:
        if is_compiler_bug(error):
            return "crash", "".join(traceback.format_exception(error.__cause__ or error))
        return "error", str(error)
    except Exception:   # anything but AcsError is a crash by the compiler's contract
        return "crash", traceback.format_exc()
    try:
        parse_behavior(lump)
    except ValueError as error:
        return "crash", f"compiled lump does not disassemble: {error}"
    return "ok", None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="run this long (default 60)")
    parser.add_argument("--iterations", type=int, help="run this many inputs instead of --seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show-errors", type=int, default=25, help="distinct error shapes to print")
    parser.add_argument("--target", default="vizdoom", choices=("vizdoom", "zdoom"), help="the engine target")
    args = parser.parse_args(argv)

    corpus = shipped_scripts() + list(SEED_SCRIPTS)
    kinds = ("mutated", "mutated", "soup", "text", "bytes")
    rng = random.Random(args.seed)
    counts, outcomes, shapes = Counter(), Counter(), Counter()
    crashes, slowest = [], (0.0, None)
    started = time.perf_counter()
    iteration = 0
    while (iteration < args.iterations if args.iterations is not None
           else time.perf_counter() - started < args.seconds):
        kind = kinds[iteration % len(kinds)]
        source = make_input(kind, rng, corpus)
        t0 = time.perf_counter()
        outcome, detail = run_one(source, args.target)
        elapsed = time.perf_counter() - t0
        if elapsed > slowest[0]:
            slowest = (elapsed, source)
        counts[kind] += 1
        outcomes[outcome] += 1
        if outcome == "error":
            shapes[error_shape(detail)] += 1
        elif outcome == "crash":
            crashes.append((iteration, kind, source, detail))
        iteration += 1
    total = time.perf_counter() - started

    print(f"acs fuzz: {iteration} inputs in {total:.1f} s ({iteration / total:.0f}/s), seed {args.seed}")
    print("  by kind: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())))
    print(f"  compiled {outcomes['ok']}, compile errors {outcomes['error']}, crashes {outcomes['crash']}")
    print(f"  distinct error messages: {len(shapes)}")
    for shape, n in shapes.most_common(args.show_errors):
        print(f"    {n:7d}  {shape}")
    print(f"  slowest input: {slowest[0] * 1000:.1f} ms ({len(slowest[1] or '')} chars)")
    for iteration_number, kind, source, detail in crashes[:10]:
        print(f"\nCRASH at input {iteration_number} ({kind}); reproduce with "
              f"compile_source({source!r}, target={args.target!r})\n{detail}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
