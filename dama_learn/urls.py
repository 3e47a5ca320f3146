"""Addresses of the site. They are stable: later features fill them in, never move them."""

from django.contrib import admin
from django.urls import include, path, register_converter

from core.variants import VariantConverter

register_converter(VariantConverter, "variant")

urlpatterns = [
    path("", include("core.urls")),
    path("accounts/", include("accounts.urls")),
    path("learn/", include("lessons.urls")),
    path("", include("puzzles.urls")),
    path("teach/", include("classroom.urls")),
    path("review/", include("review.urls")),
    path("live/", include("live.urls")),
    path("play/", include("play.urls")),
    path("teach/tournaments/", include("tournaments.urls")),
    path("", include("exams.urls")),
    path("versus/", include("versus.urls")),
    path("explore/", include("explore.urls")),
    path("analysis/", include("analysis.urls")),
    path("runs/", include("runs.urls")),
    path("squares/", include("squares.urls")),
    path("admin/", admin.site.urls),
]

handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
