"""For every test: a record the session's store refuses (a field its event does not
declare) raises, where a user's program would only be told once (records.STRICT)."""
import os

os.environ.setdefault("NPC_STRICT_RECORDS", "1")
