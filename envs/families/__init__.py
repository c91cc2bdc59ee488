"""The task families: one module each (`Params`, `PRESETS`, `build` and the DoomEnv subclass), its ACS template
beside it (`health.acs` beside `health.py`). A family imports the shared pieces in wadgym.envs.scenarios and
the base in wadgym.envs.doom_env; it imports another family only to build on its scenario (race on items, the one
such pair tests/test_import_cycles.py allows). Registered by wadgym.envs.registration's table.
"""
