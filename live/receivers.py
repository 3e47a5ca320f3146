"""What the live lessons do when the class changes (the class knows nothing of live lessons):
someone who leaves it (a student removed, by a teacher or with their account, a teacher taken
off) has their sockets in its lessons closed (:meth:`LiveSession.someone_left`)."""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_delete
from django.dispatch import receiver

from classroom.models import Classroom, Membership

from .models import LiveSession


@receiver(post_delete, sender=Membership, dispatch_uid="live-student-left")
def student_left(sender, instance: Membership, **kwargs) -> None:
    LiveSession.someone_left(instance.classroom_id, instance.user_id)


@receiver(m2m_changed, sender=Classroom.teachers.through, dispatch_uid="live-teacher-left")
def teacher_left(sender, instance, action: str, reverse: bool, pk_set, **kwargs) -> None:
    if action != "post_remove" or not pk_set:
        return
    if reverse:  # user.taught_classes.remove(classroom): instance is the user
        for classroom_id in pk_set:
            LiveSession.someone_left(classroom_id, instance.pk)
    else:
        for user_id in pk_set:
            LiveSession.someone_left(instance.pk, user_id)
