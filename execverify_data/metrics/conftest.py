# The metric module imports `evaluate` (the `eval` extra); skip its doctests without it.
import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("evaluate") else ["execverify_scorer/*.py"]
