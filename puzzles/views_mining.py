"""Staff pages of puzzle mining (issue 17): start a job on the workers and follow it live (the work
runs on the workers, never in the request). A job plays engine games, or mines the positions of a
PDN file of games that staff upload (as ``manage.py mine_puzzles --from-pdn FILE --natural``
does): the request only checks the file's size and encoding; the workers read the games, and the
job's page says when none of them could be read, and why."""

from __future__ import annotations

from django import forms
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.variants import VARIANT_CHOICES

from .engine import MAX_PDN_BYTES
from .models import MiningJob


class MiningForm(forms.Form):
    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES)
    tasks = forms.IntegerField(
        label=_("Tasks (one seed each)"), min_value=1, max_value=64, initial=4
    )
    games = forms.IntegerField(label=_("Games per task"), min_value=1, max_value=20, initial=4)
    #: at most 10⁹: the job keeps its first seed in a database integer (2³¹ - 1 at most)
    first_seed = forms.IntegerField(
        label=_("First seed"), min_value=1, max_value=1_000_000_000, initial=1
    )
    pdn = forms.FileField(
        label=_("Or mine the games of a PDN file"),
        required=False,
        help_text=_("The tasks share the file's games; games per task and the seed do not apply."),
    )

    def clean_pdn(self) -> str:
        upload = self.cleaned_data.get("pdn")
        if not upload:
            return ""
        if upload.size > MAX_PDN_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)s MB.") % {"mb": MAX_PDN_BYTES // 1_000_000}
            )
        data = upload.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
        if not text.strip():
            raise forms.ValidationError(_("The file is empty."))
        if "\x00" in text:
            raise forms.ValidationError(_("This is not a PDN text file."))
        return text


@staff_member_required
@never_cache
@require_http_methods(["GET", "POST"])
def jobs(request: HttpRequest) -> HttpResponse:
    """The mining jobs and a form to start one."""
    form = MiningForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        job = MiningJob.start(
            form.cleaned_data["variant"],
            tasks=form.cleaned_data["tasks"],
            games=form.cleaned_data["games"],
            first_seed=form.cleaned_data["first_seed"],
            user=request.user,
            pdn=form.cleaned_data["pdn"],
        )
        return redirect(job)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "jobs": MiningJob.objects.all()[:20]}
    return render(request, "puzzles/mining.html", context, status=status)


@staff_member_required
@never_cache
def job(request: HttpRequest, pk: int) -> HttpResponse:
    """One job's progress; htmx polls the progress partial until the job is done."""
    obj = get_object_or_404(MiningJob, pk=pk)
    template = "puzzles/mining_job.html"
    if getattr(request, "htmx", False):
        template += "#progress"
    return render(request, template, {"job": obj})
