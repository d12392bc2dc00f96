"""Executors of captured graphs."""
