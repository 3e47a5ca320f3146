"""Czech and English: catalogues complete and compiled, Czech for Czech browsers, a switcher."""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db
LOCALE = Path(settings.BASE_DIR) / "locale"


def read_po(path: Path) -> dict[str, tuple[str, bool]]:
    """msgid -> (msgstr, fuzzy) for a .po file (plural forms: the first form)."""
    entries: dict[str, tuple[str, bool]] = {}
    msgid = msgstr = context = None
    fuzzy = False
    field = None

    def flush():
        if msgid:
            key = f"{context}\x04{msgid}" if context else msgid
            entries[key] = (msgstr or "", fuzzy)

    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line:
            flush()
            msgid = msgstr = context = None
            fuzzy = False
            field = None
        elif line.startswith("#,") and "fuzzy" in line:
            fuzzy = True
        elif line.startswith("#"):
            continue
        elif line.startswith("msgctxt "):
            context, field = eval(line[8:]), "ctx"  # noqa: S307
        elif line.startswith("msgid "):
            msgid, field = eval(line[6:]), "id"  # noqa: S307 - a quoted C string from our own catalogue
        elif line.startswith("msgid_plural "):
            field = "plural"
        elif line.startswith(("msgstr ", "msgstr[0] ")):
            msgstr, field = eval(line.split(" ", 1)[1]), "str"  # noqa: S307
        elif line.startswith("msgstr["):
            field = "other"
        elif line.startswith('"'):
            if field == "id":
                msgid += eval(line)  # noqa: S307
            elif field == "str":
                msgstr += eval(line)  # noqa: S307
    return entries


