"""On any input the compiler returns a lump the disassembler reads, or raises AcsError that is not a crash."""

import glob
import os

import vizdoom
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wadgym.acs import AcsError, compile_source
from wadgym.acs.dis import map_lumps, parse_behavior
from wadgym.acs.fuzzing import SEED_SCRIPTS, is_compiler_bug, mutate, random_bytes, token_soup

SHIPPED_SCRIPTS = [lump.decode("latin-1")
                   for wad in sorted(glob.glob(os.path.join(vizdoom.scenarios_path, "*.wad")))
                   for _, lump in map_lumps(wad, "SCRIPTS")]
CORPUS = SHIPPED_SCRIPTS + list(SEED_SCRIPTS)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_compiles_or_reports(source, target="vizdoom"):
    try:
        lump = compile_source(source, filename="fuzz.acs", target=target)
    except AcsError as error:
        assert not is_compiler_bug(error), f"compiler crashed on {source!r}: {error}"
        assert str(error).startswith("fuzz.acs:"), str(error)
        return
    assert isinstance(lump, bytes)
    parse_behavior(lump)   # whatever compiles is a lump the engine's loader can read


def test_corpus_compiles():
    assert len(SHIPPED_SCRIPTS) == 23
    for source in SEED_SCRIPTS:
        parse_behavior(compile_source(source))


@FUZZ
@given(st.sampled_from(CORPUS), st.randoms(use_true_random=False))
def test_mutated_scripts(source, rng):
    check_compiles_or_reports(mutate(rng, source))


@FUZZ
@given(st.randoms(use_true_random=False))
def test_token_soup(rng):
    check_compiles_or_reports(token_soup(rng))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CORPUS), st.randoms(use_true_random=False), st.booleans())
def test_zdoom_target(source, rng, soup):
    """The zdoom target (the names ViZDoom lacks become built-ins, LSPEC5EX, EVENT scripts...) too."""
    check_compiles_or_reports(token_soup(rng) if soup else mutate(rng, source), target="zdoom")


@FUZZ
@given(st.text(max_size=200))
def test_random_text(text):
    check_compiles_or_reports(text)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_bytes(rng):
    check_compiles_or_reports(random_bytes(rng))
