"""The engine runtime: starting headless games (engine), the watchdog that kills a dead process's engines,
the queue locks a killed engine left held (queuelocks), multiplayer games on 127.0.0.1 (netgame) in a
network namespace of their own that holds only loopback (netns), and the WAD cache (cache). It knows no task
family.
"""
