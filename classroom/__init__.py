"""A live classroom: rooms, students who follow the presenter, and live polls (see store.py)."""
