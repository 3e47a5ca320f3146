"""The live lessons' WebSocket addresses (``dama_learn.asgi``)."""

from django.urls import path

from .consumers import LiveConsumer

websocket_urlpatterns = [
    path("ws/live/<int:pk>/", LiveConsumer.as_asgi()),
]
