"""The life of a run folder, the same for every backend: a session's skeleton (lifecycle: train_session and the
Trainer protocol a backend implements), its learning-curve plot, the table `wadgym runs` prints (table), and the
run's copy in MLflow (tracking). The folder's files themselves are named in wadgym.agents.runfolder, shared by all.

This room knows no backend (tests/test_import_cycles.py checks it): a backend hands its Trainer to
lifecycle.train_session, never the other way round; the policies a run plays come from wadgym.agents.policies.
"""
