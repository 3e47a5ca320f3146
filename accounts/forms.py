"""The accounts' forms. Log-in goes through the limits of ``accounts.limits`` (the admin's log-in
form too); sign-up and the profile take an e-mail address without saying whether an account has it
(the address is added once its owner opens the link mailed to it: ``accounts.mail``)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import (
    AuthenticationForm,
    PasswordChangeForm,
    SetPasswordForm,
    UserCreationForm,
)
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    get_default_password_validators,
)
from django.core.exceptions import ValidationError
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.ratelimit import client_address, username_key

from . import limits
from .models import Profile
from .names import clean_name


#: the password rules and messages in the site's own words: Django's Czech catalogue says them with
#: "vy", the site with "ty" (docs/glossary.md)
def _password_help() -> str:
    lengths = [
        v.min_length
        for v in get_default_password_validators()
        if isinstance(v, MinimumLengthValidator)
    ]
    n = max(lengths, default=1)
    return ngettext(
        "At least %(min)d character; not only digits, not a password many people use and not "
        "like your user name or e-mail.",
        "At least %(min)d characters; not only digits, not a password many people use and not "
        "like your user name or e-mail.",
        n,
    ) % {"min": n}


#: the password's rules, with the length the validators ask for (read when it is shown)
PASSWORD_HELP = lazy(_password_help, str)()
PASSWORD_AGAIN = _("Type the same password again, to check it.")
PASSWORD_MISMATCH = _("The two password fields didn’t match.")


def use_own_password_texts(form: forms.Form, first: str, second: str) -> None:
    """The help texts and the mismatch message of a form's two new-password fields."""
    form.fields[first].help_text = PASSWORD_HELP
    form.fields[second].help_text = PASSWORD_AGAIN
    form.error_messages = {**form.error_messages, "password_mismatch": PASSWORD_MISMATCH}


class ThrottledLogin:
    """Checks the password only when the log-in limits allow it (mixed into AuthenticationForm).

    While an account waits, or the client's address has had too many failures, the form is
    invalid with a "throttled" error and ``retry_after`` seconds, and the password is not checked.
    A failure is counted for the account (NFKC-normalised and case-folded, so look-alike names
    share it) and for the address; a success clears the account's failures. A browser that logged
    in to the account before counts on its own (``limits.device_of``).
    """

    retry_after = 0

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not username or not password:
            return super().clean()
        address = client_address(self.request) if self.request is not None else "unknown"
        account = username_key(username)
        by_account, by_address = limits.login_account(), limits.login_address()
        if by_address.is_blocked(address):
            self.retry_after = by_address.retry_after(address)
            raise ValidationError(
                gettext(
                    "Too many failed log-in attempts from your network. Wait %(wait)s and try "
                    "again, or reset your password."
                )
                % {"wait": limits.wait_text(self.retry_after)},
                code="throttled",
            )
        device = limits.device_of(self.request, account)
        key = (account, device) if device else (account,)
        wait = by_account.begin(*key)
        if wait:
            self.retry_after = wait
            raise ValidationError(
                gettext(
                    "Too many failed log-in attempts for this account. Wait %(wait)s and try "
                    "again, or reset your password."
                )
                % {"wait": limits.wait_text(wait)},
                code="throttled",
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            by_account.fail(*key)
            by_address.hit(address)
            raise
        by_account.reset(account)
        if device:
            by_account.reset(account, device)
        return cleaned


class LoginForm(ThrottledLogin, AuthenticationForm):
    # Django's words, kept in the site's catalogue to be said with "ty" in Czech
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _(
            "Please enter a correct %(username)s and password. Note that both fields may be "
            "case-sensitive."
        ),
    }


class OwnSetPasswordForm(SetPasswordForm):
    """Choosing a new password after a reset link, in the site's words."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_own_password_texts(self, "new_password1", "new_password2")


class OwnPasswordChangeForm(PasswordChangeForm):
    """Changing the password on the profile, in the site's words."""

    # Django's words, kept in the site's catalogue to be said with "ty" in Czech
    error_messages = {
        **PasswordChangeForm.error_messages,
        "password_incorrect": _(
            "Your old password was entered incorrectly. Please enter it again."
        ),
    }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_own_password_texts(self, "new_password1", "new_password2")


class AdminLoginForm(ThrottledLogin, AdminAuthenticationForm):
    pass


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        help_text=_(
            "Optional; needed only to reset a forgotten password. We send a link to confirm it."
        ),
    )
    want_teacher = forms.BooleanField(
        label=_("I teach draughts and want to create classes"),
        required=False,
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_own_password_texts(self, "password1", "password2")

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data.get("email", "").strip())

    def save(self, commit: bool = True) -> User:
        # the address is added when its owner confirms it (accounts.mail), never at sign-up
        self.instance.email = ""
        return super().save(commit)


class NameField(forms.CharField):
    """A person's name: composed and its spaces made single before the model's validator
    (``accounts.names``) reads it."""

    def to_python(self, value):
        return clean_name(super().to_python(value))

    def widget_attrs(self, widget):
        return {**super().widget_attrs(widget), "autocomplete": "name", "spellcheck": "false"}


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ("certificate_name", "preferred_variant", "language")
        field_classes = {"certificate_name": NameField}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # the empty choice means something: say it instead of Django's "---------"
        language = self.fields["language"]
        language.choices = [("", _("As the browser asks")), *settings.LANGUAGES]
        language.help_text = ""


class CertificateNameForm(forms.ModelForm):
    """The name to print, asked before a first real exam (``accounts.views.certificate_name``)."""

    class Meta:
        model = Profile
        fields = ("certificate_name",)
        field_classes = {"certificate_name": NameField}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["certificate_name"].required = True


class EmailForm(forms.Form):
    """The account's e-mail address: a new one is mailed a confirmation link (the view)."""

    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        help_text=_("A new address is used once you open the link we send to it."),
    )

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data.get("email", "").strip())
