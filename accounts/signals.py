"""Every account gets a profile; at login the visitor's choices follow them into the account,
and later choices (``core.signals.preferences_chosen``) are kept there."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver

from core.signals import CHOSEN_LANGUAGE, preferences_chosen
from core.variants import SESSION_KEY as VARIANT_SESSION_KEY
from core.variants import VARIANTS

from .models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.create_profile")
def create_profile(sender, instance, created, raw=False, **kwargs) -> None:
    if created and not raw:
        Profile.objects.get_or_create(user=instance)


@receiver(user_logged_in, dispatch_uid="accounts.remember_choices")
def remember_choices(sender, request, user, **kwargs) -> None:
    """A variant chosen before logging in becomes the account's preferred one, and so does a
    language chosen with the switcher in this session: the visitor goes on in the language they
    chose (the log-in view then sets the profile's language, now that one, as the cookie)."""
    if request is None or not hasattr(request, "session"):
        return
    choices = {}
    variant = request.session.get(VARIANT_SESSION_KEY)
    if variant in VARIANTS:
        choices["preferred_variant"] = variant
    language = request.session.get(CHOSEN_LANGUAGE)
    if language in dict(settings.LANGUAGES):
        choices["language"] = language
    if choices:
        Profile.objects.update_or_create(user=user, defaults=choices)


#: the profile fields ``core.signals.preferences_chosen`` may set
CHOICES = ("preferred_variant", "language")


@receiver(preferences_chosen, dispatch_uid="accounts.keep_preferences")
def keep_preferences(sender, user, **choices) -> None:
    """A signed-in user's variant or language, chosen anywhere on the site, goes into the profile."""
    changes = {name: value for name, value in choices.items() if name in CHOICES}
    if changes:
        Profile.objects.filter(user=user).update(**changes)
