"""Demonstrations: Minari datasets written from a policy's episodes (record, `wadgym record`) or from a person's
(play, `wadgym play`), and behaviour cloning from them (pretrain, `wadgym train --pretrain`, `--algo bc`).

It plays saved policies (wadgym.agents.policies) and knows no backend (tests/test_import_cycles.py checks it).
"""
