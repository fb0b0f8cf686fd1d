from hypothesis import settings

# Reproducible property tests: the same examples on every run and machine.
settings.register_profile("citycam", derandomize=True, deadline=None, max_examples=150)
settings.load_profile("citycam")
