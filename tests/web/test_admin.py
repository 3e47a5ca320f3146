"""The Django admin works for every model."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from accounts.models import Profile, profile_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", list(admin.site._registry), ids=lambda m: m._meta.label)
def test_admin_lists_and_adds_every_model(admin_client, model):
    info = (model._meta.app_label, model._meta.model_name)
    assert admin_client.get(reverse("admin:{}_{}_changelist".format(*info))).status_code == 200
    assert admin_client.get(reverse("admin:{}_{}_add".format(*info))).status_code == 200


def test_every_model_of_our_apps_is_in_the_admin():
    from django.apps import apps

    ours = [
        m
        for m in apps.get_models()
        if m._meta.app_label in {"core", "accounts", "lessons", "puzzles", "classroom"}
    ]
    assert ours
    assert [m for m in ours if m not in admin.site._registry] == []


def test_admin_grants_and_revokes_the_teacher_role(admin_client, student):
    url = reverse("admin:accounts_profile_changelist")
    pk = profile_of(student).pk
    admin_client.post(url, {"action": "grant_teacher", "_selected_action": [pk]})
    assert Profile.objects.get(pk=pk).is_teacher
    admin_client.post(url, {"action": "revoke_teacher", "_selected_action": [pk]})
    assert not Profile.objects.get(pk=pk).is_teacher


def test_user_change_page_shows_the_profile(admin_client, teacher):
    response = admin_client.get(reverse("admin:auth_user_change", args=[teacher.pk]))
    assert response.status_code == 200
    assert "preferred_variant" in response.content.decode()
