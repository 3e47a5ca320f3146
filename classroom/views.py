"""Teachers' classes, puzzle sets (corpus search, board editor, PDN import, instant proofs),
assignments and progress; students' "My classes" and the join link.

Access: ``_class_for`` and ``_set_for`` decide every request. Someone who may not know that a
class or set exists gets a 404; a student of a class, or a co-teacher, asking for what only the
teachers or the set's owner may do gets a 403; anonymous visitors go to the login page.
"""

from __future__ import annotations

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Case, Q, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.decorators import teacher_required
from accounts.models import profile_of
from puzzles.models import Puzzle, Verdict
from puzzles.views import proof_context

from . import engine, progress
from .forms import (
    AssignForm,
    ClassroomForm,
    CorpusSearchForm,
    CoTeacherForm,
    ImportForm,
    JoinForm,
    PuzzleForm,
    PuzzleSetForm,
    StudentAccountsForm,
)
from .models import Assignment, Classroom, PuzzleSet, SetItem

CORPUS_PAGE = 24


# -- access -----------------------------------------------------------------------------------------


def _class_for(request: HttpRequest, pk: int, *, students: bool = False) -> Classroom:
    """The class ``pk`` if the user teaches it (or, with ``students``, attends it)."""
    classroom = get_object_or_404(Classroom, pk=pk)
    user = request.user
    if classroom.is_teacher(user):
        return classroom
    if classroom.is_student(user):
        if students:
            return classroom
        raise PermissionDenied("teachers of the class only")
    raise Http404(_("No such class."))


def _set_for(request: HttpRequest, pk: int, *, edit: bool = True) -> PuzzleSet:
    """The set ``pk`` if the user owns it (or, without ``edit``, teaches a class it is assigned to)."""
    puzzle_set = get_object_or_404(PuzzleSet, pk=pk)
    user = request.user
    if puzzle_set.can_edit(user):
        return puzzle_set
    if puzzle_set.can_view(user):
        if not edit:
            return puzzle_set
        raise PermissionDenied("the set's owner only")
    raise Http404(_("No such set."))


def trainer_url(puzzle: Puzzle, set_id: int) -> str:
    """The trainer's page for ``puzzle`` (``/puzzles/<variant>/<id>/``), recording attempts
    against the set."""
    try:
        url = reverse("puzzles:solve", args=[puzzle.variant, puzzle.pk])
    except NoReverseMatch:  # before the trainer (issue 6): the same address, by hand
        url = reverse("puzzles:trainer", args=[puzzle.variant]) + f"{puzzle.pk}/"
    return f"{url}?set={set_id}"


# -- dashboards -------------------------------------------------------------------------------------


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Teachers see their classes and sets here; anyone else learns how to become a teacher (and
    finds the classes they attend)."""
    profile = profile_of(request.user)
    attended = Classroom.objects.attended_by(request.user)
    if not profile.is_teacher:
        return render(
            request, "classroom/not_teacher.html", {"profile": profile, "attended": attended}
        )
    classes = Classroom.objects.taught_by(request.user).prefetch_related("teachers")
    sets = PuzzleSet.objects.filter(owner=request.user).prefetch_related("puzzles")
    return render(
        request,
        "classroom/dashboard.html",
        {"profile": profile, "classes": classes, "sets": sets, "attended": attended},
    )


@login_required
def my_classes(request: HttpRequest) -> HttpResponse:
    """A student's classes and what is assigned in them."""
    classes = Classroom.objects.attended_by(request.user).prefetch_related("teachers")
    rows = []
    for classroom in classes:
        assignments = []
        for assignment in classroom.assignments.select_related("puzzle_set"):
            cells = progress.student_cells(assignment, request.user)
            solved = sum(1 for _p, c in cells if c.status == progress.SOLVED)
            assignments.append((assignment, solved, len(cells)))
        rows.append((classroom, assignments))
    return render(request, "classroom/my_classes.html", {"rows": rows, "join_form": JoinForm()})


