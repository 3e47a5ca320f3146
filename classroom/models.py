"""Classes, their teachers and students, teachers' puzzle sets, and assignments of sets to classes.

Access rules live here, on the models and their querysets, so that every view asks the same
questions: ``Classroom.objects.taught_by(user)``, ``classroom.is_teacher(user)``,
``PuzzleSet.objects.visible_to(user)``, ``puzzle_set.can_edit(user)``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Case, Max, Q, When
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile
from core import workers
from core.models import SEALED_MESSAGE, Job, SealedPosition
from core.variants import DEFAULT_VARIANT, VARIANT_CHOICES
from puzzles.models import Puzzle, Verdict

from . import cards

if TYPE_CHECKING:
    from .engine import ImportedEntry

#: join codes avoid letters and digits that look alike (0/O, 1/I/L)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: generated passwords for children's accounts: easy to copy from a card, hard to guess
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
PASSWORD_LENGTH = 10
#: the job kind of new children's accounts (``Classroom.start_student_accounts``)
ACCOUNTS_JOB = "student_accounts"
#: a second click with the same names within this time follows the first one's job
ACCOUNTS_PATIENCE = timedelta(minutes=10)
#: how long the passwords of new accounts wait in their job for the teacher's look
CARDS_KEPT = timedelta(days=1)


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_password() -> str:
    """A password for a child's card: ``abcd-efgh-23`` style, 10 random characters."""
    raw = "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))
    return f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"


def normalise_code(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


class ClassroomQuerySet(models.QuerySet["Classroom"]):
    def taught_by(self, user) -> ClassroomQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(teachers=user)

    def attended_by(self, user) -> ClassroomQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user)

    def joinable(self, code: str) -> ClassroomQuerySet:
        """The class that takes students with the join code ``code`` (as typed: any case,
        spaces and dashes ignored)."""
        return self.filter(join_code=normalise_code(code), joining_open=True)


