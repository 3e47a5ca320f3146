# The models of this app arrive with its feature; the foundation gives it accounts, roles,
# core.Job for background work and core.progress for the session-to-account hand-over.
