"""What wadgym accepts where acc 1.58 refuses (README, "Differences from acc"): each compiles to what acc
compiles for the acc-valid spelling (tests/acs/data/extensions, see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wadgym.acs import compile_file, compile_source

DATA = Path(__file__).parent / "data" / "extensions"


@pytest.mark.parametrize("name", ["voidnet", "rounx", "cases128", "cases300"])
def test_acc_spelling_compiles_to_accs_bytes(name):
    assert compile_file(DATA / f"{name}.acs") == (DATA / f"{name}.o").read_bytes()


def test_closed_scripts_need_no_void_and_take_str_and_bool_arguments():
    source = (DATA / "voidnet.acs").read_text()
    ours = (source.replace("(void) ", "").replace("int name, int flag", "str name, bool flag")
            .replace("int a, int b, int c", "bool a, str b, int c"))
    assert "script 1 NET {" in ours and "script 4 {" in ours and "(str name, bool flag)" in ours
    assert compile_source(ours, "voidnet.acs") == (DATA / "voidnet.o").read_bytes()


def test_names_of_builtins_the_engine_lacks_are_free_for_the_script():
    # Round and Floor are acc built-ins ViZDoom lacks; acc refuses to let a script define them.
    source = (DATA / "rounx.acs").read_text().replace("Rounx", "Round").replace("floorx", "Floor")
    acc = (DATA / "rounx.o").read_bytes()
    assert compile_source(source, "round.acs") == acc.replace(b"rounx", b"round")


def test_a_switch_may_have_more_than_128_pending_case_labels(run_acs):
    source = (DATA / "cases300.acs").read_text()
    value_of_case = {(i * 37) % 1000 - 500: i + 1 for i in range(300)}   # cases300.acs: case value -> r
    picks = {"first": -500, "middle": list(value_of_case)[150], "last": list(value_of_case)[299], "default": 999}
    runs = run_acs({name: source + f"script 2 OPEN {{ ACS_ExecuteWithResult(1, {value}); }}\n"
                    for name, value in picks.items()}, tics=3)
    assert {name: run[1] for name, run in runs.items()} == {
        "first": 1, "middle": 151, "last": 300, "default": -1}