class Classroom(models.Model):
    """A class of a club or school: its teachers (several) and students."""

    name = models.CharField(pgettext_lazy("the name of a class", "name"), max_length=100)
    description = models.TextField(_("description"), blank=True)
    variant = models.CharField(
        _("variant"), max_length=20, choices=VARIANT_CHOICES, default=DEFAULT_VARIANT
    )
    join_code = models.CharField(_("join code"), max_length=16, unique=True, default=new_join_code)
    joining_open = models.BooleanField(
        _("joining open"), default=True, help_text=_("Students may join with the code.")
    )
    teachers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="taught_classes", verbose_name=_("teachers")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    objects = ClassroomQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("class")
        verbose_name_plural = _("classes")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("classroom:class_detail", args=[self.pk])

    def join_url(self) -> str:
        return reverse("classroom:join", args=[self.join_code])

    def is_teacher(self, user) -> bool:
        return user.is_authenticated and self.teachers.filter(pk=user.pk).exists()

    def is_student(self, user) -> bool:
        return user.is_authenticated and self.memberships.filter(user=user).exists()

    def students(self):
        return (
            get_user_model()
            .objects.filter(class_memberships__classroom=self)
            .order_by("first_name", "username")
        )

    def new_code(self) -> str:
        """A fresh join code (the old one stops working)."""
        for _attempt in range(20):
            code = new_join_code()
            if not Classroom.objects.filter(join_code=code).exists():
                self.join_code = code
                self.save(update_fields=["join_code"])
                return code
        raise RuntimeError("no free join code")  # pragma: no cover - 31**8 codes

    def remove_teacher(self, teacher) -> bool:
        """Take ``teacher`` off the class unless they are its last teacher (then False). The
        class's row is locked meanwhile, so two teachers removing each other leave one."""
        with transaction.atomic():
            Classroom.objects.select_for_update().filter(pk=self.pk).first()
            if self.teachers.count() <= 1:
                return False
            self.teachers.remove(teacher)
            return True

    def remove_student(self, student) -> bool:
        """Take ``student`` out of the class (False when they were not in it). Whatever follows
        the class learns it from the membership's ``post_delete`` (a live lesson closes their
        sockets in it)."""
        deleted, _by_model = Membership.objects.filter(classroom=self, user=student).delete()
        return bool(deleted)

    def add_student(self, user, *, managed: bool = False) -> Membership:
        membership, _created = Membership.objects.get_or_create(
            classroom=self, user=user, defaults={"managed": managed}
        )
        return membership

    def start_student_accounts(self, names: list[str], teacher) -> Job:
        """The job that makes accounts for ``names`` on a worker
        (``classroom.tasks.make_student_accounts``, sent once the transaction commits), which the
        teacher's page follows until it shows the login cards. The same names sent again by the
        same teacher while their job still waits (a second click) follow that job instead."""
        since = timezone.now() - ACCOUNTS_PATIENCE
        pending = Job.objects.pending().filter(
            kind=ACCOUNTS_JOB, owner=teacher, params__classroom=self.pk, created__gte=since
        )
        for job in pending:
            if job.params.get("names") == names:
                return job
        job = Job.objects.create(
            kind=ACCOUNTS_JOB, owner=teacher, params={"classroom": self.pk, "names": names}
        )
        job_id = str(job.pk)

        transaction.on_commit(lambda: workers.send("classroom.make_student_accounts", job_id))
        return job

    def create_student_accounts(
        self,
        names: list[str],
        *,
        progress: Callable[[int, int], None] | None = None,
        job: Job | None = None,
    ) -> list[tuple[Any, str]]:
        """Accounts for children without e-mail: a username from each name and a generated
        password. Returns (user, password) pairs; the passwords are shown once, on login cards.

        The passwords are hashed before the transaction (``progress(done, total)`` after each;
        with PBKDF2 a 60-name list took 18 s, during which SQLite would have held every other
        write), which only inserts the accounts, their profiles and memberships: three queries.
        With ``job`` (a worker's, running), the job is finished in the same transaction with the
        accounts and their passwords sealed (``classroom.cards``), so the accounts exist exactly
        when the job says so; a job no longer running makes no accounts (an empty list)."""
        User = get_user_model()
        passwords = [new_password() for _name in names]
        hashes = []
        for password in passwords:
            hashes.append(make_password(password))
            if progress is not None:
                progress(len(hashes), len(passwords))
        for _attempt in range(3):
            usernames: list[str] = []
            for name in names:
                usernames.append(free_username(name, taken={u.lower() for u in usernames}))
            users = [
                User(username=username, first_name=name[:150], password=hashed)
                for username, name, hashed in zip(usernames, names, hashes, strict=True)
            ]
            try:
                with transaction.atomic():
                    User.objects.bulk_create(users)
                    Profile.objects.bulk_create(
                        Profile(user=user, preferred_variant=self.variant) for user in users
                    )
                    Membership.objects.bulk_create(
                        Membership(classroom=self, user=user, managed=True) for user in users
                    )
                    if job is not None:
                        result = {
                            "accounts": [user.pk for user in users],
                            "cards": cards.seal(passwords, job.pk),
                        }
                        if not job.finish(result):
                            transaction.set_rollback(True)
                            return []
            except IntegrityError:  # someone took one of the names meanwhile: choose again
                continue
            return list(zip(users, passwords, strict=True))
        raise RuntimeError("no free usernames")  # pragma: no cover - 9000 numbers a name

    def take_login_cards(self, job: Job) -> list[tuple[Any, str]] | None:
        """The login cards of ``job`` (this class's finished accounts job): each account with its
        password, once. The passwords leave the job in the same transaction (its row locked, so
        two tabs cannot both get them); None when they were taken before, or forgotten."""
        with transaction.atomic():
            locked = (
                Job.objects.select_for_update()
                .filter(
                    pk=job.pk,
                    kind=ACCOUNTS_JOB,
                    status=Job.Status.DONE,
                    params__classroom=self.pk,
                )
                .first()
            )
            result = dict(locked.result or {}) if locked is not None else {}
            token = result.pop("cards", None)
            if not token:
                return None
            locked.result = result
            locked.save(update_fields=["result"])
        passwords = cards.unseal(token, job.pk)
        if passwords is None:
            return None
        found = get_user_model().objects.in_bulk(result["accounts"])
        return [
            (found[pk], password)
            for pk, password in zip(result["accounts"], passwords, strict=True)
            if pk in found
        ]

    def accounts_of(self, job: Job) -> list[Any]:
        """The accounts ``job`` made in this class, in the order of its list of names (those
        still in the class)."""
        pks = (job.result or {}).get("accounts", [])
        found = (
            get_user_model().objects.filter(pk__in=pks, class_memberships__classroom=self).in_bulk()
        )
        return [found[pk] for pk in pks if pk in found]

    def reset_password(self, student) -> str:
        """A new generated password for a student account this class manages."""
        membership = self.memberships.get(user=student, managed=True)
        password = new_password()
        membership.user.set_password(password)
        membership.user.save(update_fields=["password"])
        return password