# -- joining ----------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def join_with_code(request: HttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_bound and form.is_valid():
        return redirect("classroom:join", code=form.cleaned_data["code"])
    return render(
        request, "classroom/join_form.html", {"form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    """The join link (and its QR code): a logged-in student joins with one click; a visitor is
    asked to sign up or log in first."""
    classroom = Classroom.objects.filter(join_code=code.upper(), joining_open=True).first()
    if classroom is None:
        raise Http404(_("No class takes students with this code."))
    user = request.user
    if request.method == "POST":
        if not user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        if classroom.is_teacher(user):
            messages.info(request, _("You teach this class."))
        else:
            classroom.add_student(user)
            messages.success(request, _("You are in the class %(name)s.") % {"name": classroom})
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/join.html",
        {
            "classroom": classroom,
            "already": classroom.is_student(user) or classroom.is_teacher(user),
        },
    )


# -- classes ----------------------------------------------------------------------------------------


@teacher_required
@require_http_methods(["GET", "POST"])
def class_create(request: HttpRequest) -> HttpResponse:
    form = ClassroomForm(
        request.POST or None, initial={"variant": profile_of(request.user).preferred_variant}
    )
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            classroom = form.save(commit=False)
            classroom.created_by = request.user
            classroom.save()
            classroom.teachers.add(request.user)
        messages.success(request, _("The class %(name)s is ready.") % {"name": classroom})
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/class_form.html",
        {"form": form},
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def class_edit(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    form = ClassroomForm(request.POST or None, instance=classroom)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("The class is saved."))
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/class_form.html",
        {"form": form, "classroom": classroom},
        status=400 if form.errors else 200,
    )


def join_qr(request: HttpRequest, classroom: Classroom) -> str:
    """The join link as an inline SVG QR code."""
    url = request.build_absolute_uri(classroom.join_url())
    return segno.make(url, error="m").svg_inline(scale=5, dark="#1f2328", omitsize=True)


@login_required
def class_detail(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk, students=True)
    if not classroom.is_teacher(request.user):
        assignments = [
            (a, progress.student_cells(a, request.user))
            for a in classroom.assignments.select_related("puzzle_set")
        ]
        return render(
            request,
            "classroom/class_student.html",
            {"classroom": classroom, "assignments": assignments},
        )
    memberships = classroom.memberships.select_related("user").order_by(
        "user__first_name", "user__username"
    )
    return render(
        request,
        "classroom/class_detail.html",
        {
            "classroom": classroom,
            "memberships": memberships,
            "teachers": classroom.teachers.order_by("username"),
            "assignments": classroom.assignments.select_related("puzzle_set", "assigned_by"),
            "join_link": request.build_absolute_uri(classroom.join_url()),
            "qr": join_qr(request, classroom),
            "co_teacher_form": CoTeacherForm(classroom=classroom),
            "my_sets": PuzzleSet.objects.filter(owner=request.user),
        },
    )


@login_required
@require_POST
def class_new_code(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    classroom.new_code()
    messages.success(request, _("The class has a new join code; the old one no longer works."))
    return redirect(classroom.get_absolute_url())


@login_required
@require_POST
def co_teacher_add(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    form = CoTeacherForm(request.POST, classroom=classroom)
    if form.is_valid():
        classroom.teachers.add(form.cleaned_data["username"])
        messages.success(
            request,
            _("%(name)s teaches this class too now.") % {"name": form.cleaned_data["username"]},
        )
    else:
        for error in form.errors.get("username", []):
            messages.error(request, error)
    return redirect(classroom.get_absolute_url())


@login_required
@require_POST
def co_teacher_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    teacher = get_object_or_404(classroom.teachers, pk=user_id)
    if classroom.teachers.count() <= 1:
        messages.error(request, _("A class needs at least one teacher."))
    else:
        classroom.teachers.remove(teacher)
        messages.success(request, _("%(name)s no longer teaches this class.") % {"name": teacher})
    if not classroom.is_teacher(request.user):
        return redirect("classroom:dashboard")
    return redirect(classroom.get_absolute_url())


@login_required
@require_http_methods(["GET", "POST"])
def students_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Accounts for children without e-mail; the answer is the page of login cards to print (the
    passwords are shown this once and never stored in clear)."""
    classroom = _class_for(request, pk)
    form = StudentAccountsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        made = classroom.create_student_accounts(form.cleaned_data["names"], request.user)
        return render(
            request,
            "classroom/cards.html",
            {
                "classroom": classroom,
                "cards": made,
                "login_url": request.build_absolute_uri(reverse("login")),
            },
        )
    return render(
        request,
        "classroom/students_form.html",
        {"classroom": classroom, "form": form},
        status=400 if form.errors else 200,
    )


def _student_of(classroom: Classroom, user_id: int):
    membership = None
    if user_id < 2**63:  # (a foreign key lookup has no range check: SQLite would overflow)
        membership = classroom.memberships.select_related("user").filter(user_id=user_id).first()
    if membership is None:
        raise Http404(_("No such student in this class."))
    return membership


@login_required
@require_POST
def student_password(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    membership = _student_of(classroom, user_id)
    if not membership.managed:
        raise PermissionDenied("only accounts the class made")
    password = classroom.reset_password(membership.user)
    return render(
        request,
        "classroom/cards.html",
        {
            "classroom": classroom,
            "cards": [(membership.user, password)],
            "login_url": request.build_absolute_uri(reverse("login")),
            "reset": True,
        },
    )


@login_required
@require_POST
def student_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    membership = _student_of(classroom, user_id)
    membership.delete()
    messages.success(
        request,
        _("%(name)s left the class.")
        % {"name": membership.user.get_full_name() or membership.user},
    )
    return redirect(classroom.get_absolute_url())


@login_required
def student_detail(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    membership = _student_of(classroom, user_id)
    student = membership.user
    set_ids = list(classroom.assignments.values_list("puzzle_set_id", flat=True))
    return render(
        request,
        "classroom/student_detail.html",
        {
            "classroom": classroom,
            "membership": membership,
            "student": student,
            "lessons": progress.lesson_progress(student),
            "ratings": progress.ratings(student),
            "attempts": progress.attempt_log(student, set_ids),
            "assignments": [
                (a, progress.student_cells(a, student))
                for a in classroom.assignments.select_related("puzzle_set")
            ],
            "trainer_ready": progress.attempt_model() is not None,
        },
    )


@login_required
def class_progress(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    columns, rows = progress.class_table(classroom)
    return render(
        request,
        "classroom/progress.html",
        {
            "classroom": classroom,
            "columns": columns,
            "rows": rows,
            "trainer_ready": progress.attempt_model() is not None,
        },
    )


@login_required
def class_progress_csv(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    response = HttpResponse(progress.table_csv(classroom), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="class-{classroom.pk}-progress.csv"'
    return response


@login_required
def assignment_detail(request: HttpRequest, pk: int, assignment_id: int) -> HttpResponse:
    """An assigned set as students see it (positions and goals, never solutions), with how the
    student did on each puzzle; teachers see the same, with a link to the results."""
    classroom = _class_for(request, pk, students=True)
    assignment = get_object_or_404(
        Assignment.objects.select_related("puzzle_set"), pk=assignment_id, classroom=classroom
    )
    cells = progress.student_cells(assignment, request.user)
    puzzles = [
        {
            "puzzle": puzzle,
            "cell": cell,
            "diagram": engine.diagram(puzzle.variant, puzzle.fen),
            "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
            "url": trainer_url(puzzle, assignment.puzzle_set_id),
        }
        for puzzle, cell in cells
    ]
    return render(
        request,
        "classroom/assignment.html",
        {
            "classroom": classroom,
            "assignment": assignment,
            "puzzles": puzzles,
            "is_teacher": classroom.is_teacher(request.user),
        },
    )


@login_required
@require_POST
def assignment_remove(request: HttpRequest, pk: int, assignment_id: int) -> HttpResponse:
    classroom = _class_for(request, pk)
    assignment = get_object_or_404(Assignment, pk=assignment_id, classroom=classroom)
    assignment.delete()
    messages.success(request, _("The set is no longer assigned to this class."))
    return redirect(classroom.get_absolute_url())


# -- puzzle sets ------------------------------------------------------------------------------------


@teacher_required
@require_http_methods(["GET", "POST"])
def set_create(request: HttpRequest) -> HttpResponse:
    form = PuzzleSetForm(
        request.POST or None, initial={"variant": profile_of(request.user).preferred_variant}
    )
    if request.method == "POST" and form.is_valid():
        puzzle_set = form.save(commit=False)
        puzzle_set.owner = request.user
        puzzle_set.save()
        messages.success(
            request, _("The set %(title)s is ready: add puzzles.") % {"title": puzzle_set}
        )
        return redirect(puzzle_set.get_absolute_url())
    return render(
        request, "classroom/set_form.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
@require_http_methods(["GET", "POST"])
def set_edit(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk)
    form = PuzzleSetForm(request.POST or None, instance=puzzle_set)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("The set is saved."))
        return redirect(puzzle_set.get_absolute_url())
    return render(
        request,
        "classroom/set_form.html",
        {"form": form, "puzzle_set": puzzle_set},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def set_delete(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk)
    puzzle_set.delete()
    messages.success(request, _("The set is deleted."))
    return redirect("classroom:dashboard")


def _items_context(puzzle_set: PuzzleSet, user) -> dict:
    items = []
    for item in puzzle_set.items():
        puzzle = item.puzzle
        items.append(
            {
                "item": item,
                "puzzle": puzzle,
                "diagram": engine.diagram(puzzle.variant, puzzle.fen),
                "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
                "mine": puzzle.author_id == user.pk,
            }
        )
    return {
        "puzzle_set": puzzle_set,
        "items": items,
        "can_edit": puzzle_set.can_edit(user),
    }


@login_required
def set_detail(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk, edit=False)
    context = _items_context(puzzle_set, request.user)
    context["assignments"] = puzzle_set.assignments.select_related("classroom")
    context["not_assignable"] = puzzle_set.not_assignable()
    return render(request, "classroom/set_detail.html", context)


@login_required
@require_POST
def item_move(request: HttpRequest, pk: int, item_id: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk)
    item = get_object_or_404(SetItem, pk=item_id, puzzle_set=puzzle_set)
    puzzle_set.move(item, -1 if request.POST.get("direction") == "up" else 1)
    return _items_response(request, puzzle_set)


@login_required
@require_POST
def set_order(request: HttpRequest, pk: int) -> HttpResponse:
    """The order after a drag: the item ids in their new order."""
    puzzle_set = _set_for(request, pk)
    try:
        ids = [int(i) for i in request.POST.getlist("item")]
    except ValueError:
        return HttpResponse(_("The order is not valid."), status=400)
    puzzle_set.reorder(ids)
    return _items_response(request, puzzle_set)


@login_required
@require_POST
def item_remove(request: HttpRequest, pk: int, item_id: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk)
    item = get_object_or_404(SetItem, pk=item_id, puzzle_set=puzzle_set)
    item.delete()
    puzzle_set.reorder([])
    return _items_response(request, puzzle_set)


def _items_response(request: HttpRequest, puzzle_set: PuzzleSet) -> HttpResponse:
    if request.htmx:
        return render(
            request, "classroom/set_detail.html#items", _items_context(puzzle_set, request.user)
        )
    return redirect(puzzle_set.get_absolute_url())


@login_required
@require_http_methods(["GET", "POST"])
def corpus(request: HttpRequest, pk: int) -> HttpResponse:
    """Proven puzzles of the site's pool (the corpus, never another teacher's puzzles) to add to
    the set: search by goal, motif and difficulty."""
    puzzle_set = _set_for(request, pk)
    if request.method == "POST":
        wanted = request.POST.get("puzzle", "")
        puzzle = get_object_or_404(
            Puzzle.objects.proven().public(),
            pk=int(wanted) if wanted.isdigit() and len(wanted) < 18 else 0,
            variant=puzzle_set.variant,
        )
        puzzle_set.add(puzzle)
        if request.htmx:
            return render(request, "classroom/corpus.html#added", {"puzzle": puzzle})
        messages.success(request, _("Puzzle #%(id)s is in the set.") % {"id": puzzle.pk})
        return redirect(reverse("classroom:corpus", args=[pk]) + "?" + request.GET.urlencode())
    form = CorpusSearchForm(request.GET or None)
    queryset = (
        Puzzle.objects.proven()
        .public()
        .filter(variant=puzzle_set.variant)
        .exclude(pk__in=puzzle_set.puzzles.values("pk"))
        .order_by("difficulty", "pk")
    )
    if form.is_bound and form.is_valid():
        queryset = form.filter(queryset)
    found = list(queryset[: CORPUS_PAGE * 20])
    results = [
        {
            "puzzle": p,
            "diagram": engine.diagram(p.variant, p.fen),
            "goal": engine.describe_goal(p.goal, engine.white_to_move(p.fen)),
        }
        for p in found[:CORPUS_PAGE]
    ]
    context = {"puzzle_set": puzzle_set, "form": form, "results": results, "count": len(found)}
    if request.htmx:
        return render(request, "classroom/corpus.html#results", context)
    return render(request, "classroom/corpus.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def pdn_import(request: HttpRequest, pk: int) -> HttpResponse:
    """A PDN file with many positions or games: each good entry becomes a draft puzzle of the set
    (proven on the workers); each bad one is listed with its line."""
    puzzle_set = _set_for(request, pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["file"].read(engine.MAX_IMPORT_BYTES + 1)
        try:
            entries = engine.read_pdn(
                data, puzzle_set.variant, form.goal_text(), form.cleaned_data.get("horizon")
            )
        except ValidationError as exc:
            form.add_error("file", exc)
        else:
            report = _import_entries(puzzle_set, entries, request.user)
    return render(
        request,
        "classroom/import.html",
        {"puzzle_set": puzzle_set, "form": form, "report": report},
        status=400 if form.errors else 200,
    )


def _import_entries(puzzle_set: PuzzleSet, entries, user) -> dict:
    report: dict[str, list] = {"created": [], "existing": [], "errors": []}
    for entry in entries:
        if entry.error:
            report["errors"].append((entry.index, entry.line, entry.error))
            continue
        if entry.variant != puzzle_set.variant:
            report["errors"].append(
                (
                    entry.index,
                    entry.line,
                    _("the entry is %(v)s, the set is not") % {"v": entry.variant},
                )
            )
            continue
        try:
            puzzle, created = _save_puzzle(
                puzzle_set,
                user,
                fen=entry.fen,
                goal=entry.goal,
                horizon=entry.horizon,
                solution=entry.solution,
                title=entry.title,
                source=f"PDN import, entry {entry.index}",
            )
        except ValidationError as exc:
            report["errors"].append((entry.index, entry.line, " ".join(exc.messages)))
            continue
        report["created" if created else "existing"].append((entry.index, puzzle))
    return report


def _reusable(user):
    """Puzzles a teacher's new puzzle may be instead of a new row: their own and the site's pool
    (another teacher's puzzles are private to them)."""
    return Puzzle.objects.filter(Q(author=user) | Q(author__isnull=True) | Q(public=True))


def must_copy(puzzle: Puzzle, puzzle_set: PuzzleSet) -> bool:
    """Whether changing ``puzzle`` from ``puzzle_set`` has to leave the row as it is and give the
    set a copy: the puzzle is in another set too, is in the site's pool, or was a daily puzzle
    (a change would silently change those sets, their assignments and the daily archive)."""
    return (
        puzzle.is_public
        or SetItem.objects.filter(puzzle=puzzle).exclude(puzzle_set=puzzle_set).exists()
        or puzzle.daily.exists()
    )


EDITABLE = ("fen", "goal", "horizon", "solution", "title", "description")


def _save_puzzle(
    puzzle_set: PuzzleSet,
    user,
    *,
    fen: str,
    goal: str,
    horizon: int | None,
    solution: list[str],
    title: str = "",
    description: str = "",
    source: str = "",
    puzzle: Puzzle | None = None,
) -> tuple[Puzzle, bool]:
    """Create (or, given ``puzzle``, change) a puzzle of the set and put it in the set. Saving
    enqueues the proof on commit. Returns the puzzle now in the set and whether it is a new row.

    A new position and goal that already is one of the teacher's puzzles or a corpus puzzle is
    reused. A change is copy-on-write: a teacher changes only their own rows, and a puzzle used
    by another set, in the site's pool or ever a daily puzzle is left alone: the teacher gets a
    new row of their own with the change, swapped into this set only."""
    with transaction.atomic():
        candidate = Puzzle(
            variant=puzzle_set.variant,
            fen=fen,
            goal=goal,
            horizon=horizon,
            solution=solution,
            title=title,
            description=description,
            source=source[:200],
            author=user,
        )
        candidate.full_clean(exclude=["author"], validate_constraints=False)
        candidate.fill_horizon()
        same_position = _reusable(user).filter(
            variant=candidate.variant, fen=candidate.fen, goal=candidate.goal
        )
        if puzzle is None:
            # the teacher's own row first, then the corpus, then a puzzle staff made public
            existing = same_position.order_by(
                Case(When(author=user, then=0), When(author__isnull=True, then=1), default=2),
                "pk",
            ).first()
            if existing is not None:
                puzzle_set.add(existing)
                return existing, False
            candidate.save()
            puzzle_set.add(candidate)
            return candidate, True
        if puzzle.author_id != user.pk:
            raise PermissionDenied("a teacher changes only their own puzzles")
        puzzle = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
        if all(getattr(puzzle, name) == getattr(candidate, name) for name in EDITABLE):
            return puzzle, False
        if (puzzle.fen, puzzle.goal) != (candidate.fen, candidate.goal):
            other = same_position.exclude(pk=puzzle.pk).order_by("pk").first()
            if other is not None:
                raise ValidationError(
                    _("This position with this goal is already puzzle #%(id)s.") % {"id": other.pk}
                )
        if must_copy(puzzle, puzzle_set):
            same_ask = (puzzle.fen, puzzle.goal) == (candidate.fen, candidate.goal)
            candidate.source = puzzle.source
            candidate.difficulty = puzzle.difficulty
            candidate.limits = dict(puzzle.limits or {})
            candidate.motifs = list(puzzle.motifs) if same_ask else []
            candidate.full_clean(exclude=["author"], validate_constraints=False)
            candidate.save()
            SetItem.objects.filter(puzzle_set=puzzle_set, puzzle=puzzle).update(puzzle=candidate)
            puzzle_set.save(update_fields=["updated"])
            return candidate, True
        for name in EDITABLE:
            setattr(puzzle, name, getattr(candidate, name))
        puzzle.full_clean(exclude=["author"], validate_constraints=False)
        puzzle.save()
        puzzle_set.save(update_fields=["updated"])
        return puzzle, False


# -- the board editor -------------------------------------------------------------------------------


def _pieces() -> list[tuple[str, str]]:
    """The editor's palette: what a click on a square puts there."""
    return [
        ("w", _("White man")),
        ("W", _("White king")),
        ("b", _("Black man")),
        ("B", _("Black king")),
        ("", _("Empty square")),
    ]


def _editor_context(
    puzzle_set: PuzzleSet, form: PuzzleForm, puzzle: Puzzle | None, *, fen: str, line: list[str]
) -> dict:
    context = {
        "puzzle_set": puzzle_set,
        "form": form,
        "puzzle": puzzle,
        "position": engine.editor_board(fen, puzzle_set.variant),
        "pieces": _pieces(),
    }
    context.update(_line_context(puzzle_set, fen, line))
    if puzzle is not None and puzzle.pk:
        context.update(proof_context(puzzle))  # the proof partials of the puzzles app
    return context


def _line_context(puzzle_set: PuzzleSet, fen: str, line: list[str], **extra) -> dict:
    try:
        board = engine.line_view(puzzle_set.variant, fen, line)
    except ValidationError:
        line = []
        board = engine.line_view(puzzle_set.variant, fen, line)
    return {"puzzle_set": puzzle_set, "line_fen": fen, "line": line, "line_board": board, **extra}


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def puzzle_editor(request: HttpRequest, pk: int, puzzle_id: int | None = None) -> HttpResponse:
    """The board editor: a new puzzle of the set, or one of the set's own puzzles. Saving proves
    it on the workers and this page shows the proof arriving."""
    puzzle_set = _set_for(request, pk)
    puzzle = None
    if puzzle_id is not None:
        puzzle = get_object_or_404(puzzle_set.puzzles, pk=puzzle_id)
        if puzzle.author_id != request.user.pk:
            return render(
                request,
                "classroom/puzzle_readonly.html",
                {"puzzle_set": puzzle_set, "puzzle": puzzle, **proof_context(puzzle)},
            )
    initial = (
        PuzzleForm.initial_for(puzzle)
        if puzzle
        else {"fen": engine.empty_fen(puzzle_set.variant), "goal": "capture"}
    )
    form = PuzzleForm(request.POST or None, initial=initial, variant=puzzle_set.variant)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved, created = _save_puzzle(
                puzzle_set,
                request.user,
                fen=data["fen"],
                goal=data["goal_text"],
                horizon=data.get("horizon"),
                solution=data["solution"],
                title=data.get("title", ""),
                description=data.get("description", ""),
                source=_("set %(title)s") % {"title": puzzle_set.title},
                puzzle=puzzle,
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if puzzle is not None and saved.pk != puzzle.pk:
                messages.info(
                    request,
                    _(
                        "Puzzle #%(old)s is used elsewhere too (another set, the puzzle corpus or "
                        "a daily puzzle), so it stays as it was: your set has your changed copy, "
                        "puzzle #%(id)s."
                    )
                    % {"old": puzzle.pk, "id": saved.pk},
                )
            elif saved.author_id != request.user.pk:
                messages.info(
                    request,
                    _(
                        "This position with this goal is already puzzle #%(id)s; it is in your set now."
                    )
                    % {"id": saved.pk},
                )
            elif saved.is_finished:
                messages.success(request, _("Saved; the proof is unchanged."))
            else:
                messages.success(request, _("Saved; the workers are proving it."))
            return redirect("classroom:puzzle_edit", pk=puzzle_set.pk, puzzle_id=saved.pk)
    fen = request.POST.get("fen") or initial["fen"]
    line = (request.POST.get("solution") or initial.get("solution", "")).split()
    try:
        fen = engine.normalise_fen(fen, puzzle_set.variant)
    except ValidationError:
        fen = engine.start_fen(puzzle_set.variant)
    return render(
        request,
        "classroom/editor.html",
        _editor_context(puzzle_set, form, puzzle, fen=fen, line=line),
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def editor_board(request: HttpRequest, pk: int) -> HttpResponse:
    """One change to the position in the editor: a piece placed or removed, the side to move,
    clear, start position, or a pasted FEN. Answers the editor's partials."""
    puzzle_set = _set_for(request, pk)
    variant = puzzle_set.variant
    action = request.POST.get("action", "place")
    fen = request.POST.get("fen", "")
    error = ""
    try:
        fen = engine.normalise_fen(fen, variant)
    except ValidationError:
        fen = engine.empty_fen(variant)
    before = fen
    try:
        if action == "clear":
            fen = engine.empty_fen(variant, engine.white_to_move(fen))
        elif action == "start":
            fen = engine.start_fen(variant)
        elif action == "load":
            fen = engine.normalise_fen(request.POST.get("fen_text", ""), variant)
        elif action == "turn":
            fen = engine.with_turn(fen, variant, request.POST.get("turn", "W") != "B")
        else:
            try:
                square = int(request.POST.get("square", ""))
            except ValueError:
                raise ValidationError(_("Click a dark square.")) from None
            fen = engine.toggle_piece(fen, variant, square, request.POST.get("piece", "w"))
    except ValidationError as exc:
        error = " ".join(exc.messages)
    try:
        position = engine.editor_board(fen, variant)
    except ValidationError as exc:  # a change that makes the position invalid: keep the old one
        error, fen = " ".join(exc.messages), before
        position = engine.editor_board(fen, variant)
    context = {
        "puzzle_set": puzzle_set,
        "position": position,
        "piece": request.POST.get("piece", "w"),
        "pieces": _pieces(),
        "error": error,
        **_line_context(puzzle_set, fen, []),
    }
    return render(
        request, "classroom/editor.html#position-update", context, status=400 if error else 200
    )


@login_required
@require_POST
def editor_line(request: HttpRequest, pk: int) -> HttpResponse:
    """The solution board: play a move (clicked or typed), take one back, or start again."""
    puzzle_set = _set_for(request, pk)
    variant = puzzle_set.variant
    try:
        fen = engine.normalise_fen(request.POST.get("fen", ""), variant)
    except ValidationError as exc:
        return HttpResponse(escape(" ".join(exc.messages)), status=400)  # htmx swaps it in
    line = request.POST.get("line", "").split()
    action = request.POST.get("action", "play")
    message, is_error = "", False
    if action == "show":  # a line of the proof (the cook, the refutation) to step through
        try:
            engine.replay(variant, fen, line)
        except ValidationError as exc:
            return HttpResponse(escape(" ".join(exc.messages)), status=400)  # htmx swaps it in
        context = _line_context(
            puzzle_set, fen, line, message=request.POST.get("label", "")[:200], showing=True
        )
        return render(request, "classroom/editor.html#solution-update", context)
    try:
        if action == "undo":
            line = line[:-1]
        elif action == "reset":
            line = []
        else:
            line = engine.play_on_line(
                variant,
                fen,
                line,
                route=request.POST.get("route", ""),
                text=request.POST.get("move", ""),
            )
    except ValidationError as exc:
        message, is_error = " ".join(exc.messages), True
    context = _line_context(
        puzzle_set,
        fen,
        line,
        message=message,
        is_error=is_error,
        showing=request.POST.get("showing") == "1",
    )
    return render(
        request, "classroom/editor.html#solution-update", context, status=400 if is_error else 200
    )


@login_required
@require_POST
def editor_solve(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask the engine for the solution (a quick search in the request); its main line goes on
    the solution board. The full proof runs on the workers when the puzzle is saved."""
    puzzle_set = _set_for(request, pk)
    variant = puzzle_set.variant
    form = PuzzleForm(request.POST, variant=variant)
    form.is_valid()
    data = form.cleaned_data
    fen = data.get("fen") or ""
    if "fen" in form.errors or "goal_text" not in data:
        message = " ".join(m for errs in form.errors.values() for m in errs)
        return HttpResponse(escape(message), status=400)  # it quotes the input
    verdict = engine.quick_solve(variant, fen, data["goal_text"], data.get("horizon"))
    kind = verdict["kind"]
    line: list[str] = []
    if kind == "unique":
        line = verdict["solution"]
        message = _("The engine found the solution; it is unique within its quick search.")
    elif kind == "cooked":
        line = verdict["solution"]
        others = ", ".join(alt[0] for alt in verdict["alternatives"] if alt)
        message = _("The engine found a solution, but also %(others)s: the puzzle is cooked.") % {
            "others": others
        }
    elif kind == "no_solution":
        message = _("The engine found no solution for this goal.")
        if verdict["refutation"]:
            message += " " + _("Best try and refutation: %(line)s") % {
                "line": " ".join(verdict["refutation"])
            }
    else:
        message = _(
            "The quick search could not decide; save the puzzle and the workers prove it with "
            "their full limits."
        )
    context = _line_context(
        puzzle_set, fen, line, message=message, is_error=kind not in ("unique",), verdict=kind
    )
    return render(request, "classroom/editor.html#solution-update", context)


# -- assigning, printing, exporting -----------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def set_assign(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk)
    form = AssignForm(request.POST or None, user=request.user, puzzle_set=puzzle_set)
    if request.method == "POST" and form.is_valid():
        assignment = form.save(commit=False)
        assignment.puzzle_set = puzzle_set
        assignment.assigned_by = request.user
        assignment.save()
        messages.success(
            request,
            _("%(set)s is assigned to %(cls)s.") % {"set": puzzle_set, "cls": assignment.classroom},
        )
        return redirect(assignment.classroom.get_absolute_url())
    return render(
        request,
        "classroom/assign.html",
        {"puzzle_set": puzzle_set, "form": form, "not_assignable": puzzle_set.not_assignable()},
        status=400 if form.errors else 200,
    )


@login_required
def worksheet(request: HttpRequest, pk: int) -> HttpResponse:
    """A printable worksheet: numbered diagrams, goals, space to write; answers on a new page."""
    puzzle_set = _set_for(request, pk, edit=False)
    sheets = []
    for n, puzzle in enumerate(puzzle_set.ordered_puzzles(), 1):
        sheets.append(
            {
                "number": n,
                "puzzle": puzzle,
                "diagram": engine.diagram(puzzle.variant, puzzle.fen, numbers=True),
                "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
                "answer": puzzle.numbered_solution
                if puzzle.verdict in (Verdict.UNIQUE, Verdict.COOKED)
                else puzzle.numbered(puzzle.solution),
            }
        )
    return render(request, "classroom/worksheet.html", {"puzzle_set": puzzle_set, "sheets": sheets})


@login_required
def set_pdn(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = _set_for(request, pk, edit=False)
    text = engine.set_pdn(puzzle_set.ordered_puzzles(), puzzle_set.title)
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="set-{puzzle_set.pk}.pdn"'
    return response