def test_czech_catalogue_translates_every_string_and_the_compiled_file_matches():
    entries = read_po(LOCALE / "cs/LC_MESSAGES/django.po")
    assert len(entries) > 100
    untranslated = [k for k, (v, fuzzy) in entries.items() if not v or fuzzy]
    assert untranslated == []
    with open(LOCALE / "cs/LC_MESSAGES/django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)

    def lookup(key: str) -> str:
        if "\x04" in key:
            return compiled.pgettext(*key.split("\x04"))
        return compiled.gettext(key)

    stale = [k for k, (v, _f) in entries.items() if lookup(k) != v]
    assert stale == [], "run `make messages` and commit locale/"


#: every catalogue of the site: the project's (``LOCALE_PATHS``), which holds every app's texts
CATALOGUES = sorted(
    p.relative_to(settings.BASE_DIR).as_posix()
    for p in [LOCALE, *Path(settings.BASE_DIR).glob("*/locale")]
    if p.is_dir() and p.parent.name not in (".venv", "staticfiles")
)


def test_the_site_has_one_catalogue_with_every_apps_texts():
    """One catalogue (``locale/``): an app's own would be overruled by it for every msgid the
    two share, so that one msgid could read two ways depending on where it was looked up."""
    assert CATALOGUES == ["locale"]
    assert settings.LOCALE_PATHS == [LOCALE]
    entries = read_po(LOCALE / "cs/LC_MESSAGES/django.po")
    for app_text, czech in (
        ("Drill: puzzles with this shot", "Procvičování: úlohy s tímto úderem"),  # puzzles
        ("Choose a piece to place.", "Vyber kámen, který chceš postavit."),  # classroom
        ("That is too long to be an answer.", "Na odpověď je to příliš dlouhé."),  # core.exercise
        ("Choose one of your sets.", "Vyber jednu ze svých sbírek úloh."),  # review
    ):
        assert entries[app_text] == (czech, False), app_text


@pytest.mark.parametrize("catalogue", CATALOGUES)
def test_every_czech_catalogue_translates_every_string(catalogue):
    entries = read_po(Path(settings.BASE_DIR) / catalogue / "cs/LC_MESSAGES/django.po")
    assert entries
    missing = [k for k, (v, fuzzy) in entries.items() if not v or fuzzy]
    assert missing == [], f"{catalogue}: untranslated or fuzzy"


@pytest.mark.parametrize("language", ["cs", "en"])
@pytest.mark.parametrize("catalogue", CATALOGUES)
def test_every_compiled_catalogue_is_up_to_date_with_its_po(catalogue, language, tmp_path):
    """The committed .mo holds exactly what compiling the committed .po gives (plural forms and
    contexts included)."""
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (gettext) is not installed")
    folder = Path(settings.BASE_DIR) / catalogue / language / "LC_MESSAGES"
    fresh = tmp_path / "django.mo"
    subprocess.run(
        [msgfmt, "--check-format", "-o", str(fresh), str(folder / "django.po")],
        check=True,
        capture_output=True,
    )

    def catalog(path: Path) -> dict:
        with open(path, "rb") as mo:
            return dict(gettext.GNUTranslations(mo)._catalog)  # type: ignore[attr-defined]

    committed, compiled = catalog(folder / "django.mo"), catalog(fresh)
    stale = sorted(
        str(k) for k in committed.keys() | compiled.keys() if committed.get(k) != compiled.get(k)
    )
    assert stale == [], f"{catalogue}/{language}: run compilemessages and commit the .mo"


def test_english_catalogue_exists_and_is_compiled():
    assert (LOCALE / "en/LC_MESSAGES/django.po").exists()
    assert (LOCALE / "en/LC_MESSAGES/django.mo").exists()


def test_czech_browser_gets_czech(client):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="cs-CZ,cs;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="cs">' in html
    assert "Nauč se hrát dámu" in html


def test_other_browsers_get_english(client):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9").content.decode()
    assert '<html lang="en">' in html
    assert "Learn to play draughts" in html


def test_language_switcher_sets_the_cookie_and_goes_back(client):
    response = client.post("/language", {"language": "cs", "next": "/learn/czech/"})
    assert response.status_code == 302
    assert response["Location"] == "/learn/czech/"
    assert response.cookies["django_language"].value == "cs"
    assert '<html lang="cs">' in client.get("/learn/czech/").content.decode()


def test_language_switcher_refuses_unknown_languages_and_foreign_redirects(client):
    assert client.post("/language", {"language": "xx"}).status_code == 400
    response = client.post("/language", {"language": "en", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_language_switch_is_saved_in_the_profile(client, student):
    from accounts.models import profile_of

    client.force_login(student)
    client.post("/language", {"language": "cs"})
    assert profile_of(student).language == "cs"


def test_czech_move_errors_are_in_czech(client):
    fen = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    client.cookies["django_language"] = "cs"
    response = client.post(
        "/board/czech/move", {"fen": fen, "move": "hello"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "není tah" in response.content.decode()


def test_every_string_of_the_code_is_in_its_catalogue(tmp_path):
    """makemessages run on a copy of the site finds no string the committed catalogues lack (a
    new message that nobody extracted would reach Czech visitors in English)."""
    if shutil.which("xgettext") is None:
        from tests.conftest import service_unavailable

        service_unavailable("xgettext (gettext) is not installed")
    root = Path(settings.BASE_DIR)
    copy = tmp_path / "site"
    skip = shutil.ignore_patterns("__pycache__", "*.mo", "migrations", "static")
    for name in ["dama", "dama_learn", "templates", *{c.split("/")[0] for c in CATALOGUES}]:
        if (root / name).is_dir():
            shutil.copytree(root / name, copy / name, ignore=skip)
    # every app of the site (its templates and Python), not just the ones with a catalogue
    apps = [p.parent.name for p in root.glob("*/apps.py")]
    assert {"exams", "play", "live", "review"} <= set(apps)
    for app in apps:
        if not (copy / app).exists():
            shutil.copytree(root / app, copy / app, ignore=skip)
    shutil.copy(root / "manage.py", copy / "manage.py")
    done = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "cs", "--ignore", "dama/*",
         "--no-obsolete", "--no-location"],
        cwd=copy, capture_output=True, text=True, timeout=300,
        env={**os.environ, "DAMA_VAR_DIR": str(tmp_path / "var"), "PYTHONPATH": str(copy)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    missing = {}
    for catalogue in CATALOGUES:
        committed = read_po(root / catalogue / "cs/LC_MESSAGES/django.po")
        extracted = read_po(copy / catalogue / "cs/LC_MESSAGES/django.po")
        new = sorted(k for k in extracted if k not in committed)
        if new:
            missing[catalogue] = new
    assert missing == {}, "run `make messages`, translate and commit"


#: a blocktranslate's ``with`` argument that formats a date or a time
DATED = re.compile(r'(\w+)=[\w.]+\|(?:date|time)(?::"?\w*"?)?')
BLOCK = re.compile(r"{%\s*blocktranslate\b([^%]*)%}(.*?){%\s*endblocktranslate\s*%}", re.S)


def test_no_date_or_time_ends_a_message_just_before_its_full_stop():
    """An English date or time may end with a full stop of its own ("Dec. 1", "9:08 p.m."):
    a message does not put one right after it ("... again from 9:08 p.m.."), in any template."""
    root = Path(settings.BASE_DIR)
    found = []
    templates = [p for p in root.glob("**/templates/**/*") if p.suffix in (".html", ".txt")]
    assert len(templates) > 50
    for template in templates:
        if ".venv" in template.parts:
            continue
        for args, body in BLOCK.findall(template.read_text("utf-8")):
            for name in DATED.findall(args):
                if re.search(r"{{ ?" + name + r" ?}}\.", body):
                    found.append(f"{template.relative_to(root)}: {body.strip()[:80]}")
    assert found == []


def test_the_czech_menu_says_play_for_games_and_keeps_learning_and_teaching_apart(client):
    """The menu's Play is a game against the computer ("Hrát"), the board's Play button plays the
    move typed ("Táhnout"); Learn and Teach were "Učit se" and "Učit" side by side."""
    client.cookies["django_language"] = "cs"
    html = client.get("/").content.decode()
    nav = re.search(r'<nav class="main-nav"[^>]*>(.*?)</nav>', html, re.S).group(1)
    words = re.findall(r">([^<>]+)</a>", nav)
    assert {"Lekce", "Hrát", "Pro učitele"} <= set(words), words
    assert not {"Táhnout", "Učit se", "Učit"} & set(words), words
    board = html[html.index('class="move-form') :]
    assert re.search(r'<button type="submit"[^>]*>Táhnout</button>', board)


@pytest.mark.parametrize(
    ("context", "english", "czech"),
    [
        ("the section of games against the computer", "Play", "Hrát"),
        ("play the move typed on the board", "Play", "Táhnout"),
        ("play a game's moves one after another", "Play", "Přehrát"),
        ("the lessons section of the site", "Learn", "Lekce"),
        ("the teachers' section of the site", "Teach", "Pro učitele"),
        ("set the pieces up as at the start of a game", "Start position", "Základní postavení"),
        ("the solutions printed after a worksheet's puzzles", "Answers", "Řešení"),
        ("a puzzle not solved", "failed", "nevyřešeno"),
        ("an exam's level", "Level", "Stupeň"),
        ("the name of a class", "name", "název"),
    ],
)
def test_a_word_with_two_meanings_has_a_czech_word_for_each(context, english, czech):
    from django.utils import translation
    from django.utils.translation import gettext, pgettext

    with translation.override("cs"):
        assert pgettext(context, english) == czech
        assert gettext(english) != czech  # the word of its other meaning, or none


def test_the_class_form_asks_for_the_classs_name_not_a_persons(teacher):
    from django.utils import translation

    from classroom.forms import ClassroomForm

    with translation.override("cs"):
        assert str(ClassroomForm()["name"].label) == "Název"
