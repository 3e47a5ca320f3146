from django.db import migrations


def position_key(fen, variant):
    """``core.board.position_key`` as it was when this migration was written (frozen here, as a
    migration must not import the site's code): the side to move and the pieces on the board's
    size, the same for the position turned round with the colours swapped. A ``ValueError`` when
    the position is not valid."""
    import hashlib

    import dama

    board = dama.Board.from_fen(fen.strip(), variant)
    text = board.fen(algebraic=False)
    turn, *sides = text.split(":")
    squares = board.geo.squares
    pieces = {side[:1]: side[1:] for side in sides}

    def turned(listed):
        names = [name for name in listed.split(",") if name]
        return ",".join(
            ("K" if n.startswith("K") else "") + str(squares + 1 - int(n.lstrip("K")))
            for n in names
        )

    other = "{turn}:W{white}:B{black}".format(
        turn="B" if turn == "W" else "W",
        white=turned(pieces.get("B", "")),
        black=turned(pieces.get("W", "")),
    )
    other = dama.Board(variant, other).fen(algebraic=False)
    return hashlib.sha256(f"{squares}|{min(text, other)}".encode()).hexdigest()


def keep_reserved(apps, schema_editor):
    """A puzzle reserved before stays kept for the exams (an exam may have asked it), also one
    outside today's share, and its position sealed; then the reservations go: the puzzle says
    it itself (``Puzzle.for_exams``)."""
    ReservedPuzzle = apps.get_model("exams", "ReservedPuzzle")
    Puzzle = apps.get_model("puzzles", "Puzzle")
    SealedPosition = apps.get_model("core", "SealedPosition")
    ids = list(ReservedPuzzle.objects.values_list("puzzle_id", flat=True))
    seals = []
    for start in range(0, len(ids), 500):
        rows = Puzzle.objects.filter(pk__in=ids[start : start + 500])
        rows.update(for_exams=True)
        for pk, variant, fen in rows.values_list("pk", "variant", "fen"):
            try:
                seals.append(SealedPosition(key=position_key(fen, variant), label=f"puzzle:{pk}"))
            except ValueError:  # a position that is not valid: not sealed
                pass
    SealedPosition.objects.bulk_create(seals, batch_size=500, ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('exams', '0002_certificate_pdfs_and_prints'),
        ('puzzles', '0011_puzzles_kept_for_exams'),
        ('core', '0002_sealed_positions'),
    ]

    operations = [
        migrations.RunPython(keep_reserved, migrations.RunPython.noop),
        migrations.DeleteModel(
            name='ReservedPuzzle',
        ),
    ]
