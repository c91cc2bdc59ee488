"""Built-ins in the engine: Delay timing, Random ranges, actors, inventory, script execution, line specials,
CALLFUNC functions and the print family."""

from __future__ import annotations

import pytest

TIMING = """
#include "zcommon.acs"
script 1 OPEN
{
    int n = 10;
    start = Timer();
    delay(n);
    after_10 = Timer();
    delay(const: 5);
    after_const = Timer();
    delay(const: 300);
    after_long = Timer();
    done = 1;
}
script 2 OPEN
{
    ACS_ExecuteWait(3, 0, 7);
    waited_at = Timer();
    ACS_NamedExecuteWait("sleeper", 0);
    named_done = Timer();
}
script 3 (int ticks) { delay(ticks); wait_done = Timer(); }
script "sleeper" (void) { delay(4); }
"""

RANDOM = """
#include "zcommon.acs"
script 1 OPEN
{
    int i, x;
    low = 1000; const_low = 1000; neg_low = 1000; fixed_low = 1000000;
    for (i = 0; i < 400; i++)
    {
        x = random(3, 7); if (x < low) low = x; if (x > high) high = x;
        x = random(const: 10, 12); if (x < const_low) const_low = x; if (x > const_high) const_high = x;
        x = random(-5, 5); if (x < neg_low) neg_low = x; if (x > neg_high) neg_high = x;
        x = random(0.25, 0.75); if (x < fixed_low) fixed_low = x; if (x > fixed_high) fixed_high = x;
    }
    same = random(9, 9);
    done = 1;
}
"""

ACTORS = """
#include "zcommon.acs"
script 1 OPEN
{
    int junk;
    spawned = Spawn("ExplosiveBarrel", 128.0, 128.0, 0.0, 50);
    count = ThingCount(T_NONE, 50);
    SetActorProperty(50, APROP_Health, 55);
    health = GetActorProperty(50, APROP_Health);
    x_pos = GetActorX(50) >> 16;
    SetActorAngle(50, 0.25);
    angle = GetActorAngle(50);
    Thing_ChangeTID(50, 51);
    renamed = ThingCount(T_NONE, 50) * 10 + ThingCount(T_NONE, 51);
    damage_result = Thing_Damage(51, 5);
    damaged = GetActorProperty(51, APROP_Health);
    Thing_Remove(51);
    delay(1);
    removed = ThingCount(T_NONE, 51);
    failed_spawn = Spawn("NoSuchActorClass", 64.0, 64.0, 0.0, 52);
    spot_spawn = SpawnSpot("ExplosiveBarrel", 40, 53);
    // The engine reads SpawnForced's tid and angle whether or not they are passed; these sums leave 64 and
    // 58 in the stack slots it would read, so a missing angle or tid would not be 0.
    junk = 0 + (0 + (0 + (0 + (0 + (64 + 0)))));
    forced = SpawnForced("ExplosiveBarrel", 300.0, 300.0, 0.0, 54);
    forced_angle = GetActorAngle(54);
    junk = 0 + (0 + (0 + (0 + (58 + 0))));
    forced_short = SpawnForced("ExplosiveBarrel", 300.0, 100.0, 0.0);
    stale_tid = ThingCount(T_NONE, 58);
    class_check = CheckActorClass(54, "ExplosiveBarrel") * 10 + CheckActorClass(54, "Clip");
    pushbytes = Spawn("ExplosiveBarrel", 200.0, 64.0, 0.0, 56, 7);
    Spawn("ExplosiveBarrel", 64.0, 400.0, 0.0, 57);
    SetThingSpecial(57, ACS_ExecuteAlways, 2, 0, 6, 7);
    Thing_Damage(57, 1000);
    done = 1;
}
script 2 (int a, int b) { special_run = 1; special_args = a * 10 + b; }
"""

PLAYER = """
#include "zcommon.acs"
script 1 ENTER
{
    ClearInventory();
    GiveInventory("Clip", 25);
    given = CheckInventory("Clip");
    TakeInventory("Clip", 5);
    taken = CheckInventory("Clip");
    GiveInventory(const: "Shell", 4);
    direct_give = CheckInventory(const: "Shell");
    GiveInventory("Shotgun", 1);
    weapon = CheckInventory("Shotgun");
    player_number = PlayerNumber();
    tid_before = ActivatorTID();
    Thing_ChangeTID(0, 900);
    tid_after = ActivatorTID();
    GiveActorInventory(900, "RocketAmmo", 3);
    actor_inv = CheckActorInventory(900, "RocketAmmo");
    health = GetActorProperty(0, APROP_Health);
    ClearInventory();
    cleared = CheckInventory("Clip") + CheckInventory("Shotgun");
    ACS_Execute(2, 0, 3, 4);
    ACS_ExecuteAlways(3, 0, 5);
    result = ACS_ExecuteWithResult(4, 6);
    ACS_NamedExecute("named", 0, 8);
    named_result = ACS_NamedExecuteWithResult("named result", 9);
    ACS_Execute(const: 5, 0, 200, 3);
    root = Sqrt(1444);
    vector_length = VectorLength(3.0, 4.0) >> 16;
    str_functions = StrLen(StrLeft("abcdef", 2)) * 100 + StrLen(StrMid("abcdef", 1, 3)) * 10
                    + (StrICmp("ABC", "abc") == 0);
    Print(s:"print ", d:1, s:" ", f:1.5, s:" ", x:255, s:" ", b:5, s:" ", c:'c', s:" ", i:-3);
    PrintBold(s:"bold");
    Log(s:"log ", d:given, s:" ", n:0);
    HudMessage(s:"hud"; HUDMSG_PLAIN, 1, CR_RED, 0.5, 0.5, 1.0);
    HudMessageBold(s:"hud", d:2; HUDMSG_FADEOUT, 2, CR_GREEN, 0.5, 0.6, 1.0, 0.5);
    printed = 1;
    unique_tid = UniqueTID() > 0;
    ACS_Execute(6, 0);
    delay(2);
    ACS_Suspend(6, 0);
    delay(4);
    ACS_Terminate(6, 0);
    done = 1;
}
script 2 (int a, int b) { executed = a * 10 + b; }
script 3 (int a) { always = a; }
script 4 (int a) { SetResultValue(a * 10); }
script "named" (int a) { named = a; }
script "Named Result" (int a) { SetResultValue(a + 100); }
script 5 (int a, int b) { const_exec = a + b; }
script 6 (void) { while (1) { suspended++; delay(1); } }
"""

