"""The versus games' WebSocket addresses (``dama_learn.asgi``)."""

from django.urls import path

from .consumers import SimulConsumer, VersusConsumer

websocket_urlpatterns = [
    path("ws/versus/simul/<int:pk>/", SimulConsumer.as_asgi()),
    path("ws/versus/<str:token>/", VersusConsumer.as_asgi()),
]
