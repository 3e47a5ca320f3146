"""The games' one answer shape (``core.replies``): a game against the computer and a game between
players answer with the same :class:`Reply` and raise the same :class:`Conflict`."""

from __future__ import annotations

import doctest

from core import replies


def test_the_replies_doctests_run():
    assert doctest.testmod(replies).failed == 0


def test_both_games_answer_with_the_one_reply_and_conflict():
    from play import models as play
    from versus import models as versus

    assert play.Reply is versus.Reply is replies.Reply
    assert play.Conflict is versus.Conflict is replies.Conflict


def test_each_kind_of_reply_has_its_status():
    statuses = {kind: replies.Reply(kind).status for kind in ("moved", "continue", "done", "hint")}
    assert set(statuses.values()) == {200}
    assert replies.Reply("sealed").status == 403
    assert replies.Reply("wait").status == 409
    for kind in ("illegal", "bad", "over", "nothing", "turn", "refused"):
        assert replies.Reply(kind).status == 400, kind
