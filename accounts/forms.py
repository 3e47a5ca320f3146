from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from .models import Profile


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        help_text=_("Optional; needed only to reset a forgotten password."),
    )
    want_teacher = forms.BooleanField(
        label=_("I teach draughts and want to create classes"),
        required=False,
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data.get("email", "").strip()
        if email and User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this e-mail already exists."))
        return email


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ("preferred_variant", "language")


class EmailForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("email",)
        labels = {"email": _("E-mail")}

    def clean_email(self) -> str:
        email = self.cleaned_data.get("email", "").strip()
        if email and User.objects.filter(email__iexact=email).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(_("An account with this e-mail already exists."))
        return email
