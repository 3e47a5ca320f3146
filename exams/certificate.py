"""Certificates as PDF, drawn with ReportLab (pure Python wheels: no system package needed).

One A4 landscape page per certificate: the player's name, the variant and level, the date, a
diagram of the variant's starting position drawn with shapes, the verification code and a QR
code (``segno``'s matrix drawn as squares) of the public address ``/certificates/<code>/``.
The text is set in DejaVu Sans (shipped in ``exams/fonts/`` with its licence), which has every
Czech letter and every letter a name may have (``accounts.names``: Latin, Greek, Cyrillic);
ReportLab's own fonts lack some (ř, ě, ů). A long name is set smaller, to end before the board.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urljoin

import segno
from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from core.variants import get_variant

from . import engine
from .levels import text

#: the drawing's version: raise it when the page changes, so that kept PDFs are drawn again
LAYOUT = 2
FONTS = Path(__file__).resolve().parent / "fonts"
REGULAR, BOLD = "DejaVuSans", "DejaVuSans-Bold"
LIGHT = colors.HexColor("#f0d9b5")
DARK = colors.HexColor("#8b5a2b")
INK = colors.HexColor("#1f2933")


def _fonts() -> None:
    if REGULAR not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(REGULAR, str(FONTS / "DejaVuSans.ttf")))
        pdfmetrics.registerFont(TTFont(BOLD, str(FONTS / "DejaVuSans-Bold.ttf")))


def _board(canvas: Canvas, variant: str, x: float, y: float, side: float) -> None:
    """The variant's starting position, drawn once per document as a form (an XObject every
    page reuses: a class's certificates repeat it)."""
    name = f"board-{variant}"
    if name not in getattr(canvas, "_exam_forms", set()):
        canvas.beginForm(name, lowerx=0, lowery=0, upperx=side, uppery=side)
        _draw_board(canvas, variant, side)
        canvas.endForm()
        canvas._exam_forms = {*getattr(canvas, "_exam_forms", set()), name}
    canvas.saveState()
    canvas.translate(x, y)
    canvas.doForm(name)
    canvas.restoreState()


def _draw_board(canvas: Canvas, variant: str, side: float) -> None:
    size, pieces = engine.diagram_squares(variant)
    cell = side / size
    for row in range(size):
        for col in range(size):
            canvas.setFillColor(DARK if (row + col) % 2 else LIGHT)
            canvas.rect(col * cell, (size - 1 - row) * cell, cell, cell, stroke=0, fill=1)
    canvas.setStrokeColor(INK)
    canvas.rect(0, 0, side, side, stroke=1, fill=0)
    for piece in pieces:
        cx = (piece.col + 0.5) * cell
        cy = (size - 1 - piece.row + 0.5) * cell
        canvas.setFillColor(colors.white if piece.white else colors.black)
        canvas.setStrokeColor(colors.black if piece.white else colors.white)
        canvas.circle(cx, cy, cell * 0.38, stroke=1, fill=1)
        if piece.king:
            canvas.circle(cx, cy, cell * 0.2, stroke=1, fill=0)


def _qr(canvas: Canvas, data: str, x: float, y: float, side: float) -> None:
    """The QR code of ``data``: each row's runs of dark modules as one rectangle of one path.
    The mask is fixed (any of the eight is valid; segno's search for the best one costs more
    than the rest of the page)."""
    qr = segno.make(data, error="m", mask=2)
    matrix = [list(row) for row in qr.matrix]
    n = len(matrix) + 8  # the quiet zone
    cell = side / n
    canvas.setFillColor(colors.white)
    canvas.rect(x, y, side, side, stroke=0, fill=1)
    canvas.setFillColor(colors.black)
    path = canvas.beginPath()
    for r, row in enumerate(matrix):
        c = 0
        while c < len(row):
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                path.rect(
                    x + (start + 4) * cell, y + side - (r + 5) * cell, (c - start) * cell, cell
                )
            else:
                c += 1
    canvas.drawPath(path, stroke=0, fill=1)


