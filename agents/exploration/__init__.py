"""Exploration bonuses (`wadgym train --explore`): the setting, checked and resolved without torch (explore, which
wadgym.agents.config reads), and the bonuses with the SB3 callback that adds them to the rewards (bonuses).

Read only by the backends and by config (tests/test_import_cycles.py checks it).
"""