def forget_old_cards(now=None) -> int:
    """Take the sealed passwords out of the accounts jobs that finished more than
    ``CARDS_KEPT`` ago without their cards being looked at; how many jobs lost them. (Called by
    each accounts job when it is done.)"""
    cutoff = (now or timezone.now()) - CARDS_KEPT
    old = Job.objects.filter(
        kind=ACCOUNTS_JOB, status=Job.Status.DONE, finished__lt=cutoff, result__has_key="cards"
    )
    forgotten = 0
    for job in old:
        result = {k: v for k, v in (job.result or {}).items() if k != "cards"}
        forgotten += Job.objects.filter(pk=job.pk, result__has_key="cards").update(result=result)
    return forgotten


def free_username(name: str, taken: Collection[str] = ()) -> str:
    """``anna-novakova-4821``: the name as ASCII plus digits, not taken yet (nor in ``taken``,
    lower case: the names chosen for the same batch)."""
    User = get_user_model()
    base = slugify(name)[:20].strip("-") or "student"
    for _attempt in range(50):
        candidate = f"{base}-{secrets.randbelow(9000) + 1000}"
        if candidate in taken:
            continue
        if not User.objects.filter(username__iexact=candidate).exists():
            return candidate
    raise RuntimeError("no free username")  # pragma: no cover


class Membership(models.Model):
    """A student in a class. ``managed``: the account was made by the class's teachers, who may
    reset its password."""

    classroom = models.ForeignKey(
        Classroom, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("class")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="class_memberships",
        verbose_name=_("student"),
    )
    managed = models.BooleanField(_("account made by the teacher"), default=False)
    joined = models.DateTimeField(_("joined"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["classroom", "user__first_name", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "user"], name="classroom_one_membership")
        ]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.user} in {self.classroom}"


@dataclass
class ImportReport:
    """What a PDN import did: new puzzles and reused ones as (entry number, puzzle), and the
    entries it could not take as (entry number, line, message)."""

    created: list[tuple[int, Puzzle]] = field(default_factory=list)
    existing: list[tuple[int, Puzzle]] = field(default_factory=list)
    errors: list[tuple[int, int, str]] = field(default_factory=list)


#: what a teacher may change in a puzzle of their set (anything else is the proof's)
EDITABLE_FIELDS = ("fen", "goal", "horizon", "solution", "title", "description")


def reusable_puzzles(user) -> models.QuerySet[Puzzle]:
    """Puzzles a teacher's new puzzle may be instead of a new row: their own and the site's pool
    (another teacher's puzzles are private to them)."""
    return Puzzle.objects.filter(
        Q(author=user) | Q(author__isnull=True) | Q(public=True), owner__isnull=True
    )


