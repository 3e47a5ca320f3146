"""PDN reading and writing: sample files of each variant, a puzzle collection with a broken
entry, errors with their line numbers, round-trips and a property test on random games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dama import Board, InvalidPdnError
from dama.mine import MinedPuzzle, puzzle_pdn
from dama.pdn import (
    MAX_PDN_BYTES,
    MAX_VARIATION_DEPTH,
    Game,
    GameError,
    Node,
    PdnLineError,
    position_pdn,
    read_game,
    read_games,
    read_tags,
    tag_line,
    write_game,
)

DATA = Path(__file__).parent / "data"


def load(name: str, **kw: object) -> list[Game | GameError]:
    return list(read_games((DATA / name).read_text(encoding="utf-8"), **kw))  # type: ignore[arg-type]


def games(name: str) -> list[Game]:
    items = load(name)
    assert all(isinstance(g, Game) for g in items), [str(g) for g in items]
    return [g for g in items if isinstance(g, Game)]


def mainline(game: Game) -> list[str]:
    return [n.move_text for n in game.moves]


def movetext_lines(pdn: str) -> list[str]:
    return pdn.split("\n\n", 1)[1].splitlines()


# -- sample files, one per variant ---------------------------------------------------------
# (file, entry start line, variant, plies, result, final position)
SAMPLES = [
    (
        "international_games.pdn",
        1,
        "international",
        40,
        "2-0",
        "W:W24,34,36,39,41,42,46,47,48,50:B2,3,5,6,7,9,10,11,13,14,16,18,32",
    ),
    (
        "international_games.pdn",
        21,
        "international",
        30,
        "1-1",
        "W:W31,35,36,37,38,39,40,41,42,43,45,46,47,50:B2,3,4,5,6,7,8,9,10,11,12,14,16,25,28",
    ),
    ("czech_games.pdn", 1, "czech", 36, "2-0", "W:WK2,17:B3,4,5,6,8,9,K32"),
    ("czech_games.pdn", 16, "czech", 30, "*", "W:W14,18,28,29,30,32:B4,5,6,7,11,20"),
    ("brazilian_games.pdn", 1, "brazilian", 36, "0-2", "W:W12,21,28,29:B4,5,6,13,25"),
    ("brazilian_games.pdn", 15, "brazilian", 26, "1-1", "W:W15,18,28,29,31,32:B1,6,7,9,13,21"),
]


@pytest.mark.parametrize(("name", "line", "variant", "plies", "result", "fen"), SAMPLES)
def test_sample_game_is_read_and_replayed(
    name: str, line: int, variant: str, plies: int, result: str, fen: str
) -> None:
    game = next(g for g in games(name) if g.line == line)
    assert game.variant.name == variant
    assert len(game.moves) == plies
    assert game.result == result
    assert all(n.move is not None for n in game.moves)
    assert game.end_board().fen() == fen


@pytest.mark.parametrize(
    "name", ["international_games.pdn", "czech_games.pdn", "brazilian_games.pdn"]
)
def test_sample_games_round_trip(name: str) -> None:
    for game in games(name):
        text = game.pdn()
        again = read_game(text)
        assert again == game
        assert again.end_board() == game.end_board()
        assert all(len(line) <= 80 for line in movetext_lines(text))


def test_international_tags_comments_nags_and_nested_variations() -> None:
    club, training = games("international_games.pdn")
    assert list(club.tags)[:4] == ["Event", "Site", "Date", "Round"]
    assert club.tags["White"] == "Novak, Jan"
    assert club.moves[0].comment == "A classical opening move."
    # 5. 33-28! with its alternative 5. 27-22, which holds a nested variation at 6... 12-18
    node = club.moves[8]
    assert (node.move_text, node.nags) == ("33-28", [1])
    var = node.variations[0]
    assert [n.move_text for n in var] == ["27-22", "18x27", "31x22", "11-17"]
    nested = var[3].variations[0]
    assert nested[0].move_text == "12-18"
    assert nested[0].comment == "also possible"
    assert nested[0].move is not None and nested[0].move.start == 12
    assert club.moves[11].nags == [6]  # 6-11 $6
    assert club.moves[24].nags == [3]  # 27-21!!
    assert club.moves[24].comment == "A shot: White gives one and takes three."
    # glued move numbers "1.33-29", a long GameType, a comment before the first move,
    # and the chess form of a draw
    assert training.tags["GameType"] == "20,W,10,10,N2,0"
    assert training.comment == "Played at the Thursday lesson."
    assert mainline(training)[:3] == ["33-29", "17-22", "34-30"]
    assert training.result == "1-1"
    assert training.moves[20].nags == [14]


def test_czech_comments_keep_their_diacritics() -> None:
    first, second = games("czech_games.pdn")
    assert first.tags["Event"] == "Přebor oddílu"
    assert first.moves[0].comment == "Nejčastější zahájení."
    assert first.moves[5].comment == "Braní je povinné."
    assert [n.move_text for n in first.moves[5].variations[0]] == ["7-11", "17-13", "2-7"]
    assert second.moves[18].nags == [2]


def test_brazilian_games_use_algebraic_moves() -> None:
    first, _ = games("brazilian_games.pdn")
    assert first.tags["GameType"] == "26,W,8,8,A0,0"
    assert mainline(first)[:3] == ["e3-d4", "h6-g5", "f2-e3"]
    assert first.moves[0].move is not None
    assert (first.moves[0].move.start, first.moves[0].move.end) == (23, 18)
    assert first.moves[12].nags == [6] and first.moves[12].comment == "Risky."


# -- a collection of puzzles with a broken entry ---------------------------------------------
def test_collection_keeps_good_entries_and_reports_the_broken_one() -> None:
    items = load("puzzle_collection.pdn", default_variant="czech")
    assert len(items) == 23
    errors = [i for i in items if isinstance(i, GameError)]
    good = [i for i in items if isinstance(i, Game)]
    assert len(good) == 22
    assert len(errors) == 1
    err = errors[0]
    assert (err.index, err.start_line, err.line) == (13, 70, 73)
    assert "square 33" in err.message and "8x8" in err.message
    assert str(err).startswith("line 73: bad FEN")
    assert err.source.startswith('[Event "Puzzle 12b"]')
    # entries are numbered and know where they start
    assert [g.index for g in good] == [i for i in range(1, 24) if i != 13]
    assert good[0].line == 1 and good[1].line == 7
    assert {g.variant.name for g in good} == {"czech", "international", "brazilian"}


def test_collection_positions_and_solutions() -> None:
    good = [
        i for i in load("puzzle_collection.pdn", default_variant="czech") if isinstance(i, Game)
    ]
    text = (DATA / "puzzle_collection.pdn").read_text(encoding="utf-8")
    for game in good:
        assert game.fen is not None
        assert game.board().fen() == game.fen
        assert game.tags["SetUp"] == "1"
        assert len(game.moves) <= 1
        if game.moves:
            assert game.comment == "Find the best move."
            assert game.moves[0].move in game.board().legal_moves
    # an algebraic FEN of a Brazilian puzzle is stored numerically
    assert "Wc3" in text or "Wa1" in text or any(c.isalpha() for c in text.split('FEN "')[-1][2:5])
    assert all(":W" in g.fen and g.fen[0] in "WB" for g in good if g.fen)


def test_entries_without_gametype_use_the_default_variant() -> None:
    text = '[Event "x"]\n[FEN "W:W21:B1"]\n1. 21-17 *\n'
    assert read_game(text, default_variant="czech").variant.name == "czech"
    assert read_game(text).variant.name == "international"  # PDN's default GameType 20


def test_collection_of_entries_without_results_is_split_at_repeated_tags() -> None:
    text = '[Event "a"]\n[GameType "29"]\n[FEN "W:W21:B5"]\n\n[Event "b"]\n[GameType "29"]\n'
    items = list(read_games(text))
    assert [type(i) for i in items] == [Game, Game]
    assert [i.line for i in items] == [1, 5]
    assert all(isinstance(i, Game) and i.result == "*" for i in items)


# -- errors with line numbers ----------------------------------------------------------------
def error_of(text: str, **kw: object) -> GameError:
    items = list(read_games(text, **kw))  # type: ignore[arg-type]
    errs = [i for i in items if isinstance(i, GameError)]
    assert errs, "expected an error"
    return errs[0]


def test_illegal_move_names_line_number_and_move() -> None:
    text = '[GameType "29"]\n\n1. 22-18 11-15\n2. 18-14 *\n'
    err = error_of(text)
    assert err.line == 4
    assert "2. 18-14" in err.message and "not playable" in err.message
    with pytest.raises(PdnLineError) as exc:
        read_game(text)
    assert exc.value.line == 4
    assert isinstance(exc.value, InvalidPdnError) and isinstance(exc.value, ValueError)
    assert str(exc.value).startswith("line 4: 2. 18-14")


def test_illegal_black_move_is_numbered_with_dots() -> None:
    err = error_of('[GameType "29"]\n1. 22-18 12-8 *')
    assert "1... 12-8" in err.message


def test_illegal_move_in_a_variation() -> None:
    text = '[GameType "29"]\n1. 22-18 11-15\n(1... 10-15\n2. 18x11)\n2. 18x11 *'
    err = error_of(text)
    assert err.line == 4
    assert "2. 18x11" in err.message


def test_ambiguous_move_lists_the_routes() -> None:
    # 14x32 alone is the whole route of the one-piece capture; 14x23x32 fits two longer moves
    text = '[GameType "29"]\n[FEN "W:WK14:B2,8,10,11,13,19,27,28"]\n\n1. 14x23x32 *'
    err = error_of(text)
    assert err.line == 4
    assert "ambiguous" in err.message
    assert "14x3x12x23x32" in err.message and "14x7x16x23x32" in err.message


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[Event "x"]\n[GameType "21"]\n1. 32-28 *', 2, "GameType 21 is not supported"),
        ('[GameType "20,W,8,8,N2,0"]\n*', 1, "8x8 board"),
        ('[GameType "czech"]\n*', 1, "must start with a number"),
        ('[GameType "29"]\n[FEN "W:W21:B5:X"]\n*', 2, "bad FEN"),
        ("[Event Club]\n1. 32-28 *", 1, "malformed tag"),
        ("1. 32-28 18-23\n2. 38-32 hello *", 2, "'hello' is not a move"),
        ("1. 32-28 {never closed\n18-23 *", 1, "never closed by }"),
        ("1. 32-28 (1. 33-28\n18-23 *", 1, "never closed by ')'"),
        ("1. 32-28 18-23)\n*", 1, "never opened"),
        ("1. 32-28\n(\n) 18-23 *", 2, "empty variation"),
        ("$3 1. 32-28 *", 1, "NAG $3 comes before any move"),
        ("(1. 32-28) 1. 33-28 *", 1, "must follow the move"),
        ("1. 32-28 18-23 2. 38-32 (2. 31-27\n *", 1, "never closed by ')'"),
    ],
)
def test_malformed_entries(text: str, line: int, words: str) -> None:
    err = error_of(text)
    assert err.line == line, err
    assert words in err.message, err


def test_unclosed_comment_does_not_swallow_the_next_entry() -> None:
    text = (
        '[Event "one"]\n[GameType "29"]\n\n1. 22-18 {oops\n\n'
        '[Event "two"]\n[GameType "29"]\n\n1. 22-18 11-15 *\n'
    )
    items = list(read_games(text))
    assert len(items) == 2
    assert isinstance(items[0], GameError) and items[0].line == 4
    assert isinstance(items[1], Game) and items[1].tags["Event"] == "two"
    assert items[1].line == 6


def test_errors_do_not_stop_the_reader() -> None:
    good = '[GameType "29"]\n1. 22-18 *\n'
    bad = '[GameType "29"]\n1. 22-19 *\n'
    items = list(read_games(good + bad + good + bad + good))
    assert [type(i).__name__ for i in items] == ["Game", "GameError"] * 2 + ["Game"]
    assert [i.line for i in items if isinstance(i, GameError)] == [4, 8]


def test_oversized_input_is_refused() -> None:
    with pytest.raises(InvalidPdnError, match="at most"):
        read_games("*" + " " * MAX_PDN_BYTES)
    with pytest.raises(InvalidPdnError, match="at most"):
        read_games(b" " * (MAX_PDN_BYTES + 1))
    with pytest.raises(InvalidPdnError, match="at most"):
        read_game("ž" * (MAX_PDN_BYTES // 2 + 1))  # more bytes than characters


def nested(depth: int) -> str:
    # 1. 32-28 (1. 33-28 (1. 31-27 (... ))) alternating two first moves, ``depth`` levels deep
    firsts = ["33-28", "31-27"]
    inner = ""
    for i in range(depth):
        inner = f"(1. {firsts[i % 2]} {inner})"
    return f"1. 32-28 {inner} *"


def test_variation_depth_limit() -> None:
    game = read_game(nested(MAX_VARIATION_DEPTH))
    depth, node = 0, game.moves[0]
    while node.variations:
        node = node.variations[0][0]
        depth += 1
    assert depth == MAX_VARIATION_DEPTH
    assert read_game(game.pdn()) == game
    err = error_of(nested(MAX_VARIATION_DEPTH + 1))
    assert f"nested more than {MAX_VARIATION_DEPTH} deep" in err.message
    # a hostile, very deep text fails cleanly too
    err = error_of("1. 32-28 " + "(1. 33-28 " * 10_000 + ")" * 10_000 + " *")
    assert "nested more than" in err.message


def test_bytes_are_decoded_utf8_or_cp1252() -> None:
    text = '[Event "Přebor"]\n[GameType "29"]\n1. 22-18 {dobrý tah} *\n'
    assert read_game(text.encode("utf-8")).moves[0].comment == "dobrý tah"
    cp = '[Event "Café"]\n[GameType "29"]\n1. 22-18 *\n'.encode("cp1252")
    assert read_game(cp).tags["Event"] == "Café"


def test_empty_text_holds_no_game() -> None:
    with pytest.raises(InvalidPdnError, match="no game"):
        read_game("  \n\n")
    assert list(read_games("")) == []


# -- reading details ---------------------------------------------------------------------------
def test_result_tokens_are_normalised() -> None:
    for token, result in [("1-0", "2-0"), ("0-1", "0-2"), ("1/2-1/2", "1-1"), ("0-0", "0-0")]:
        assert read_game(f"1. 32-28 {token}").result == result
    assert read_game('[Result "0-2"]\n1. 32-28').result == "0-2"


def test_move_forms_numbers_and_annotations() -> None:
    game = read_game('[GameType "29"]\n1.22-18 11-15 2.18x11 8:15 3. 21-17? 15-19!? $10 *')
    assert mainline(game) == ["22-18", "11-15", "18x11", "8:15", "21-17", "15-19"]
    assert game.moves[4].nags == [2]
    assert game.moves[5].nags == [5, 10]
    full = read_game('[FEN "W:WK46:B41,32,22,12"]\n1. 46x37x28x17x3 *')
    assert full.moves[0].move is not None and full.moves[0].move.end == 3


def test_escaped_tag_values_and_line_comments() -> None:
    game = read_game('[Event "The \\"big\\" match \\\\ 2024"]\n1. 32-28 ; a remark\n18-23 *')
    assert game.tags["Event"] == 'The "big" match \\ 2024'
    assert game.moves[0].comment == "a remark"
    assert read_game(game.pdn()) == game


def test_black_to_move_start_position() -> None:
    game = read_game('[GameType "29"]\n[FEN "B:W21,22:B9,10"]\n1... 9-13 2. 22-18 *')
    assert game.board().turn is False
    assert "1... 9-13 2. 22-18" in game.pdn()
    assert read_game(game.pdn()) == game


# -- writing ---------------------------------------------------------------------------------
def test_position_pdn_for_a_puzzle() -> None:
    board = Board("international", "B:W31-35,K46:B10,12")
    text = position_pdn(board, {"Event": "Puzzle 1", "Annotator": "Teacher"})
    assert text.splitlines() == [
        '[Event "Puzzle 1"]',
        '[Annotator "Teacher"]',
        '[GameType "20"]',
        '[SetUp "1"]',
        '[FEN "B:W31,32,33,34,35,K46:B10,12"]',
        '[Result "*"]',
        "",
        "*",
    ]
    game = read_game(text)
    assert game.board() == board and game.moves == []


def test_start_position_has_no_fen_tag() -> None:
    board = Board("czech")
    board.push_text("22-18")
    text = Game.from_board(board).pdn()
    assert "FEN" not in text and "SetUp" not in text
    assert '[GameType "29"]' in text
    assert read_game(text).fen is None


def test_from_board_keeps_a_set_up_position_and_the_result() -> None:
    board = Board("czech", "W:W21:B1")
    board.push_text("21-17")
    board.push_text("1-5")
    game = Game.from_board(board, {"Event": "Ending"})
    assert game.fen == "W:W21:B1"
    assert mainline(game) == ["21-17", "1-5"]
    assert game.result == "*"
    lost = Board("czech", "W:W22:B18")
    lost.push_text("22x15")
    assert Game.from_board(lost).result == "2-0"  # black has no pieces left


def test_written_comments_and_variations_round_trip() -> None:
    board = Board("czech")
    moves = ["22-18", "11-15", "18x11", "8x15"]
    game = Game(variant=board.variant, tags={"Event": "A lesson"}, comment="Start here.")
    for text in moves:
        game.moves.append(Node(move_text=text))
    game.moves[0].comment = ("White attacks. " * 12).strip()  # longer than a line
    game.moves[1].nags = [4, 140]
    game.moves[1].variations.append(
        [Node(move_text="9-13", starting_comment="Or quietly:"), Node(move_text="18-14")]
    )
    game.result = "1-1"
    text = write_game(game)
    assert all(len(line) <= 80 for line in movetext_lines(text))
    assert "1... 11-15?? $140 ({Or quietly:} 1... 9-13 2. 18-14) 2. 18x11" in " ".join(
        movetext_lines(text)
    )
    again = read_game(text)
    assert again == game
    assert again.moves[0].comment == ("White attacks. " * 12).strip()
    assert again.tags["Result"] == "1-1"


# -- property: random games round-trip ---------------------------------------------------------
def random_line(board: Board, rnd: random.Random, plies: int, depth: int) -> list[Node]:
    nodes: list[Node] = []
    for _ in range(plies):
        legal = board.legal_moves
        if not legal:
            break
        move = rnd.choice(legal)
        node = Node(move_text=board.move_text(move))
        if rnd.random() < 0.15:
            node.comment = rnd.choice(["good", "a quiet move", "Braní je povinné.", "why not?"])
        if rnd.random() < 0.1:
            node.nags = [rnd.randint(1, 20)]
        if depth < 3 and len(legal) > 1 and rnd.random() < 0.15:
            alt = rnd.choice([m for m in legal if m != move])
            sub = board.copy()
            first = Node(move_text=sub.move_text(alt))
            sub.push(alt)
            node.variations.append([first, *random_line(sub, rnd, rnd.randint(0, 4), depth + 1)])
        board.push(move)
        nodes.append(node)
    return nodes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(["czech", "international", "brazilian"]),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 60),
    set_up=st.booleans(),
)
def test_random_games_round_trip(variant: str, seed: int, plies: int, set_up: bool) -> None:
    rnd = random.Random(seed)
    board = Board(variant)
    fen = None
    if set_up:  # start from a position reached by random play, either side to move
        for _ in range(rnd.randint(1, 20)):
            if not board.legal_moves:
                break
            board.push(rnd.choice(board.legal_moves))
        fen = board.fen()
        board = Board(variant, fen)
    game = Game(variant=board.variant, fen=fen, tags={"Event": f"random {seed}"})
    game.moves = random_line(board, rnd, plies, 0)
    game.result = rnd.choice(["2-0", "0-2", "1-1", "0-0", "*"])
    text = game.pdn()
    again = read_game(text)
    assert again == game
    assert again.end_board() == board
    assert [n.move for n in again.moves] == board.move_stack
    assert all(len(line) <= 80 for line in movetext_lines(text))


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(["czech", "international", "brazilian"]), seed=st.integers(0, 10**9))
def test_from_board_round_trips_random_play(variant: str, seed: int) -> None:
    rnd = random.Random(seed)
    board = Board(variant)
    for _ in range(rnd.randint(0, 80)):
        if not board.legal_moves or board.outcome() is not None:
            break
        board.push(rnd.choice(board.legal_moves))
    game = Game.from_board(board)
    again = read_game(game.pdn())
    assert again == game
    assert [n.move for n in again.moves] == board.move_stack
    assert again.end_board() == board


# -- tags: one reader and one writer ------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["plain", 'a "quoted" title', "back\\slash\\\\twice", '{"kind":"unique","reason":"a \\"b\\""}'],
)
def test_tag_values_round_trip_through_tag_line_and_read_tags(value: str) -> None:
    text = "\n".join([tag_line("FEN", "W:W21:B5"), tag_line("Title", value), "", "*", ""])
    assert read_tags(text) == [{"FEN": "W:W21:B5", "Title": value}]


def test_a_tag_value_is_written_on_one_line() -> None:
    assert tag_line("Description", "two\nlines  here") == '[Description "two lines here"]'


def test_read_tags_reads_the_tags_read_game_reads() -> None:
    text = (DATA / "czech_games.pdn").read_text(encoding="utf-8")
    games = [g for g in read_games(text) if isinstance(g, Game)]
    assert read_tags(text) == [g.tags for g in games]


def test_a_puzzle_entry_carries_extra_tags_such_as_a_proof() -> None:
    proof = json.dumps({"kind": "unique", "proof": [], "reason": 'say "why"'})
    puzzle = MinedPuzzle("czech", "W:W28,K29:B4,11,18,24", "capture", 1, ("29x15x8",), (), 0, "")
    (tags,) = read_tags(puzzle_pdn(puzzle, {"Title": "King first", "Proof": proof}))
    assert tags["Title"] == "King first"
    assert json.loads(tags["Proof"]) == json.loads(proof)
    assert tags["FEN"] == puzzle.fen and tags["Goal"] == "capture"
