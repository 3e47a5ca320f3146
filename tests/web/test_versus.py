"""Games between two accounts, on the model (``versus.models.VersusGame``): challenges, turns,
the engine's judgement of each move, draw offers, resignation, abort, take-backs in casual games
only, the end by each variant's rules, the clock judged on the server with the time passed in,
and the Glicko-2 ratings of rated games only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from tests.conftest import _make_user
from versus.models import Conflict, VersusGame, VersusRating

pytestmark = pytest.mark.django_db

#: the tests' clock: every call on a clocked game passes ``now`` (a game's first moves are
#: due within two minutes of its start, so the real time would abort it)
T0 = timezone.now().replace(microsecond=0)


def at(seconds: float):
    return T0 + timedelta(seconds=seconds)


@pytest.fixture
def white(student):
    return student


@pytest.fixture
def black(outsider):
    return outsider


def started(white, black, **options) -> VersusGame:
    """A game ``white`` challenged as White and ``black`` accepted at T0."""
    game = VersusGame.challenge(
        white, variant=options.pop("variant", "czech"), colour="white", **options
    )
    assert game.accept(black, now=T0).kind == "done"
    return game


def test_a_challenge_by_link_is_accepted_by_whoever_opens_it(white, black):
    game = VersusGame.challenge(white, variant="czech", colour="black")
    assert game.state == "open" and game.black_id == white.pk and game.white_id is None
    assert game.accept(white).kind == "refused", "the challenger cannot accept their own challenge"
    assert game.accept(black).kind == "done"
    game.refresh_from_db()
    assert (game.state, game.white_id, game.black_id) == ("playing", black.pk, white.pk)


def test_a_challenge_to_a_classmate_is_theirs_alone(white, black, django_user_model):
    third = _make_user(django_user_model, "tomas")
    game = VersusGame.challenge(white, variant="czech", invited=black)
    assert game.accept(third).kind == "refused"
    assert game.accept(black).kind == "done"


def test_the_random_colour_gives_the_challenger_one_side(white):
    game = VersusGame.challenge(white, variant="czech", colour="random")
    assert [game.white_id, game.black_id].count(white.pk) == 1


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"base_minutes": 0}, "base"),
        ({"base_minutes": 61}, "base"),
        ({"base_minutes": 5, "increment_seconds": 31}, "increment"),
        ({"days_per_move": 15}, "days"),
        ({"rated": True}, "rated"),
    ],
)
def test_a_clock_out_of_bounds_or_a_rated_game_without_one_is_refused(white, options, code):
    with pytest.raises(ValidationError) as info:
        VersusGame.challenge(white, variant="czech", **options)
    assert info.value.code == code


def test_the_players_move_in_turn_and_an_out_of_turn_move_is_refused_with_the_rule(white, black):
    game = started(white, black)
    reply = game.play(black, text="11-15", now=at(1))
    assert reply.kind == "turn" and reply.status == 400
    assert reply.article == "CUD 2006 art. 3.3"
    assert game.play(white, text="22-18", now=at(2)).kind == "moved"
    assert game.play(white, text="18-14", now=at(3)).kind == "turn"
    assert game.play(black, text="11-15", now=at(4)).kind == "moved"
    game.refresh_from_db()
    assert game.moves == [[22, 18], [11, 15]] and game.version == 3


def test_an_illegal_move_is_refused_with_the_engines_rule_and_changes_nothing(white, black):
    game = started(white, black)
    version = game.version
    reply = game.play(white, text="22-15", now=at(1))  # a man moves one square
    assert reply.kind in ("illegal", "bad") and reply.status == 400 and reply.message
    reply = game.play(white, text="11-15", now=at(1))
    assert reply.kind == "illegal" and reply.code == "opponent_piece"
    assert reply.article == "CUD 2006 art. 3.3"
    game.refresh_from_db()
    assert game.moves == [] and game.version == version


def test_a_stranger_cannot_move_resign_or_offer(white, black, django_user_model):
    game = started(white, black)
    third = _make_user(django_user_model, "tomas")
    for reply in (game.play(third, text="22-18"), game.resign(third), game.offer_draw(third)):
        assert reply.kind == "refused"
    assert game.state == "playing" and game.moves == []


def test_a_stale_write_is_a_conflict_and_writes_nothing(white, black):
    game = started(white, black)
    stale = VersusGame.objects.get(pk=game.pk)
    game.play(white, text="22-18", now=at(1))
    with pytest.raises(Conflict):
        stale.play(white, text="21-17", now=at(1))
    game.refresh_from_db()
    assert game.moves == [[22, 18]]


def test_a_draw_offer_accepted_draws_the_game(white, black):
    game = started(white, black)
    assert game.offer_draw(white).kind == "done" and game.draw_offer == "w"
    assert game.answer_draw(white, True).kind == "refused", "one cannot accept one's own offer"
    assert game.answer_draw(black, True).kind == "done"
    game.refresh_from_db()
    assert (game.state, game.result, game.reason) == ("over", "1-1", "agreed")


def test_a_draw_offer_declined_or_answered_by_a_move_lapses(white, black):
    game = started(white, black)
    game.offer_draw(white)
    game.answer_draw(black, False)
    assert game.draw_offer == "" and game.is_playing
    game.play(white, text="22-18", now=at(1))
    game.offer_draw(white)
    game.play(black, text="11-15", now=at(2))
    assert game.draw_offer == "", "the opponent's move declines the offer"


def test_offering_a_draw_while_the_opponents_offer_stands_agrees_it(white, black):
    game = started(white, black)
    game.offer_draw(black)
    game.offer_draw(white)
    assert (game.result, game.reason) == ("1-1", "agreed")


def test_resigning_loses(white, black):
    game = started(white, black)
    assert game.resign(black).kind == "done"
    assert (game.state, game.result, game.reason) == ("over", "2-0", "resigned")
    assert game.outcome_for("w") == "won" and game.outcome_for("b") == "lost"
    assert game.play(white, text="22-18").kind == "over"


def test_a_game_can_be_aborted_only_before_both_sides_have_moved(white, black):
    game = started(white, black)
    game.play(white, text="22-18", now=at(1))
    assert game.can_abort
    assert game.abort(black).kind == "done"
    assert (game.state, game.result, game.reason) == ("over", "", "aborted")
    game = started(white, black)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    reply = game.abort(white)
    assert reply.kind == "refused" and game.is_playing


def test_the_challenger_withdraws_an_open_challenge(white, black):
    game = VersusGame.challenge(white, variant="czech")
    assert game.abort(black).kind == "refused"
    assert game.abort(white).kind == "done" and game.reason == "cancelled"
    assert game.accept(black).kind == "refused"


def test_a_take_back_in_a_casual_game_goes_back_to_before_the_askers_last_move(white, black):
    game = started(white, black)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert game.request_takeback(white).kind == "done" and game.takeback_request == "w"
    assert game.answer_takeback(white, True).kind == "refused"
    assert game.answer_takeback(black, True).kind == "done"
    game.refresh_from_db()
    assert game.moves == [] and game.white_to_move and game.takeback_request == ""


def test_a_take_back_refused_leaves_the_game(white, black):
    game = started(white, black)
    game.play(white, text="22-18", now=at(1))
    game.request_takeback(white)
    game.answer_takeback(black, False)
    assert game.moves == [[22, 18]] and game.takeback_request == ""


def test_there_are_no_take_backs_in_a_rated_game(white, black):
    game = started(white, black, base_minutes=5, rated=True)
    game.play(white, text="22-18", now=at(1))
    reply = game.request_takeback(white, now=at(2))
    assert reply.kind == "refused" and game.takeback_request == ""


def test_the_game_ends_by_the_variants_own_rules_with_the_article(white, black):
    # Czech: kings shuffling back and forth repeat the position a third time (art. 6.1)
    game = started(white, black, fen="W:WK32,28:BK1,5")
    for n, (mover, text) in enumerate(
        [(white, "32-27"), (black, "1-6"), (white, "27-32"), (black, "6-1")] * 2, 1
    ):
        assert game.play(mover, text=text, now=at(n)).kind == "moved"
    assert (game.state, game.result, game.reason) == ("over", "1-1", "threefold")
    assert game.article == "CUD 2006 art. 6.1"


def test_capturing_the_last_piece_wins(white, black):
    game = started(white, black, fen="W:W22:B18")
    game.play(white, text="22x15", now=at(1))
    assert (game.state, game.result, game.reason) == ("over", "2-0", "no_pieces")
    assert game.article == "CUD 2006 art. 7.2c"


def test_the_clock_takes_the_movers_time_and_adds_the_increment(white, black):
    game = started(white, black, base_minutes=3, increment_seconds=2)
    assert game.remaining_ms("w", at(100)) == 180_000, "no clock before both sides have moved"
    game.play(white, text="22-18", now=at(10))
    game.play(black, text="11-15", now=at(20))
    assert (game.white_ms, game.black_ms) == (180_000, 180_000)
    assert game.remaining_ms("w", at(50)) == 150_000, "White's clock runs now"
    assert game.play(white, text="18x11", now=at(50)).kind == "moved"
    game.refresh_from_db()
    assert game.white_ms == 180_000 - 30_000 + 2_000
    assert game.remaining_ms("b", at(55)) == 175_000


def test_a_flag_loses_when_anyone_asks(white, black):
    game = started(white, black, base_minutes=1)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert not game.judge_clock(at(61)), "59 s spent of 60: still in time"
    assert game.judge_clock(at(62.5))
    game.refresh_from_db()
    assert (game.state, game.result, game.reason, game.white_ms) == ("over", "0-2", "time", 0)


def test_a_move_after_the_flag_is_refused_and_the_game_lost(white, black):
    game = started(white, black, base_minutes=1)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert game.play(white, text="18x11", now=at(70)).kind == "over"
    assert (game.result, game.reason) == ("0-2", "time")


def test_a_correspondence_move_has_its_days(white, black):
    game = started(white, black, days_per_move=2)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert not game.judge_clock(at(2 + 2 * 86_400 - 1))
    assert game.judge_clock(at(2 + 2 * 86_400 + 1))
    assert game.reason == "time" and game.result == "0-2"


def test_a_rated_game_rates_both_players_per_variant_and_speed(white, black):
    game = started(white, black, base_minutes=3, increment_seconds=2, rated=True)
    assert game.speed == "blitz"
    game.resign(black, now=at(5))
    winner = VersusRating.objects.get(user=white, variant="czech", speed="blitz")
    loser = VersusRating.objects.get(user=black, variant="czech", speed="blitz")
    assert winner.rating > 1500 > loser.rating and winner.games == loser.games == 1
    game.refresh_from_db()
    assert game.rating_change == {
        "w": [1500, round(winner.rating)],
        "b": [1500, round(loser.rating)],
    }


def test_a_casual_or_aborted_game_rates_nobody(white, black):
    game = started(white, black, base_minutes=3)
    game.resign(black, now=at(5))
    rated = started(white, black, base_minutes=3, rated=True)
    rated.abort(white, now=at(5))
    assert not VersusRating.objects.exists()
    assert game.rating_change is None and rated.rating_change is None


def test_a_spectator_of_a_rated_game_sees_it_two_plies_late(white, black, django_user_model):
    third = _make_user(django_user_model, "tomas")
    game = started(white, black, base_minutes=10, rated=True)
    for n, (mover, text) in enumerate([(white, "22-18"), (black, "11-15"), (white, "18x11")], 1):
        game.play(mover, text=text, now=at(n))
    assert len(game.visible_moves(white)) == 3
    assert game.visible_moves(third) == game.moves[:1]
    game.resign(black, now=at(5))
    assert game.visible_moves(third) == game.moves


def test_the_pdn_has_the_players_and_the_moves(white, black):
    game = started(white, black, base_minutes=5, increment_seconds=3)
    game.play(white, text="22-18", now=at(1))
    game.resign(black, now=at(5))
    text = game.pdn()
    assert '[White "standa"]' in text and '[Black "olga"]' in text
    assert '[TimeControl "300+3"]' in text and "22-18" in text and "2-0" in text


def test_the_flag_task_judges_the_game_it_was_queued_for_and_nothing_later(white, black):
    from versus.tasks import flag_game

    game = started(white, black, base_minutes=1)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    VersusGame.objects.filter(pk=game.pk).update(turn_started=timezone.now() - timedelta(minutes=2))
    assert flag_game(game.pk, game.version - 1) is False, "an older version: left alone"
    assert flag_game(game.pk, game.version) is True
    game.refresh_from_db()
    assert (game.result, game.reason) == ("0-2", "time")
    assert flag_game(game.pk, game.version) is False, "a second delivery does nothing"


def test_a_seek_in_a_class_is_open_to_the_class_only(white, black, teacher):
    from classroom.models import Classroom

    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(white)
    seek = VersusGame.challenge(white, variant="czech", classroom=classroom, public=False)
    assert not seek.may_accept(black) and not seek.can_view(black)
    assert seek.may_accept(teacher) and seek.can_view(teacher)


def test_a_clocked_game_without_its_first_moves_is_aborted_in_time(white, black):
    game = started(white, black, base_minutes=5, rated=True)
    assert not game.judge_clock(at(119))
    assert game.judge_clock(at(121))
    assert (game.state, game.result, game.reason) == ("over", "", "no_start")
    assert not VersusRating.objects.exists()


def test_a_correspondence_player_is_reminded_once_a_move_before_the_deadline(
    white, black, mailoutbox
):
    from versus.models import remind_correspondence

    white.email, black.email = "w@example.com", "b@example.com"
    white.save(), black.save()
    game = started(white, black, days_per_move=2)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert remind_correspondence(base_url="https://x", now=at(3600)) == 0, "two days left"
    late = at(2 + 2 * 86_400 - 3600)
    assert remind_correspondence(base_url="https://x", now=late) == 1
    assert remind_correspondence(base_url="https://x", now=late) == 0, "once a move"
    assert (
        mailoutbox[0].to == ["w@example.com"] and f"/versus/g/{game.token}/" in mailoutbox[0].body
    )


def test_the_versus_modules_examples_hold():
    import doctest

    from versus import engine, models, ratings

    for module in (engine, models, ratings):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_the_sweep_ends_the_games_out_of_time_and_leaves_the_others(
    white, black, django_user_model
):
    from versus.models import judge_clocks

    slow = started(white, black, days_per_move=1)
    slow.play(white, text="22-18", now=at(1))
    slow.play(black, text="11-15", now=at(2))
    untimed = started(white, black)
    quick = started(white, black, base_minutes=60, increment_seconds=30)
    quick.play(white, text="22-18", now=at(1))
    quick.play(black, text="11-15", now=at(2))
    assert judge_clocks(at(3600)) == 0
    assert judge_clocks(at(2 + 86_400 + 1)) == 2
    for game in (slow, quick, untimed):
        game.refresh_from_db()
    assert (slow.reason, quick.reason, untimed.state) == ("time", "time", "playing")


def test_a_flag_near_is_queued_as_a_task_and_a_far_one_left_to_the_sweep(
    white, black, django_capture_on_commit_callbacks
):
    quick = started(white, black, base_minutes=1)
    slow = started(white, black, base_minutes=60)
    for game in (quick, slow):
        game.play(white, text="22-18", now=at(1))
    with django_capture_on_commit_callbacks() as near:
        quick.play(black, text="11-15", now=at(2))
    with django_capture_on_commit_callbacks() as far:
        slow.play(black, text="11-15", now=at(2))
    # the push to the game's pages, and for the near flag the task
    assert (len(near), len(far)) == (2, 1)