def _page(canvas: Canvas, cert, verify_url: str) -> None:
    width, height = landscape(A4)
    canvas.setStrokeColor(DARK)
    canvas.setLineWidth(3)
    canvas.rect(12 * mm, 12 * mm, width - 24 * mm, height - 24 * mm)
    canvas.setFillColor(INK)
    info = cert.level_info
    variant = get_variant(cert.variant)
    left = 24 * mm
    canvas.setFont(BOLD, 30)
    canvas.drawString(left, height - 42 * mm, _("Certificate"))
    canvas.setFont(REGULAR, 13)
    canvas.drawString(left, height - 54 * mm, _("dama_learn certifies that"))
    side = 78 * mm
    canvas.setFont(BOLD, name_size(cert.name, width - side - 24 * mm - 8 * mm - left))
    canvas.drawString(left, height - 70 * mm, cert.name)
    canvas.setFont(REGULAR, 14)
    canvas.drawString(
        left,
        height - 84 * mm,
        _("passed the exam of level %(level)s") % {"level": info.title() if info else cert.level},
    )
    canvas.drawString(left, height - 94 * mm, _("in %(variant)s") % {"variant": variant.title})
    if info is not None:
        canvas.setFont(REGULAR, 10)
        _wrapped(canvas, text(info.covers), left, height - 106 * mm, 150 * mm)
    canvas.setFont(REGULAR, 13)
    canvas.drawString(
        left,
        40 * mm,
        _("Date: %(date)s") % {"date": date_format(cert.issued_on, "DATE_FORMAT")},
    )
    canvas.drawString(left, 31 * mm, _("Verification code: %(code)s") % {"code": cert.code})
    canvas.setFont(REGULAR, 9)
    canvas.drawString(left, 23 * mm, verify_url)
    _board(canvas, cert.variant, width - side - 24 * mm, height - side - 24 * mm, side)
    _qr(canvas, verify_url, width - 60 * mm, 22 * mm, 36 * mm)


def name_size(name: str, width: float, largest: float = 26) -> float:
    """The font size (points) that sets ``name`` in the bold face within ``width`` points, at
    most ``largest`` (a name has at most 60 characters: about 10 points at the smallest).

    >>> name_size("Anna Nováková", 400), name_size("Anna Nováková " * 4, 400) < 26
    (26, True)
    """
    _fonts()
    return min(largest, width / (pdfmetrics.stringWidth(name, BOLD, 1) or 1))


def _wrapped(canvas: Canvas, value: str, x: float, y: float, width: float) -> None:
    words, line = value.split(), ""
    for word in words:
        trial = f"{line} {word}".strip()
        if pdfmetrics.stringWidth(trial, REGULAR, 10) > width and line:
            canvas.drawString(x, y, line)
            y -= 5 * mm
            line = word
        else:
            line = trial
    if line:
        canvas.drawString(x, y, line)


def absolute_from(base_url: str) -> Callable[[str], str]:
    """``absolute_url(path)`` for :func:`render` outside a request: ``path`` under ``base_url``
    (the site's address the teacher used, e.g. ``https://dama.example/``).

    >>> absolute_from("https://dama.example/")("/certificates/ABC/")
    'https://dama.example/certificates/ABC/'
    """
    return lambda path: urljoin(base_url, path)


def render(certificates: Iterable, absolute_url, language: str | None = None) -> bytes:
    """One PDF with a page per certificate; ``absolute_url(path)`` makes the QR code's address."""
    _fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=landscape(A4), invariant=1)
    canvas.setTitle(_("Certificates"))
    canvas.setAuthor("dama_learn")
    with translation.override(language or translation.get_language()):
        for cert in certificates:
            _page(canvas, cert, absolute_url(cert.get_absolute_url()))
            canvas.showPage()
    canvas.save()
    return buffer.getvalue()
