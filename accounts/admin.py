from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .forms import AdminLoginForm
from .models import Profile

# The admin's log-in goes through the site's log-in limits (accounts.forms.ThrottledLogin).
admin.site.login_form = AdminLoginForm


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fk_name = "user"


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    inlines = [ProfileInline]
    list_display = [*BaseUserAdmin.list_display, "role"]

    @admin.display(description=_("role"))
    def role(self, obj):
        profile = getattr(obj, "profile", None)
        return profile.get_role_display() if profile else ""


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "teacher_requested", "preferred_variant", "language"]
    list_filter = [
        "role",
        "preferred_variant",
        "language",
        ("teacher_requested", admin.EmptyFieldListFilter),
    ]
    search_fields = ["user__username", "user__email"]
    raw_id_fields = ["user"]
    actions = ["grant_teacher", "revoke_teacher"]

    @admin.action(description=_("Grant the teacher role"))
    def grant_teacher(self, request, queryset):
        for profile in queryset:
            profile.grant_teacher_role()
        count = queryset.count()
        self.message_user(
            request,
            ngettext("%d user is a teacher now.", "%d users are teachers now.", count) % count,
            messages.SUCCESS,
        )

    @admin.action(description=_("Take the teacher role away"))
    def revoke_teacher(self, request, queryset):
        for profile in queryset:
            profile.revoke_teacher_role()
        count = queryset.count()
        self.message_user(
            request,
            ngettext("%d user is a learner now.", "%d users are learners now.", count) % count,
        )
