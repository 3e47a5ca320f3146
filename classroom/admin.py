from django.contrib import admin

from .models import Assignment, Classroom, Membership, PuzzleSet, SetItem


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ("name", "variant", "join_code", "joining_open", "created")
    search_fields = ("name", "join_code", "teachers__username")
    filter_horizontal = ("teachers",)
    inlines = [MembershipInline]


class SetItemInline(admin.TabularInline):
    model = SetItem
    extra = 0
    raw_id_fields = ("puzzle",)


@admin.register(PuzzleSet)
class PuzzleSetAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "variant", "updated")
    search_fields = ("title", "owner__username")
    raw_id_fields = ("owner",)
    inlines = [SetItemInline]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("puzzle_set", "classroom", "due", "created")
    raw_id_fields = ("puzzle_set", "classroom", "assigned_by")


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "classroom", "managed", "joined")
    list_filter = ("managed",)
    raw_id_fields = ("user", "classroom")


@admin.register(SetItem)
class SetItemAdmin(admin.ModelAdmin):
    list_display = ("puzzle_set", "position", "puzzle")
    raw_id_fields = ("puzzle_set", "puzzle")
