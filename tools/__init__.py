"""Scripts that are neither the site nor its tests: the engine's benchmarks and the measurements.

* ``bench.py``: the engine's benchmarks (``make bench``: ``python -m tools.bench``), beside the
  peer engine py-draughts;
* ``play_asleep.py``: the load test's play worker whose computer sleeps instead of searching
  (``LOAD_MIX=play LOAD_PLAY_THINK=sleep``, ``tests/load/run_load.py``);
* ``profile_trainer.py``: the trainer's requests in-process, with a profiler
  (docs/hardening.md);
* ``mining_speedup.py``: mining on real workers, one process against two (docs/corpus.md);
* ``endgames_check.py``: the endgame databases against the solver and the search on random
  positions, and their counts per material (docs/benchmarks/endgames.md).

Neither the site nor the engine imports this package; the tests of these scripts do.
"""
