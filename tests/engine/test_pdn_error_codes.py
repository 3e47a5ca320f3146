"""The PDN reader names the kind of each error (``code``) with its values (``params``), so that an
application can say it in its own language; the English message stays as it was."""

from __future__ import annotations

import pytest

import dama.pdn

CASES = [
    ("1. 22-18 {never closed\n", "unclosed_comment", {}),
    ('[Event "x]\n1. 22-18 *\n', "malformed_tag", {}),
    ("1. foo *\n", "not_a_move", {"text": "foo"}),
    ('[GameType "x"]\n1. 22-18 *\n', "gametype_not_number", {"value": "x"}),
    ('[GameType "²"]\n1. 22-18 *\n', "gametype_not_number", {"value": "²"}),
    ('[GameType "٢٩"]\n1. 22-18 *\n', "gametype_not_number", {"value": "٢٩"}),
    (f'[GameType "{"2" * 5000}"]\n1. 22-18 *\n', "gametype_not_number", {"value": "2" * 40}),
    ('[GameType "30"]\n1. 22-18 *\n', "gametype_unsupported", {"gametype": 30}),
    ('[GameType "29,W,10,10"]\n1. 22-18 *\n', "gametype_board", {"width": 10, "size": 8}),
    ("1. 22-18 ) *\n", "unopened_variation", {}),
    ("$1 1. 22-18 *\n", "nag_before_move", {"nag": "$1"}),
    ("( 22-18 ) *\n", "variation_first", {}),
    ("1. 22-18 ( 21-17 *\n", "unclosed_variation", {}),
    ("1. 22-18 ( ) *\n", "empty_variation", {}),
    ('[FEN "W:W21:B10"]\n1. 21-17 30-25 *\n', "unplayable_move", {"move": "30-25"}),
    ('[FEN "W:W99:B5"]\n*\n', "bad_fen", {"fen": "W:W99:B5"}),
]


@pytest.mark.parametrize(("text", "code", "params"), CASES, ids=[c[1] for c in CASES])
def test_each_pdn_error_names_its_kind_and_values(text, code, params):
    items = list(dama.pdn.read_games(text, default_variant="czech"))
    error = next(item for item in items if isinstance(item, dama.pdn.GameError))
    assert error.code == code, error
    assert params.items() <= error.params.items(), error.params
    with pytest.raises(dama.pdn.PdnLineError) as raised:
        dama.pdn.read_game(text, default_variant="czech")
    assert (raised.value.code, raised.value.line) == (code, error.line)


def test_an_unplayable_move_carries_the_engines_explanation_in_both_languages():
    (error,) = dama.pdn.read_games('[FEN "W:W21:B10"]\n1. 21-17 30-25 *\n', default_variant="czech")
    assert isinstance(error, dama.pdn.GameError)
    assert error.explanation is not None
    assert error.explanation.message("en") != error.explanation.message("cs")


@pytest.mark.parametrize("size", ["²", "٨", "8" * 5000])
def test_a_gametype_board_size_that_is_not_a_number_is_left_unread(size):
    game = dama.pdn.read_game(f'[GameType "29,W,8,{size}"]\n1. 22-18 *\n')
    assert game.variant.name == "czech" and len(game.moves) == 1
