"""The lesson-start report of the load test (LOAD_MIX=lessonstart, tests/load/run_load.py): which
of the others' requests count as made during the class's log-ins, and which in the calm before
them. Timings made up here; `make load` measures real ones."""

from __future__ import annotations

from tests.load.run_load import lesson_start


def timings(*requests: tuple[float, float], server: float = 5.0) -> dict:
    """A request name's timings from (started, client ms) pairs."""
    return {
        "client": [c for _s, c in requests],
        "started": [s for s, _c in requests],
        "server": [server for _ in requests],
        "at": [s + c / 1000 for s, c in requests],
    }


def test_the_others_requests_are_split_into_the_log_ins_and_the_calm_before():
    raw = {
        "timings": {
            # the others' own log-ins end the ramp-up at 10.2 s
            "login": timings((9.9, 300)),
            "login page": timings((9.0, 900)),
            # the class logs in from 30 s; the last answer comes at 40.5 s
            "arrival login": timings((30.0, 40), (35.0, 60), (40.0, 500), server=30.0),
            "arrival lesson map": timings((40.6, 2000)),
            # the others: before the ramp ended, in the calm, during the log-ins, after
            "move": timings((5.0, 9000), (20.0, 10), (31.0, 400), (40.4, 200), (41.0, 7000)),
            "puzzle page": timings((25.0, 20), (36.0, 100)),
        },
        "errors": {},
    }
    start = lesson_start(raw, start=0.0, ramp_end=10.2)
    assert start is not None
    assert start["arrivals"] == 3 and start["from"] == 30.0 and start["to"] == 40.5
    assert start["login_client"] == [60, 500, 500] and start["login_server"][2] == 30.0
    # 400, 200 (move) and 100 (puzzle page) started within the log-ins
    assert start["others_during_requests"] == 3 and start["others_during"] == [200, 400, 400]
    # 10 (move) and 20 (puzzle page) in the calm; the 9 s move of the ramp-up is neither
    assert start["others_before_requests"] == 2 and start["others_before"] == [20, 20, 20]


def test_a_run_without_arrivals_has_no_lesson_start():
    assert lesson_start({"timings": {"move": timings((1.0, 5))}, "errors": {}}, 0.0, 0.0) is None
