"""The demo accounts that `make run` loads (fixtures/demo_accounts.json), for printing and tests."""

DEMO_ACCOUNTS = [
    ("teacher", "teach-draughts", "teacher"),
    ("student", "learn-draughts", "learner"),
    ("admin", "admin-draughts", "administrator"),
]