# A script started by another first runs on the next tic: script 3 runs tics 1..8, "sleeper" 9..13.
TIMING_EXPECTED = {"start": 0, "after_10": 10, "after_const": 15, "after_long": 315, "wait_done": 8,
                   "waited_at": 8, "named_done": 13}
ACTORS_EXPECTED = {
    "spawned": 1, "count": 1, "health": 55, "x_pos": 128, "angle": 16384, "renamed": 1, "damage_result": 1,
    "damaged": 50, "removed": 0, "failed_spawn": 0, "spot_spawn": 0, "forced": 1, "forced_angle": 0,
    "forced_short": 1, "stale_tid": 0, "class_check": 10,
    "pushbytes": 1, "special_run": 1, "special_args": 67,
}
PLAYER_EXPECTED = {
    "given": 25, "taken": 20, "weapon": 1, "direct_give": 4, "player_number": 0, "tid_before": 0,
    "tid_after": 900, "actor_inv": 3, "health": 100, "cleared": 0, "executed": 34, "always": 5, "result": 60,
    "named": 8, "named_result": 109, "const_exec": 203, "root": 38, "vector_length": 5, "str_functions": 231,
    "printed": 1, "unique_tid": 1,
}


RANDOM_RESULTS = ["low", "high", "const_low", "const_high", "neg_low", "neg_high", "fixed_low", "fixed_high",
                  "same"]
# program -> (source, the globals it reports through)
PROGRAMS = {"timing": (TIMING, TIMING_EXPECTED), "random": (RANDOM, RANDOM_RESULTS),
            "actors": (ACTORS, ACTORS_EXPECTED), "player": (PLAYER, [*PLAYER_EXPECTED, "suspended"])}


@pytest.fixture(scope="module")
def results(run_acs, declare_results):
    """{program: (Run, result name -> global)}."""
    declared = {key: declare_results(names) for key, (_, names) in PROGRAMS.items()}
    runs = run_acs({key: declared[key][0] + source for key, (source, _) in PROGRAMS.items()},
                   tics=330, probes=(9, 12))
    return {key: (runs[key], declared[key][1]) for key in PROGRAMS}


def test_delay_waits_the_given_tics(results):
    run, indices = results["timing"]
    assert run[60] == 1
    assert run.named(indices) == TIMING_EXPECTED
    assert run.at(9, indices["after_10"]) == 0 and run.at(12, indices["after_10"]) == 10


def test_random_stays_in_its_range_and_reaches_both_ends(results):
    run, indices = results["random"]
    assert run[60] == 1
    values = run.named(indices)
    fixed_low, fixed_high = values.pop("fixed_low"), values.pop("fixed_high")
    assert values == {"low": 3, "high": 7, "const_low": 10, "const_high": 12, "neg_low": -5, "neg_high": 5,
                      "same": 9}
    assert 16384 <= fixed_low < 20000 and 45000 < fixed_high <= 49152


def test_actors_and_line_specials(results):
    run, indices = results["actors"]
    assert run[60] == 1
    assert run.named(indices) == ACTORS_EXPECTED


def test_player_inventory_script_execution_and_callfunc(results):
    run, indices = results["player"]
    assert run[60] == 1
    assert run.named(indices, PLAYER_EXPECTED) == PLAYER_EXPECTED
    # script 6 counted while running, stopped while suspended, and ended with ACS_Terminate
    assert 2 <= run[indices["suspended"]] <= 3


@pytest.mark.parametrize("source, pushed", [
    ('#include "zcommon.acs"\nscript 1 OPEN { SpawnForced("Clip", 1.0, 2.0, 3.0); }', [0, 0]),
    ('#include "zcommon.acs"\nscript 1 OPEN { SpawnForced("Clip", 1.0, 2.0, 3.0, 9); }', [9, 0]),
    ('#include "zcommon.acs"\nscript 1 OPEN { SpawnForced("Clip", 1.0, 2.0, 3.0, 9, 7); }', [9, 7]),
    ('special -36:MySpawn(4, 6);\nscript 1 OPEN { MySpawn("Clip", 1.0, 2.0, 3.0); }', [0, 0]),
])
def test_spawnforced_always_passes_six_arguments(source, pushed):
    from wadgym.acs import compile_source
    from wadgym.acs.dis import parse_behavior

    code = parse_behavior(compile_source(source)).instructions
    at = next(i for i, instruction in enumerate(code) if instruction.name == "CALLFUNC")
    assert code[at].operands == [6, 36]
    assert (code[at - 1].name, code[at - 1].operands) == ("PUSH2BYTES", pushed)
