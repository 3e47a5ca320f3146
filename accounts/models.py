"""A profile per account: preferred variant and language, and the learner/teacher role."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.variants import DEFAULT_VARIANT, VARIANT_CHOICES


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
