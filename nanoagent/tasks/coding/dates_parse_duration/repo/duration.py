"""Parse human durations."""
from datetime import timedelta
