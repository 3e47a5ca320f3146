from django.contrib import admin

from .models import Job, SealedPosition, WorkerHeartbeat


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["kind", "status", "owner", "worker", "progress", "created", "finished"]
    list_filter = ["status", "kind"]
    search_fields = ["id", "kind", "worker", "owner__username"]
    readonly_fields = ["id", "created", "started", "finished", "worker"]
    raw_id_fields = ["owner"]


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ["hostname", "seen"]


@admin.register(SealedPosition)
class SealedPositionAdmin(admin.ModelAdmin):
    list_display = ["label", "key", "until", "created"]
    search_fields = ["label", "key"]
