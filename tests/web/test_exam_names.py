"""The name a certificate prints (issue 45): the player gives it (the profile's
``certificate_name``), asked before a first real exam starts; never the user name or the e-mail;
a certificate keeps the name it was issued with; the PDF prints every letter a name may have."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from reportlab.pdfbase.ttfonts import TTFontFile

from accounts import names
from accounts.models import profile_of
from classroom.models import Classroom
from exams import certificate
from exams.models import Certificate, ClassExam, Exam, NameNeeded

from .test_exams import answer_right, give_name, pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def nameless(django_user_model):
    """A player who signed up with a user name and an e-mail, and gave no name yet."""
    return django_user_model.objects.create_user(
        "examflow94519", "examflow94519@example.com", "a-long-pw-42"
    )


def pass_level_1(user) -> Exam:
    exam = Exam.start(user, "czech", 1, "real")
    while not exam.is_finished:
        answer_right(exam)
    assert exam.passed
    return exam


def test_a_real_exam_asks_for_the_name_first_and_comes_back_to_the_ladder(client, nameless):
    client.force_login(nameless)
    ladder = reverse("exams:ladder", args=["czech"])
    page = client.get(ladder).content.decode()
    assert 'data-testid="ask-certificate-name"' in page and 'name="certificate_name"' in page
    start = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "real"})
    assert start.status_code == 302
    assert start.url == f"{reverse('certificate_name')}?next=%2Fexams%2Fczech%2F"
    assert not Exam.objects.filter(user=nameless).exists()
    with pytest.raises(NameNeeded):
        Exam.start(nameless, "czech", 1, "real")
    # a practice exam needs no name
    practice = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "practice"})
    assert practice.status_code == 302 and Exam.objects.filter(kind="practice").count() == 1
    # the ladder's form, then the exam starts
    saved = client.post(
        reverse("certificate_name"), {"certificate_name": "Eva Nová", "next": ladder}
    )
    assert saved.status_code == 302 and saved.url == ladder
    assert 'data-testid="ask-certificate-name"' not in client.get(ladder).content.decode()
    started = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "real"})
    exam = Exam.objects.get(user=nameless, kind="real")
    assert started.url == exam.get_absolute_url()


def test_a_class_exam_asks_a_student_without_a_name_and_not_one_the_teacher_named(
    client, teacher, nameless
):
    room = Classroom.objects.create(name="Kroužek", variant="czech", created_by=teacher)
    room.teachers.add(teacher)
    room.add_student(nameless)
    named = room.create_student_accounts(["Jiřina Kořínková"])[0][0]
    class_exam = ClassExam.objects.create(
        classroom=room, variant="czech", level=1, starts_at=timezone.now(), created_by=teacher
    )
    url = reverse("exams:class_exam_start", args=[class_exam.pk])
    client.force_login(nameless)
    asked = client.post(url)
    assert asked.status_code == 302 and asked.url.startswith(reverse("certificate_name"))
    assert "next=%2Fteach%2Fmy%2F" in asked.url
    assert not Exam.objects.filter(user=nameless).exists()
    client.force_login(named)
    started = client.post(url)
    sitting = Exam.objects.get(user=named, class_exam=class_exam)
    assert started.url == sitting.get_absolute_url()
    while not sitting.is_finished:
        answer_right(sitting)
    assert sitting.certificate.name == "Jiřina Kořínková"


def test_the_certificate_and_its_check_show_the_given_name_never_the_user_name_or_e_mail(
    client, nameless
):
    give_name(nameless, "Žofie Čermáková")
    exam = pass_level_1(nameless)
    cert = exam.certificate
    assert cert.name == "Žofie Čermáková"
    client.force_login(nameless)
    _pages, text = pdf_text(client.get(reverse("exams:certificate_pdf", args=[cert.code])).content)
    assert "Žofie Čermáková" in text
    assert "examflow" not in text and "@" not in text
    client.logout()
    html = client.get(cert.get_absolute_url()).content.decode()
    assert 'data-testid="verified-name">Žofie Čermáková<' in html
    assert "examflow" not in html and "example.com" not in html


def test_a_certificate_keeps_the_name_it_was_issued_with(client, nameless):
    give_name(nameless, "Eva Nová")
    cert = pass_level_1(nameless).certificate
    give_name(nameless, "Eva Stará")
    cert.refresh_from_db()
    assert cert.name == "Eva Nová"
    assert "Eva Nová" in client.get(cert.get_absolute_url()).content.decode()
    assert Certificate.issue(cert.exam).name == "Eva Nová"


@pytest.mark.parametrize(
    "name",
    [
        "Μαρία Παπαδοπούλου",
        "Дмитрий Шостакович",
        "Nguyễn Thị Minh Khai",
        "Łukasz Żółć-Ćwierć",
        "Seán Ó Ríordáin",
        "Maria da Conceição Aparecida dos Santos Oliveira de Albuquerque",
    ],
)
def test_the_certificate_prints_names_in_other_alphabets_and_long_ones(nameless, name):
    give_name(nameless, name[: names.MAX_LENGTH])
    cert = pass_level_1(nameless).certificate
    body = certificate.render([cert], certificate.absolute_from("https://dama.example/"), "en")
    _pages, text = pdf_text(body)
    assert cert.name in text.replace("\n", " ")


def test_every_letter_a_name_may_have_is_in_the_certificates_fonts():
    fonts = Path(certificate.FONTS)
    tables = [
        set(TTFontFile(str(fonts / f"{face}.ttf")).charToGlyph)
        for face in (certificate.REGULAR, certificate.BOLD)
    ]
    letters = [
        code
        for first, last in names.SCRIPTS
        for code in range(first, last + 1)
        if names.is_name_letter(chr(code))
    ]
    assert len(letters) > 1000
    missing = [hex(code) for code in letters if not all(code in table for table in tables)]
    assert missing == []


def test_the_longest_name_fits_before_the_board():
    longest = "W" * names.MAX_LENGTH
    width = 300  # points
    size = certificate.name_size(longest, width)
    from reportlab.pdfbase import pdfmetrics

    assert pdfmetrics.stringWidth(longest, certificate.BOLD, size) <= width + 0.01
    assert certificate.name_size("Eva Nová", width) == 26


def test_the_names_rules_and_the_certificates_examples_run():
    assert doctest.testmod(names).failed == 0
    assert doctest.testmod(certificate).failed == 0


def test_the_printed_name_is_the_given_one_else_the_one_a_teacher_gave(teacher):
    room = Classroom.objects.create(name="Kroužek", variant="czech", created_by=teacher)
    child = room.create_student_accounts(["Ondřej Šíma"])[0][0]
    assert profile_of(child).printed_name == "Ondřej Šíma"
    give_name(child, "Ondřej Šíma ml.")
    assert profile_of(child).printed_name == "Ondřej Šíma ml."