class PuzzleSetQuerySet(models.QuerySet["PuzzleSet"]):
    def visible_to(self, user) -> PuzzleSetQuerySet:
        """Sets a teacher may look at: their own, and those assigned to a class they teach."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(owner=user) | Q(assignments__classroom__teachers=user)).distinct()


class PuzzleSet(models.Model):
    """A teacher's ordered set of puzzles, of one variant."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_sets",
        verbose_name=_("owner"),
    )
    title = models.CharField(_("title"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    variant = models.CharField(
        _("variant"), max_length=20, choices=VARIANT_CHOICES, default=DEFAULT_VARIANT
    )
    puzzles = models.ManyToManyField(
        Puzzle, through="SetItem", related_name="puzzle_sets", verbose_name=_("puzzles")
    )
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    objects = PuzzleSetQuerySet.as_manager()

    class Meta:
        ordering = ["-updated", "pk"]
        verbose_name = _("puzzle set")
        verbose_name_plural = _("puzzle sets")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("classroom:set_detail", args=[self.pk])

    def can_edit(self, user) -> bool:
        return user.is_authenticated and self.owner_id == user.pk

    def can_view(self, user) -> bool:
        """The owner, and the teachers of a class the set is assigned to."""
        return self.can_edit(user) or (
            user.is_authenticated and self.assignments.filter(classroom__teachers=user).exists()
        )

    def items(self) -> models.QuerySet[SetItem]:
        """The set's puzzles in order, but those the exams keep (``Puzzle.for_exams``: added
        before the exams kept them): no page, worksheet, PDN, assignment or live lesson shows
        them."""
        return (
            self.setitem_set.select_related("puzzle")
            .filter(puzzle__for_exams=False)
            .order_by("position", "pk")
        )

    def ordered_puzzles(self) -> list[Puzzle]:
        return [item.puzzle for item in self.items()]

    def add(self, puzzle: Puzzle) -> tuple[SetItem, bool]:
        """Put ``puzzle`` at the end of the set (nothing changes when it is already there); a
        puzzle kept for the exams, or a player's personal puzzle (its owner's alone: a set takes
        a copy, :meth:`add_personal`), is refused (``ValidationError``)."""
        if puzzle.for_exams:
            raise ValidationError(SEALED_MESSAGE, code="sealed")
        if puzzle.owner_id is not None:
            raise ValidationError(
                _("A player's own puzzle joins a set only as a copy of yours."), code="personal"
            )
        item = self.setitem_set.filter(puzzle=puzzle).first()
        if item is not None:
            return item, False
        last = self.setitem_set.aggregate(m=Max("position"))["m"]
        item = SetItem.objects.create(
            puzzle_set=self, puzzle=puzzle, position=0 if last is None else last + 1
        )
        self.save(update_fields=["updated"])
        return item, True

    def add_personal(self, user, puzzle: Puzzle) -> tuple[Puzzle, bool]:
        """Put a student's personal puzzle (a shot of one of their games: ``Puzzle.owner``) into
        this set of ``user``'s, as ``user``'s own puzzle: a copy proven by the same proof (no
        worker needed), so that the student's row stays theirs (their review, where it comes
        from) and the set's classes play the copy. A position with the same goal that the
        teacher or the site's pool already has is reused, as :meth:`save_puzzle` does.

        Only the set's owner, and only for a student of a class they teach
        (``PermissionDenied``); a puzzle of another variant, not proven unique, or at a position
        the exams keep is refused (``ValidationError``). Returns the puzzle now in the set and
        whether it is a new row."""
        if (
            not self.can_edit(user)
            or puzzle.owner_id is None
            or not Classroom.objects.taught_by(user)
            .filter(memberships__user_id=puzzle.owner_id)
            .exists()
        ):
            raise PermissionDenied("a teacher of the player, into their own set")
        if puzzle.variant != self.variant:
            raise ValidationError(
                _("This puzzle is of another variant than the set."), code="variant"
            )
        if puzzle.verdict != Verdict.UNIQUE or not puzzle.proof:
            raise ValidationError(_("Only a proven puzzle can join a set."), code="unproven")
        with transaction.atomic():
            SealedPosition.refuse(puzzle.fen, puzzle.variant)
            existing = (
                reusable_puzzles(user)
                .filter(variant=puzzle.variant, fen=puzzle.fen, goal=puzzle.goal)
                .order_by(
                    Case(When(author=user, then=0), When(author__isnull=True, then=1), default=2),
                    "pk",
                )
                .first()
            )
            if existing is not None:
                self.add(existing)
                return existing, False
            copy = Puzzle(
                variant=puzzle.variant,
                fen=puzzle.fen,
                goal=puzzle.goal,
                horizon=puzzle.horizon,
                solution=list(puzzle.solution),
                motifs=list(puzzle.motifs),
                difficulty=puzzle.difficulty,
                limits=dict(puzzle.limits or {}),
                source=f"personal puzzle #{puzzle.pk}",
                author=user,
            )
            copy.full_clean(exclude=["author"], validate_constraints=False)
            if not copy.adopt_proof(puzzle.proof):
                raise ValidationError(_("Only a proven puzzle can join a set."), code="unproven")
            copy.save()
            self.add(copy)
            return copy, True

    def move(self, item: SetItem, offset: int) -> None:
        """Move ``item`` ``offset`` places (-1 up, +1 down); the order is renumbered 0..n-1."""
        items = list(self.items())
        index = next(i for i, it in enumerate(items) if it.pk == item.pk)
        target = max(0, min(len(items) - 1, index + offset))
        items.insert(target, items.pop(index))
        self.reorder([it.pk for it in items])

    def reorder(self, item_ids: list[int]) -> None:
        """Set the order to ``item_ids`` (items left out keep their order, after those)."""
        items = {it.pk: it for it in self.items()}
        order = [pk for pk in item_ids if pk in items]
        order += [pk for pk in items if pk not in order]
        with transaction.atomic():
            for position, pk in enumerate(order):
                if items[pk].position != position:
                    SetItem.objects.filter(pk=pk).update(position=position)
        self.save(update_fields=["updated"])

    def save_puzzle(
        self,
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
                variant=self.variant,
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
            SealedPosition.refuse(candidate.fen, candidate.variant)  # an exam's position
            same_position = reusable_puzzles(user).filter(
                variant=candidate.variant, fen=candidate.fen, goal=candidate.goal
            )
            if puzzle is None:
                # the teacher's own row first, then the corpus, then a puzzle staff made public
                existing = same_position.order_by(
                    Case(When(author=user, then=0), When(author__isnull=True, then=1), default=2),
                    "pk",
                ).first()
                if existing is not None:
                    self.add(existing)
                    return existing, False
                candidate.save()
                self.add(candidate)
                return candidate, True
            if puzzle.author_id != user.pk:
                raise PermissionDenied("a teacher changes only their own puzzles")
            puzzle = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
            if all(getattr(puzzle, name) == getattr(candidate, name) for name in EDITABLE_FIELDS):
                return puzzle, False
            if (puzzle.fen, puzzle.goal) != (candidate.fen, candidate.goal):
                other = same_position.exclude(pk=puzzle.pk).order_by("pk").first()
                if other is not None:
                    raise ValidationError(
                        _("This position with this goal is already puzzle #%(id)s.")
                        % {"id": other.pk}
                    )
            if self.must_copy(puzzle):
                same_ask = (puzzle.fen, puzzle.goal) == (candidate.fen, candidate.goal)
                candidate.source = puzzle.source
                candidate.difficulty = puzzle.difficulty
                candidate.limits = dict(puzzle.limits or {})
                candidate.motifs = list(puzzle.motifs) if same_ask else []
                candidate.full_clean(exclude=["author"], validate_constraints=False)
                candidate.save()
                SetItem.objects.filter(puzzle_set=self, puzzle=puzzle).update(puzzle=candidate)
                self.save(update_fields=["updated"])
                return candidate, True
            for name in EDITABLE_FIELDS:
                setattr(puzzle, name, getattr(candidate, name))
            puzzle.full_clean(exclude=["author"], validate_constraints=False)
            puzzle.save()
            self.save(update_fields=["updated"])
            return puzzle, False

    def must_copy(self, puzzle: Puzzle) -> bool:
        """Whether changing ``puzzle`` from this set has to leave the row as it is and give the
        set a copy: the puzzle is in another set too, is in the site's pool, or was a daily puzzle
        (a change would silently change those sets, their assignments and the daily archive)."""
        return (
            puzzle.is_public
            or SetItem.objects.filter(puzzle=puzzle).exclude(puzzle_set=self).exists()
            or puzzle.daily.exists()
        )

    def import_entries(self, entries: Iterable[ImportedEntry], user) -> ImportReport:
        """Each good entry of a PDN file (``engine.read_pdn``) becomes a puzzle of the set, by
        ``save_puzzle`` (a position the teacher or the corpus already has is reused); each bad
        one is reported with its line."""
        report = ImportReport()
        for entry in entries:
            if entry.error:
                report.errors.append((entry.index, entry.line, entry.error))
                continue
            if entry.variant != self.variant:
                message = gettext("the entry is %(v)s, the set is not") % {"v": entry.variant}
                report.errors.append((entry.index, entry.line, message))
                continue
            try:
                puzzle, created = self.save_puzzle(
                    user,
                    fen=entry.fen,
                    goal=entry.goal,
                    horizon=entry.horizon,
                    solution=entry.solution,
                    title=entry.title,
                    source=f"PDN import, entry {entry.index}",
                )
            except ValidationError as exc:
                report.errors.append((entry.index, entry.line, " ".join(exc.messages)))
                continue
            (report.created if created else report.existing).append((entry.index, puzzle))
        return report

    def not_assignable(self) -> list[Puzzle]:
        """The puzzles that stop the set from being assigned: every one that is not proven unique."""
        return [p for p in self.ordered_puzzles() if p.verdict != Verdict.UNIQUE]


class SetItem(models.Model):
    puzzle_set = models.ForeignKey(PuzzleSet, on_delete=models.CASCADE, verbose_name=_("set"))
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, verbose_name=_("puzzle"))
    position = models.PositiveIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["puzzle_set", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["puzzle_set", "puzzle"], name="classroom_set_item_once")
        ]
        verbose_name = _("puzzle in a set")
        verbose_name_plural = _("puzzles in sets")

    def __str__(self) -> str:
        return f"{self.puzzle_set} #{self.position + 1}: {self.puzzle}"

    @property
    def number(self) -> int:
        return self.position + 1


class Assignment(models.Model):
    """A set given to a class, with an optional due date."""

    puzzle_set = models.ForeignKey(
        PuzzleSet, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("set")
    )
    classroom = models.ForeignKey(
        Classroom, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("class")
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("assigned by"),
    )
    due = models.DateField(_("due date"), null=True, blank=True)
    created = models.DateTimeField(_("assigned"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["classroom", "-created", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle_set", "classroom"], name="classroom_assign_set_once"
            )
        ]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")

    def __str__(self) -> str:
        return f"{self.puzzle_set} → {self.classroom}"

    def get_absolute_url(self) -> str:
        return reverse("classroom:assignment", args=[self.classroom_id, self.pk])

    @property
    def is_overdue(self) -> bool:
        return self.due is not None and self.due < timezone.localdate()

    def student_puzzles(self) -> list[Puzzle]:
        """What students get: the set's puzzles in order, only those proven unique."""
        return [p for p in self.puzzle_set.ordered_puzzles() if p.verdict == Verdict.UNIQUE]
