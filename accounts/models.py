"""A profile per account: preferred variant and language, the learner/teacher role, and the name
the account's certificates print."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.variants import DEFAULT_VARIANT, VARIANT_CHOICES

from .names import MAX_LENGTH, validate_name


class Profile(models.Model):
    class Role(models.TextChoices):
        LEARNER = "learner", _("learner")
        TEACHER = "teacher", _("teacher")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("user"),
    )
    preferred_variant = models.CharField(
        _("preferred variant"), max_length=20, choices=VARIANT_CHOICES, default=DEFAULT_VARIANT
    )
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("Empty: follow the browser."),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role, default=Role.LEARNER)
    teacher_requested = models.DateTimeField(
        _("teacher role requested"),
        null=True,
        blank=True,
        help_text=_("Set when the user asked to be a teacher and an admin has not decided yet."),
    )

    certificate_name = models.CharField(
        _("name on your certificates"),
        max_length=MAX_LENGTH,
        blank=True,
        validators=[validate_name],
        help_text=_(
            "Your name as an exam certificate prints it, for example Anna Nováková. A certificate "
            "already issued keeps the name it was issued with."
        ),
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return str(self.user)

    @property
    def is_teacher(self) -> bool:
        return self.role == self.Role.TEACHER

    @property
    def is_teacher_pending(self) -> bool:
        return not self.is_teacher and self.teacher_requested is not None

    @property
    def printed_name(self) -> str:
        """The name a certificate prints: the one the player gave, else the name a teacher gave
        the account when making it for a class (``first_name``); never the user name or the
        e-mail. "" when there is none yet: a real exam asks for it before it starts."""
        return self.certificate_name or self.user.get_full_name()

    def request_teacher_role(self) -> bool:
        """Ask for the teacher role; granted at once when DAMA_TEACHERS_AUTO_APPROVE is on.

        Returns True when the user is a teacher afterwards.
        """
        if self.is_teacher:
            return True
        if settings.DAMA_TEACHERS_AUTO_APPROVE:
            self.grant_teacher_role()
        else:
            self.teacher_requested = self.teacher_requested or timezone.now()
            self.save(update_fields=["teacher_requested"])
        return self.is_teacher

    def grant_teacher_role(self) -> None:
        self.role = self.Role.TEACHER
        self.teacher_requested = None
        self.save(update_fields=["role", "teacher_requested"])

    def revoke_teacher_role(self) -> None:
        self.role = self.Role.LEARNER
        self.teacher_requested = None
        self.save(update_fields=["role", "teacher_requested"])


def profile_of(user) -> Profile:
    """The user's profile, made on first use (accounts created before profiles existed)."""
    profile, _created = Profile.objects.get_or_create(user=user)
    return profile


def is_teacher(user) -> bool:
    if not user.is_authenticated:
        return False
    return profile_of(user).is_teacher
