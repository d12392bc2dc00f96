# A package, so that pytest imports this folder's conftest.py as kernel.conftest and
# leaves the plain module name "conftest" to the other test folders.
